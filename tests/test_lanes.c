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
 * TDP_ILP_REDUCE, and through TDP_LAUNCH_TPB with a block of 64.
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

/* The sum of the sites and the sum of their lane numbers. */
TDP_KERNEL void kSums(double *t_sum, long n) {
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

/* Runs kMap (tpb TARGET_TPB) or kMap64 over n sites and checks the map. */
static void checkMap(long n, long tpb) {
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
  if (tpb == TARGET_TPB) {
    TDP_LAUNCH(kMap, n, t_base, t_lane, t_vis, n);
  } else {
    TDP_LAUNCH_TPB(kMap64, n, 64, t_base, t_lane, t_vis, n);
  }
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(base, t_base, n * sizeof(long)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(lane, t_lane, n * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(vis, t_vis, n * sizeof(int)), TARGET_SUCCESS);
  const long ls = laneStride(tpb);
  for (long s = 0; s < n; s++) {
    const long wlane = (s / ls) % VVL, wbase = s - wlane * ls;
    if (vis[s] != 1 || lane[s] != wlane || base[s] != wbase) {
      fail_msg("n %ld, %ld threads per block: site %ld visited %d times by base %ld lane %d; "
               "want once by base %ld lane %ld",
               n, tpb, s, vis[s], base[s], lane[s], wbase, wlane);
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
    checkMap(sizes[k], TARGET_TPB);
    checkMap(sizes[k], 64);
  }
}

static void test_reduce_lanes(void **state) {
  (void) state;
  double *t_sum = NULL, sum[2];
  assert_int_equal(targetMalloc(&t_sum, sizeof(sum)), TARGET_SUCCESS);
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    const long n = sizes[k];
    sum[0] = sum[1] = 0.0;
    assert_int_equal(copyToTarget(t_sum, sum, sizeof(sum)), TARGET_SUCCESS);
    TDP_LAUNCH_REDUCE(kSums, n, t_sum, n);
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(sum, t_sum, sizeof(sum)), TARGET_SUCCESS);
    /* C: the reduction loop vectorises over sites, one lane each. */
    const long ls = laneStride(TARGET_TPB);
    double wlanes = 0.0;
#ifdef __CUDACC__
    for (long s = 0; s < n; s++) wlanes += (double) ((s / ls) % VVL);
#else
    (void) ls;
#endif
    const double wsites = 0.5 * (double) n * (double) (n - 1); /* exact below 2^53 */
    if (sum[0] != wsites || sum[1] != wlanes) {
      fail_msg("n %ld: site sum %.17g lane sum %.17g, want %.17g and %.17g", n, sum[0], sum[1],
               wsites, wlanes);
    }
  }
  assert_int_equal(targetFree(t_sum), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lane_map),
      cmocka_unit_test(test_reduce_lanes),
  };
  return cmocka_run_group_tests_name("lanes " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
