/*
 * test_device.c -- device selection: the node-local rank comes from the
 * first launcher variable that is set (TARGETDP_DEVICE, Open MPI, MVAPICH,
 * Intel MPI, PMI (MPICH/Hydra, Cray PMI), PALS (HPE Cray), Slurm), and with
 * TARGETDP_VERBOSE targetInit says which rank got which device. The group
 * has no setup: targetInit runs in forked children only (a CUDA context
 * does not survive fork).
 */

#include "test_util.h"

#include "targetDP_internal.h" /* tdpLocalRank */

static const char *const rank_vars[] = {"TARGETDP_DEVICE", "OMPI_COMM_WORLD_LOCAL_RANK",
                                        "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                        "PMI_LOCAL_RANK", "PALS_LOCAL_RANKID", "SLURM_LOCALID"};
#define NVARS ((int) (sizeof(rank_vars) / sizeof(rank_vars[0])))

static void clear_vars(void) {
  for (int i = 0; i < NVARS; i++) unsetenv(rank_vars[i]);
}

static void test_local_rank_sources(void **state) {
  (void) state;
  const char *from = NULL;
  clear_vars();
  assert_int_equal(tdpLocalRank(&from), 0);
  assert_string_equal(from, "none");
  /* each variable alone, and each one set beside all the later ones: the
   * earliest in the list wins */
  for (int i = NVARS - 1; i >= 0; i--) {
    char v[16];
    snprintf(v, sizeof(v), "%d", 10 + i);
    setenv(rank_vars[i], v, 1);
    assert_int_equal(tdpLocalRank(&from), 10 + i);
    assert_string_equal(from, rank_vars[i]);
  }
  clear_vars();
  setenv("PMI_LOCAL_RANK", "3", 1);
  assert_int_equal(tdpLocalRank(&from), 3);
  assert_string_equal(from, "PMI_LOCAL_RANK");
  clear_vars();
  setenv("PALS_LOCAL_RANKID", "5", 1);
  assert_int_equal(tdpLocalRank(&from), 5);
  assert_string_equal(from, "PALS_LOCAL_RANKID");
  /* not a number: ignored, the next variable counts */
  setenv("PMI_LOCAL_RANK", "x1", 1);
  assert_int_equal(tdpLocalRank(&from), 5);
  assert_string_equal(from, "PALS_LOCAL_RANKID");
  clear_vars();
}

static int child_verbose(void *arg) {
  clear_vars();
  setenv((const char *) arg, "0", 1);
  setenv("TARGETDP_VERBOSE", "1", 1);
  setenv("TARGETDP_QUIET", "1", 1);
  int rc = targetInit();
  targetFinalize();
  return rc;
}

static void test_verbose_says_which_device(void **state) {
  (void) state;
  const char *vars[] = {"PMI_LOCAL_RANK", "PALS_LOCAL_RANKID"};
  for (int i = 0; i < 2; i++) {
    char buf[4096], want[128];
    assert_int_equal(tuRunChild(child_verbose, (void *) vars[i], buf, sizeof(buf)), 0);
    snprintf(want, sizeof(want), "targetDP: local rank 0 (from %s) ", vars[i]);
    tuAssertContains(buf, want);
#ifdef __CUDACC__
    tuAssertContains(buf, "-> GPU 0 of ");
#else
    tuAssertContains(buf, "runs on the host");
#endif
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_local_rank_sources),
      cmocka_unit_test(test_verbose_says_which_device),
  };
  return cmocka_run_group_tests_name("device " TARGETDP_CONFIG, tests, NULL, NULL);
}
