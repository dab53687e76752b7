/*
 * test_stencil.c -- a TDP_KERNEL_STENCIL's loops over a box other than the
 * one its TDP_LAUNCH_STENCIL was given (issue 28). On CUDA the launch sizes
 * a one-site-per-thread grid for its own box, so a loop over a box no
 * larger (a sub-box, or a box of the same extents elsewhere) is covered and
 * correct, and a loop over a larger box must stop the program, never skip
 * sites. On the C backend, and on CUDA where the launch marches (VVL > 1,
 * a TPB the one-site form does not take), every box is correct.
 * (test_box.c and test_box_reduce.c check the launch over its own box.)
 */
#include "test_util.h"

/* Each site of `loop` once, whatever the launch's box. */
TDP_KERNEL_STENCIL void kOther(targetBox box, targetBox loop, int *count) {
  (void) box;
  TDP_TLP_3D_MARCH(loop, x, y, z0, base) {
    TDP_ILP(v) targetAtomicAddInt(count + base + v, 1);
  }
}

static const long g_ext[3] = {9, 13, 70};

/* Launch kOther over `launch` with its loop over `loop`; 0 if every site of
 * `loop` was visited once and no other site, 3 if not, 2 if the launch or
 * the synchronisation failed. */
static int run_other(const targetBox *launch, const targetBox *loop) {
  const long n = g_ext[0] * g_ext[1] * g_ext[2];
  int *count = (int *) tuMalloc(n * sizeof(int)), *t_count = NULL;
  if (targetCalloc(&t_count, n * sizeof(int)) != TARGET_SUCCESS) return 2;
  targetBox b = *launch, l = *loop;
  TDP_LAUNCH_STENCIL(kOther, b, l, t_count);
  if (targetSynchronize() != TARGET_SUCCESS) return 2;
  if (copyFromTarget(count, t_count, n * sizeof(int)) != TARGET_SUCCESS) return 2;
  int wrong = 0;
  for (long s = 0; s < n; s++) {
    const long c[3] = {s / (g_ext[1] * g_ext[2]), s / g_ext[2] % g_ext[1], s % g_ext[2]};
    int in = 1;
    for (int d = 0; d < 3; d++) in &= c[d] >= loop->lo[d] && c[d] < loop->hi[d];
    wrong += count[s] != in;
  }
  targetFree(t_count);
  free(count);
  return wrong ? 3 : 0;
}

static void make_box(targetBox *b, const long lo[3], const long hi[3]) {
  assert_int_equal(targetBoxMake(b, 3, g_ext, lo, hi), TARGET_SUCCESS);
}

/* The forked child: a loop over the whole lattice in a launch over a
 * corner of it. */
static int over_child(void *arg) {
  (void) arg;
  if (targetInit() != TARGET_SUCCESS) return 2;
  targetBox launch, loop;
  const long lo[3] = {0, 0, 0}, hi[3] = {3, 4, 20};
  make_box(&launch, lo, hi);
  targetBoxAll(&loop, 3, g_ext);
  return run_other(&launch, &loop);
}

static void test_stencil_larger_box(void **state) {
  (void) state;
  char out[4096];
  TU_SKIP_IF_NO_FORK();
  int rc = tuRunChild(over_child, NULL, out, sizeof(out));
  tuSetContext("a loop over a larger box than the launch's: exit %d, output \"%.100s\"", rc, out);
  /* Whether the launch takes the one-site form here (a host function: no
   * CUDA call in the parent, which must make none before its fork). */
  int site = 0;
#ifdef __CUDACC__
  {
    targetBox launch;
    const long lo[3] = {0, 0, 0}, hi[3] = {3, 4, 20};
    make_box(&launch, lo, hi);
    dim3 g;
    site = tdpStencilGrid_(&launch, &g);
  }
#endif
  if (site) {
    if (rc == 0 || rc == 3)
      fail_msg("[%s] the one-site form must stop the program, not %s", tu_context,
               rc == 0 ? "run to the end" : "visit the wrong sites");
    tuAssertContains(out, "targetDP: ");
  } else if (rc != 0) {
    fail_msg("[%s] a marching launch must visit every site of any box", tu_context);
  }
}

/* Loops over boxes no larger than the launch's: correct on every backend. */
static void test_stencil_smaller_box(void **state) {
  (void) state;
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  targetBox launch, loop;
  const long lo0[3] = {0, 0, 0}, hi0[3] = {9, 13, 70};
  make_box(&launch, lo0, hi0);
  /* the interiors of halo 1 and 2 (rows of 68 and 66 sites) */
  for (long nh = 1; nh <= 2; nh++) {
    assert_int_equal(targetBoxInterior(&loop, 3, g_ext, nh), TARGET_SUCCESS);
    tuSetContext("a loop over the interior of halo %ld, the launch over the lattice", nh);
    if (run_other(&launch, &loop) != 0) fail_msg("[%s] wrong sites visited", tu_context);
  }
  /* the same extents elsewhere in the lattice; rows of 5 sites (on CUDA
   * blocks of 8 sites along z) */
  const long lo1[3] = {0, 0, 0}, hi1[3] = {4, 6, 5}, lo2[3] = {5, 7, 60}, hi2[3] = {9, 13, 65};
  make_box(&launch, lo1, hi1);
  make_box(&loop, lo2, hi2);
  tuSetContext("a loop over [5,9) [7,13) [60,65), the launch over [0,4) [0,6) [0,5)");
  if (run_other(&launch, &loop) != 0) fail_msg("[%s] wrong sites visited", tu_context);
  assert_int_equal(targetFinalize(), TARGET_SUCCESS);
}

int main(void) {
  /* the child first: CUDA must not be initialised in the parent before a fork */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stencil_larger_box),
      cmocka_unit_test(test_stencil_smaller_box),
  };
  return cmocka_run_group_tests_name("stencil " TARGETDP_CONFIG, tests, NULL, NULL);
}
