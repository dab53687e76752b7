/*
 * test_lanes.c -- which thread and lane visit which site (issue 10 item 2).
 *
 * baseIndex + vecIndex is the site in every backend and VVL; TDP_LANE(v)
 * is the lane number 0 .. VVL-1. On the C backend a stride's lanes are
 * consecutive sites (base a multiple of VVL); on CUDA they are a block
 * apart (lane l of thread t is chunk + t + l * blockDim), so adjacent
 * threads touch adjacent sites in every lane: coalesced. Each site is
 * recorded with the stride base and lane that visited it, and the map is
 * checked against that rule; every site visited once (a site missed keeps
 * -1, a site visited twice counts 2). The same through TDP_TLP_SUM /
 * TDP_ILP_REDUCE, through TDP_LAUNCH_TPB with a block of 64, and through
 * TDP_LAUNCH_LANES at every lane count it takes (on CUDA a thread then
 * has that many lanes, a block apart; on C the lanes stay VVL), which
 * refuses any other count with its file:line, running nothing.
 */
#include "test_util.h"

/* The offset between a thread's lanes for a block of tpb threads. */
static long laneStride(long tpb) {
#ifdef __CUDACC__
  return tpb;
#else
  (void) tpb;
  return 1;
#endif
}

/* Site s was visited by the stride at base, in lane: the one record both
 * map kernels keep (they differ only in their block size). */
TDP_DEVICE static inline void recordVisit(long *t_base, int *t_lane, int *t_visits, long s,
                                          long base, int lane) {
  t_base[s] = base;
  t_lane[s] = lane;
  t_visits[s] += 1;
}

TDP_KERNEL void kMap(long *t_base, int *t_lane, int *t_visits, long n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) recordVisit(t_base, t_lane, t_visits, baseIndex + vecIndex, baseIndex,
                                  TDP_LANE(vecIndex));
  }
}

TDP_KERNEL_TPB(64) void kMap64(long *t_base, int *t_lane, int *t_visits, long n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) recordVisit(t_base, t_lane, t_visits, baseIndex + vecIndex, baseIndex,
                                  TDP_LANE(vecIndex));
  }
}

TDP_KERNEL_LANES void kMapL(long *t_base, int *t_lane, int *t_visits, long n) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) recordVisit(t_base, t_lane, t_visits, baseIndex + vecIndex, baseIndex,
                                  TDP_LANE(vecIndex));
  }
}

/* The sum of the sites and the sum of their lane numbers. A lanes kernel:
 * TDP_LAUNCH_REDUCE runs it at VVL (its template's default). */
TDP_KERNEL_LANES void kSums(double *t_sum, long n) {
  double sites = 0.0, lanes = 0.0;
  TDP_TLP_SUM(baseIndex, n, sites, lanes) {
    TDP_ILP_REDUCE(vecIndex) {
      sites += (double) (baseIndex + vecIndex);
      lanes += (double) TDP_LANE(vecIndex);
    }
  }
  targetBlockAddDouble(&t_sum[0], sites);
  targetBlockAddDouble(&t_sum[1], lanes);
}

/* Runs kMap (tpb TARGET_TPB, lanes 0), kMap64 (tpb 64) or kMapL at
 * `lanes` sites per thread (tpb TARGET_TPB) over n sites; checks the map. */
static void checkMap(long n, long tpb, int lanes) {
  long *t_base = NULL, *base = (long *) tuMalloc(n * sizeof(long));
  int *t_lane = NULL, *lane = (int *) tuMalloc(n * sizeof(int));
  int *t_vis = NULL, *vis = (int *) tuMalloc(n * sizeof(int));
  for (long s = 0; s < n; s++) base[s] = -1, lane[s] = -1, vis[s] = 0;
  assert_int_equal(targetMalloc(&t_base, n * sizeof(long)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_lane, n * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_vis, n * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_base, base, n * sizeof(long)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_lane, lane, n * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_vis, vis, n * sizeof(int)), TARGET_SUCCESS);
  if (lanes > 0) {
    TDP_LAUNCH_LANES(kMapL, n, lanes, t_base, t_lane, t_vis, n);
  } else if (tpb == TARGET_TPB) {
    TDP_LAUNCH(kMap, n, t_base, t_lane, t_vis, n);
  } else {
    TDP_LAUNCH_TPB(kMap64, n, 64, t_base, t_lane, t_vis, n);
  }
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(base, t_base, n * sizeof(long)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(lane, t_lane, n * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(vis, t_vis, n * sizeof(int)), TARGET_SUCCESS);
  const long ls = laneStride(tpb);
#ifdef __CUDACC__
  const long nl = lanes > 0 ? lanes : VVL;
#else
  const long nl = VVL; /* the SIMD width, whatever the launch asked */
#endif
  for (long s = 0; s < n; s++) {
    const long wlane = (s / ls) % nl, wbase = s - wlane * ls;
    if (vis[s] != 1 || lane[s] != wlane || base[s] != wbase) {
      fail_msg("n %ld, %ld threads per block, lanes %d: site %ld visited %d times by base %ld "
               "lane %d; want once by base %ld lane %ld",
               n, tpb, lanes, s, vis[s], base[s], lane[s], wbase, wlane);
    }
  }
  assert_int_equal(targetFree(t_base), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_lane), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_vis), TARGET_SUCCESS);
  free(base), free(lane), free(vis);
}

