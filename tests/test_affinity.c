/*
 * test_affinity.c -- targetInit warns, once and on stderr, when the
 * process's CPU affinity mask holds fewer CPUs than its OpenMP threads
 * (mpirun -np 1 binds a rank to one core: OMP_NUM_THREADS=2 then ran two
 * threads on one core while the banner said 2 threads, issue 28), names the
 * fix, and says nothing under TARGETDP_QUIET=1 or when the mask is large
 * enough. C backend with OpenMP on Linux only (the children set their own
 * mask and thread count).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>

#include "test_util.h"
#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(_OPENMP) && defined(__linux__) && defined(CPU_COUNT) && !defined(__CUDACC__)
#define HAVE_AFFINITY_TEST 1
typedef struct {
  int cpus;  /* CPUs in the child's mask */
  int quiet; /* TARGETDP_QUIET=1 */
} childCase;

/* targetInit again under a mask of `cpus` CPUs (the first ones of ours)
 * and 2 threads, twice: the warning comes once. */
static int reinit(void *arg) {
  const childCase *c = (const childCase *) arg;
  cpu_set_t mine, mask;
  if (sched_getaffinity(0, sizeof(mine), &mine) != 0) return 3;
  CPU_ZERO(&mask);
  int n = 0;
  for (int i = 0; i < CPU_SETSIZE && n < c->cpus; i++)
    if (CPU_ISSET(i, &mine)) {
      CPU_SET(i, &mask);
      n++;
    }
  if (n < c->cpus || sched_setaffinity(0, sizeof(mask), &mask) != 0) return 3;
  if (c->quiet) setenv("TARGETDP_QUIET", "1", 1);
  else unsetenv("TARGETDP_QUIET");
  omp_set_num_threads(2);
  for (int k = 0; k < 2; k++) {
    if (targetFinalize() != TARGET_SUCCESS) return 4;
    if (targetInit() != TARGET_SUCCESS) return 5;
  }
  return 0;
}

static int usable_cpus(void) {
  cpu_set_t mine;
  return sched_getaffinity(0, sizeof(mine), &mine) == 0 ? CPU_COUNT(&mine) : 0;
}
#endif

static void test_affinity_warns(void **state) {
  (void) state;
#ifndef HAVE_AFFINITY_TEST
  print_message("# skipped: needs the C backend with OpenMP on Linux\n");
  skip();
#else
  if (omp_get_proc_bind() != omp_proc_bind_false) {
    print_message("# skipped: OMP_PROC_BIND / OMP_PLACES set (the runtime binds threads)\n");
    skip();
  }
  char buf[4096];
  childCase one = {1, 0};
  assert_int_equal(tuRunChild(reinit, &one, buf, sizeof(buf)), 0);
  tuAssertContains(buf, "targetDP: warning: 2 OpenMP threads but this process may run on 1 CPU "
                        "only (its affinity mask)");
  tuAssertContains(buf, "--bind-to none");
  tuAssertContains(buf, "--map-by slot:PE=2");
  tuAssertContains(buf, "OMP_NUM_THREADS=1");
  const char *first = strstr(buf, "targetDP: warning: 2 OpenMP threads");
  if (strstr(first + 1, "targetDP: warning: 2 OpenMP threads"))
    fail_msg("the warning came more than once:\n%s", buf);
#endif
}

static void test_affinity_quiet(void **state) {
  (void) state;
#ifndef HAVE_AFFINITY_TEST
  print_message("# skipped: needs the C backend with OpenMP on Linux\n");
  skip();
#else
  char buf[4096];
  childCase quiet = {1, 1};
  assert_int_equal(tuRunChild(reinit, &quiet, buf, sizeof(buf)), 0);
  if (strstr(buf, "affinity")) fail_msg("TARGETDP_QUIET=1, yet:\n%s", buf);
  if (usable_cpus() < 2) {
    print_message("# the mask of 2 CPUs skipped: this process has %d\n", usable_cpus());
    return;
  }
  childCase two = {2, 0};
  assert_int_equal(tuRunChild(reinit, &two, buf, sizeof(buf)), 0);
  if (strstr(buf, "affinity")) fail_msg("2 threads on 2 CPUs, yet:\n%s", buf);
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_affinity_warns),
      cmocka_unit_test(test_affinity_quiet),
  };
  return cmocka_run_group_tests(tests, tuSetup, tuTeardown);
}
