/*
 * test_profile.c -- the profiling build (make PROFILE=1): the table that
 * targetFinalize prints has one line per launched kernel and library call,
 * with the right call counts, and GB/s where bytes were declared. In other
 * builds: nothing is printed at targetFinalize, and targetProfilePrint says
 * it is not a profiling build. tests/suites/profile.sh runs the PROFILE=1
 * build of this file.
 *
 * The group has no setup: the first test forks before this process touches
 * the target (a CUDA context does not survive fork); the second inits.
 */

#include "test_util.h"

TDP_KERNEL void kProfScale(double *a, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) a[base + v] *= 0.5;
  }
}

TDP_KERNEL void kProfBox(targetBox box, double *a) {
  TDP_TLP_3D(box, x, y, z0, base) {
    TDP_ILP(v) a[base + v] += (double) (x + y + z0 + v);
  }
}

#define N 4099

static void run_some(void) {
  double *t_a = NULL, h[N];
  for (int i = 0; i < N; i++) h[i] = i;
  targetMalloc(&t_a, N * sizeof(double));
  copyToTarget(t_a, h, N * sizeof(double));
  targetProfileBytes("kProfScale", 2.0 * N * sizeof(double));
  for (int k = 0; k < 3; k++) TDP_LAUNCH(kProfScale, N, t_a, N);
  targetBox box;
  const long ext[3] = {7, 11, 53}; /* 4081 sites <= N */
  targetBoxInterior(&box, 3, ext, 1);
  TDP_LAUNCH_BOX(kProfBox, box, t_a); /* no bytes declared: no GB/s */
  TDP_LAUNCH_BOX(kProfBox, box, t_a);
  targetSynchronize();
  copyFromTarget(h, t_a, N * sizeof(double));
  targetFree(t_a);
}

static int child_finalize(void *arg) {
  (void) arg;
  targetInit();
  run_some();
  targetFinalize();
  return 0;
}

#ifdef TARGETDP_PROFILE
/* The line of `name` in the table, or NULL. */
static const char *line_of(const char *table, const char *name, char *line, size_t nline) {
  char key[128];
  snprintf(key, sizeof(key), "targetDP profile: %s ", name);
  const char *p = strstr(table, key);
  if (!p) return NULL;
  size_t k = 0;
  while (p[k] && p[k] != '\n' && k + 1 < nline) {
    line[k] = p[k];
    k++;
  }
  line[k] = '\0';
  return line;
}
#endif

static void test_table_at_finalize(void **state) {
  (void) state;
  char buf[8192];
  int status = tuRunChild(child_finalize, NULL, buf, sizeof(buf));
  assert_int_equal(status, 0);
#ifdef TARGETDP_PROFILE
  char line[256];
  tuAssertContains(buf, "targetDP profile: backend=");
  tuAssertContains(buf, " profile device=");
  /* name, calls, total s, mean us, bytes/call, GB/s */
  char name[64], gbs[32], bpc[32];
  long calls = 0;
  double total = -1.0, mean = -1.0;
  assert_non_null(line_of(buf, "kProfScale", line, sizeof(line)));
  assert_int_equal(sscanf(line, "targetDP profile: %63s %ld %lf %lf %31s %31s", name, &calls,
                          &total, &mean, bpc, gbs), 6);
  assert_int_equal(calls, 3);
  assert_true(total >= 0.0 && mean >= 0.0);
  tuAssertClose(atof(bpc), 2.0 * N * sizeof(double), 1e-3);
  assert_true(gbs[0] != '-' && atof(gbs) >= 0.0);
  assert_non_null(line_of(buf, "kProfBox", line, sizeof(line)));
  assert_int_equal(sscanf(line, "targetDP profile: %63s %ld %lf %lf %31s %31s", name, &calls,
                          &total, &mean, bpc, gbs), 6);
  assert_int_equal(calls, 2);
  assert_string_equal(gbs, "-"); /* no bytes declared */
  assert_non_null(line_of(buf, "copyToTarget", line, sizeof(line)));
  assert_int_equal(sscanf(line, "targetDP profile: %63s %ld %lf %lf %31s %31s", name, &calls,
                          &total, &mean, bpc, gbs), 6);
  assert_int_equal(calls, 1);
  tuAssertClose(atof(bpc), N * sizeof(double), 1e-3); /* the library declares its own */
  assert_non_null(line_of(buf, "copyFromTarget", line, sizeof(line)));
#else
  if (strstr(buf, "targetDP profile") != NULL)
    fail_msg("a build without PROFILE=1 printed a profile: %s", buf);
#endif
}

static void test_print_now(void **state) {
  (void) state;
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  run_some();
  FILE *f = tmpfile();
  assert_non_null(f);
  targetProfilePrint(f);
  char buf[8192];
  rewind(f);
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  buf[n] = '\0';
  fclose(f);
#ifdef TARGETDP_PROFILE
  tuAssertContains(buf, "targetDP profile: kProfScale ");
  tuAssertContains(buf, "targetDP profile: kProfBox ");
  tuAssertContains(buf, "targetDP profile: copyFromTarget ");
#else
  tuAssertContains(buf, "not a profiling build");
#endif
  assert_int_equal(targetFinalize(), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table_at_finalize),
      cmocka_unit_test(test_print_now),
  };
  return cmocka_run_group_tests_name("profile " TARGETDP_CONFIG, tests, NULL, NULL);
}