static const long sizes[] = {1, 7, 64 * VVL - 1, TARGET_TPB * VVL, 3 * TARGET_TPB * VVL + 5,
                             100003};

static void test_lane_map(void **state) {
  (void) state;
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    checkMap(sizes[k], TARGET_TPB, 0);
    checkMap(sizes[k], 64, 0);
  }
}

/* The lane counts TDP_LAUNCH_LANES takes: 1, 2, 4, 8, 16 below VVL, and VVL. */
static int launchLanes(int *l) {
  int k = 0;
  for (int p = 1; p <= 16 && p < VVL; p *= 2) l[k++] = p;
  l[k++] = VVL;
  return k;
}

static void test_lane_map_per_launch(void **state) {
  (void) state;
  int l[8], nl = launchLanes(l);
  for (int j = 0; j < nl; j++) {
    const long n5[] = {1, 7, 64 * l[j] - 1, TARGET_TPB * l[j], 3 * TARGET_TPB * l[j] + 5, 100003};
    for (size_t k = 0; k < sizeof(n5) / sizeof(n5[0]); k++) checkMap(n5[k], TARGET_TPB, l[j]);
  }
}

static void test_launch_lanes_refused(void **state) {
  (void) state;
  const long n = 1000;
  int *t_vis = NULL, vis[4] = {1, 1, 1, 1};
  assert_int_equal(targetCalloc(&t_vis, n * sizeof(int)), TARGET_SUCCESS);
  const int bad[] = {0, -1, 3, 2 * VVL, 32, VVL + 1};
  targetSetErrorAbort(0);
  for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
    if (bad[k] == VVL || (bad[k] == 3 && VVL == 3)) continue;
    char want[200];
    const int line = __LINE__ + 1;
    TDP_LAUNCH_LANES(kMapL, n, bad[k], NULL, NULL, t_vis, n);
    assert_int_equal(targetLastError(), TARGET_ERROR_INVALID_VALUE);
    snprintf(want, sizeof(want),
             "targetDP: TDP_LAUNCH_LANES failed at %s:%d: kernel kMapL not launched: %d sites "
             "per thread", __FILE__, line, bad[k]);
    tuAssertContains(targetLastErrorString(), want);
  }
  targetSetErrorAbort(1);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(vis, t_vis, sizeof(vis)), TARGET_SUCCESS);
  assert_true(vis[0] == 0 && vis[1] == 0 && vis[2] == 0 && vis[3] == 0); /* nothing ran */
  assert_int_equal(targetFree(t_vis), TARGET_SUCCESS);
}

/* lanes 0: TDP_LAUNCH_REDUCE (VVL lanes); else TDP_LAUNCH_LANES. */
static void checkSums(double *t_sum, long n, int lanes) {
  double sum[2] = {0.0, 0.0};
  assert_int_equal(copyToTarget(t_sum, sum, sizeof(sum)), TARGET_SUCCESS);
  if (lanes > 0) {
    TDP_LAUNCH_LANES(kSums, n, lanes, t_sum, n);
  } else {
    TDP_LAUNCH_REDUCE(kSums, n, t_sum, n);
  }
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(sum, t_sum, sizeof(sum)), TARGET_SUCCESS);
  /* C: the reduction loop vectorises over sites, one lane each. */
  double wlanes = 0.0;
#ifdef __CUDACC__
  const long ls = laneStride(TARGET_TPB), nl = lanes > 0 ? lanes : VVL;
  for (long s = 0; s < n; s++) wlanes += (double) ((s / ls) % nl);
#endif
  const double wsites = 0.5 * (double) n * (double) (n - 1); /* exact below 2^53 */
  if (sum[0] != wsites || sum[1] != wlanes) {
    fail_msg("n %ld, lanes %d: site sum %.17g lane sum %.17g, want %.17g and %.17g", n, lanes,
             sum[0], sum[1], wsites, wlanes);
  }
}

static void test_reduce_lanes(void **state) {
  (void) state;
  double *t_sum = NULL;
  int l[8], nl = launchLanes(l);
  assert_int_equal(targetMalloc(&t_sum, 2 * sizeof(double)), TARGET_SUCCESS);
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    checkSums(t_sum, sizes[k], 0);
    for (int j = 0; j < nl; j++) checkSums(t_sum, sizes[k], l[j]);
  }
  assert_int_equal(targetFree(t_sum), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lane_map),
      cmocka_unit_test(test_reduce_lanes),
      cmocka_unit_test(test_lane_map_per_launch),
      cmocka_unit_test(test_launch_lanes_refused),
  };
  return cmocka_run_group_tests_name("lanes " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
