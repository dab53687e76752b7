/*
 * test_streams.c -- the asynchronous layer: streams (targetStreamCreate,
 * targetStreamDestroy, targetStreamSynchronize, TDP_LAUNCH_STREAM,
 * targetStreamCreateWithPriority, targetStreamSetShare), events
 * (targetEventCreate, targetEventDestroy, targetEventRecord,
 * targetStreamWaitEvent, targetEventSynchronize, targetEventCreateTimed,
 * targetEventElapsed), asynchronous copies
 * (copyToTargetAsync, copyFromTargetAsync, copyTargetToTargetAsync,
 * copyTargetToTarget), pinned host memory (targetMallocHost,
 * targetFreeHost), IPC handles (targetIpcAvailable, targetIpcGetHandle,
 * targetIpcOpenHandle, targetIpcCloseHandle), stream-ordered flags
 * (targetStreamFlagsAvailable, targetStreamWriteFlag,
 * targetStreamWaitFlag), targetDeviceCount and
 * targetDeviceId, and the errors of each.
 */
#include "test_util.h"

/* t_a[i] = t_a[i] * mul + add: a chain of these gives a result that
 * depends on the order they ran in. */
TDP_KERNEL void kMulAdd(double *t_a, int n, double mul, double add) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      int i = baseIndex + vecIndex;
      t_a[i] = t_a[i] * mul + add;
    }
  }
}

/* Slow on purpose (many dependent updates per site), so that a second
 * stream that did not wait would read the old values on a GPU. */
TDP_KERNEL void kSlowFill(double *t_a, int n, double value, int reps) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      int i = baseIndex + vecIndex;
      double v = 0.0;
      for (int r = 0; r < reps; r++) v = v * 0.5 + value;
      t_a[i] = value + 0.0 * v; /* == value, after the work (v is finite) */
    }
  }
}

TDP_KERNEL void kCopyPlus(double *t_dst, const double *t_src, int n, double add) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      int i = baseIndex + vecIndex;
      t_dst[i] = t_src[i] + add;
    }
  }
}

/* *t_sum += sum of t_a: an in-kernel reduction (TDP_LAUNCH_REDUCE_STREAM) */
TDP_KERNEL void kSum(const double *t_a, int n, double *t_sum) {
  double sum = 0.0;
  TDP_TLP_SUM(baseIndex, n, sum) {
    TDP_ILP_REDUCE(vecIndex) sum += t_a[baseIndex + vecIndex];
  }
  targetBlockAddDouble(t_sum, sum);
}

/* The grid it ran with (thread 0 of block 0 writes gridDim.x; the C
 * backend has no grid: 1). Every site is written too, so that a capped
 * grid that skipped sites fails. */
TDP_KERNEL void kGridFill(double *t_a, int n, int *t_grid) {
  TDP_TLP(baseIndex, n) {
    TDP_ILP(vecIndex) {
      int i = baseIndex + vecIndex;
      t_a[i] = 2.0 * i;
    }
  }
#ifdef __CUDACC__
  if (blockIdx.x == 0 && threadIdx.x == 0) *t_grid = (int) gridDim.x;
#else
  *t_grid = 1;
#endif
}

static const int nsizes[] = {1, VVL + 1, 1003, 12345, 1 << 20};
#define NSIZES ((int) (sizeof(nsizes) / sizeof(nsizes[0])))

/* ---------------------------------------------------------------------- */

static void test_stream_in_order(void **state) {
  (void) state;
  targetStream_t s = NULL;
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);
  assert_non_null(s);
  for (int k = 0; k < NSIZES; k++) {
    int n = nsizes[k];
    size_t nbytes = (size_t) n * sizeof(double);
    tuSetContext("in-order stream, n = %d", n);
    double *h = NULL, *back = NULL, *t = NULL;
    assert_int_equal(targetMallocHost(&h, nbytes), TARGET_SUCCESS);
    assert_int_equal(targetMallocHost(&back, nbytes), TARGET_SUCCESS);
    assert_int_equal(targetMalloc(&t, nbytes), TARGET_SUCCESS);
    tuFillDouble(h, n, -1.0, 1.0, 11 + k);
    for (int i = 0; i < n; i++) back[i] = -7.0;
    /* copy in, three updates that do not commute, copy out: all queued */
    assert_int_equal(copyToTargetAsync(t, h, nbytes, s), TARGET_SUCCESS);
    TDP_LAUNCH_STREAM(kMulAdd, n, s, t, n, 2.0, 1.0);
    TDP_LAUNCH_STREAM(kMulAdd, n, s, t, n, 3.0, -0.5);
    TDP_LAUNCH_STREAM(kMulAdd, n, s, t, n, 0.5, 0.25);
    assert_int_equal(copyFromTargetAsync(back, t, nbytes, s), TARGET_SUCCESS);
    assert_int_equal(targetStreamSynchronize(s), TARGET_SUCCESS);
    tuCheck c;
    tuCheckInit(&c);
    for (int i = 0; i < n; i++) tuCheckEq(&c, i, back[i], ((h[i] * 2.0 + 1.0) * 3.0 - 0.5) * 0.5 + 0.25);
    tuCheckDone(&c, "values after three kernels on one stream", n);
    assert_int_equal(targetFree(t), TARGET_SUCCESS);
    assert_int_equal(targetFreeHost(back), TARGET_SUCCESS);
    assert_int_equal(targetFreeHost(h), TARGET_SUCCESS);
  }
  assert_int_equal(targetStreamDestroy(s), TARGET_SUCCESS);
}

/* The default stream (NULL) is valid for launches and copies. */
static void test_default_stream(void **state) {
  (void) state;
  const int n = 1003;
  size_t nbytes = n * sizeof(double);
  double *h = (double *) tuMalloc(nbytes), *back = (double *) tuMalloc(nbytes), *t = NULL;
  assert_int_equal(targetMalloc(&t, nbytes), TARGET_SUCCESS);
  tuFillDouble(h, n, 1.0, 2.0, 5);
  assert_int_equal(copyToTargetAsync(t, h, nbytes, TARGET_STREAM_DEFAULT), TARGET_SUCCESS);
  TDP_LAUNCH_STREAM(kMulAdd, n, TARGET_STREAM_DEFAULT, t, n, -1.0, 4.0);
  assert_int_equal(copyFromTargetAsync(back, t, nbytes, TARGET_STREAM_DEFAULT), TARGET_SUCCESS);
  assert_int_equal(targetStreamSynchronize(TARGET_STREAM_DEFAULT), TARGET_SUCCESS);
  tuCheck c;
  tuCheckInit(&c);
  for (int i = 0; i < n; i++) tuCheckEq(&c, i, back[i], 4.0 - h[i]);
  tuSetContext("default stream");
  tuCheckDone(&c, "values", n);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  free(h);
  free(back);
}

/* Host -> target -> target -> host with pageable and pinned host memory,
 * whole arrays and at offsets inside allocations; the synchronous
 * target-to-target copy too. */
static void test_async_round_trips(void **state) {
  (void) state;
  targetStream_t s = NULL;
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);
  for (int pinned = 0; pinned < 2; pinned++) {
    for (int k = 0; k < NSIZES; k++) {
      int n = nsizes[k];
      size_t nbytes = (size_t) n * sizeof(double), off = 3;
      tuSetContext("round trip, n = %d, %s host memory", n, pinned ? "pinned" : "pageable");
      double *h = NULL, *back = NULL, *t1 = NULL, *t2 = NULL, *t3 = NULL;
      if (pinned) {
        assert_int_equal(targetMallocHost(&h, nbytes), TARGET_SUCCESS);
        assert_int_equal(targetMallocHost(&back, nbytes + 2 * sizeof(double)), TARGET_SUCCESS);
      } else {
        h = (double *) tuMalloc(nbytes);
        back = (double *) tuMalloc(nbytes + 2 * sizeof(double));
      }
      assert_int_equal(targetMalloc(&t1, nbytes), TARGET_SUCCESS);
      assert_int_equal(targetMalloc(&t2, nbytes + off * sizeof(double)), TARGET_SUCCESS);
      assert_int_equal(targetMalloc(&t3, nbytes), TARGET_SUCCESS);
      tuFillDouble(h, n, -5.0, 5.0, 100 + k);
      back[n] = back[n + 1] = 42.0; /* guards */
      assert_int_equal(copyToTargetAsync(t1, h, nbytes, s), TARGET_SUCCESS);
      assert_int_equal(copyTargetToTargetAsync(t2 + off, t1, nbytes, s), TARGET_SUCCESS);
      assert_int_equal(copyFromTargetAsync(back, t2 + off, nbytes, s), TARGET_SUCCESS);
      assert_int_equal(targetStreamSynchronize(s), TARGET_SUCCESS);
      tuCheck c;
      tuCheckInit(&c);
      for (int i = 0; i < n; i++) tuCheckEq(&c, i, back[i], h[i]);
      tuCheckDone(&c, "async round trip", n);
      assert_true(back[n] == 42.0 && back[n + 1] == 42.0);
      /* synchronous target -> target: done when the call returns */
      TDP_LAUNCH(kMulAdd, n, t1, n, 1.0, 1.0);
      assert_int_equal(copyTargetToTarget(t3, t1, nbytes), TARGET_SUCCESS);
      assert_int_equal(copyFromTarget(back, t3, nbytes), TARGET_SUCCESS);
      tuCheckInit(&c);
      for (int i = 0; i < n; i++) tuCheckEq(&c, i, back[i], h[i] + 1.0);
      tuCheckDone(&c, "copyTargetToTarget", n);
      assert_int_equal(targetFree(t1), TARGET_SUCCESS);
      assert_int_equal(targetFree(t2), TARGET_SUCCESS);
      assert_int_equal(targetFree(t3), TARGET_SUCCESS);
      if (pinned) {
        assert_int_equal(targetFreeHost(h), TARGET_SUCCESS);
        assert_int_equal(targetFreeHost(back), TARGET_SUCCESS);
      } else {
        free(h);
        free(back);
      }
    }
  }
  assert_int_equal(targetStreamDestroy(s), TARGET_SUCCESS);
}

/* Stream b reads what a slow kernel on stream a writes; an event orders
 * them. targetEventSynchronize then waits for a on the host. */
static void test_two_streams_event(void **state) {
  (void) state;
  const int n = 1 << 20;
  size_t nbytes = (size_t) n * sizeof(double);
  targetStream_t a = NULL, b = NULL;
  targetEvent_t written = NULL, done_a = NULL;
  assert_int_equal(targetStreamCreate(&a), TARGET_SUCCESS);
  assert_int_equal(targetStreamCreate(&b), TARGET_SUCCESS);
  assert_true(a != b);
  assert_int_equal(targetEventCreate(&written), TARGET_SUCCESS);
  assert_int_equal(targetEventCreate(&done_a), TARGET_SUCCESS);
  double *t_x = NULL, *t_y = NULL, *t_z = NULL, *back = NULL;
  assert_int_equal(targetMalloc(&t_x, nbytes), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_y, nbytes), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_z, nbytes), TARGET_SUCCESS);
  assert_int_equal(targetMallocHost(&back, nbytes), TARGET_SUCCESS);
  /* Slow only where streams run concurrently: on the C backend every call
   * has finished when it returns, and 2000 passes would cost seconds. */
  const int reps = strcmp(TARGETDP_BACKEND, "c") ? 2000 : 2;
  for (int round = 0; round < 3; round++) {
    double value = 1.5 + round;
    tuSetContext("two streams, round %d", round);
    TDP_LAUNCH_STREAM(kSlowFill, n, a, t_x, n, value, reps);
    assert_int_equal(targetEventRecord(written, a), TARGET_SUCCESS);
    assert_int_equal(targetStreamWaitEvent(b, written), TARGET_SUCCESS);
    TDP_LAUNCH_STREAM(kCopyPlus, n, b, t_y, t_x, n, 0.25);
    assert_int_equal(copyFromTargetAsync(back, t_y, nbytes, b), TARGET_SUCCESS);
    /* more (slow) work on a after the event does not delay b's wait; it
     * writes another array: writing t_x while b reads it would be the
     * program's race, which no event ordered (a first version did) */
    TDP_LAUNCH_STREAM(kSlowFill, n, a, t_z, n, value + 100.0, reps);
    assert_int_equal(targetEventRecord(done_a, a), TARGET_SUCCESS);
    assert_int_equal(targetStreamSynchronize(b), TARGET_SUCCESS);
    tuCheck c;
    tuCheckInit(&c);
    for (int i = 0; i < n; i++) tuCheckEq(&c, i, back[i], value + 0.25);
    tuCheckDone(&c, "stream b after waiting for stream a's event", n);
    assert_int_equal(targetEventSynchronize(done_a), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(back, t_z, nbytes), TARGET_SUCCESS);
    tuCheckInit(&c);
    for (int i = 0; i < n; i++) tuCheckEq(&c, i, back[i], value + 100.0);
    tuCheckDone(&c, "stream a after its event", n);
  }
  assert_int_equal(targetFree(t_x), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_y), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_z), TARGET_SUCCESS);
  assert_int_equal(targetFreeHost(back), TARGET_SUCCESS);
  assert_int_equal(targetEventDestroy(written), TARGET_SUCCESS);
  assert_int_equal(targetEventDestroy(done_a), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(a), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(b), TARGET_SUCCESS);
}

/* Timed events: the time between two records spans the kernels between
 * them (a slow kernel takes longer than nothing), is never negative, and
 * the errors (NULL result, dead events) are reported. */
static void test_timed_events(void **state) {
  (void) state;
  const int n = 1 << 20;
  targetStream_t s = NULL;
  targetEvent_t a = NULL, b = NULL, c = NULL, dead = NULL;
  double *t_x = NULL;
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);
  assert_int_equal(targetEventCreateTimed(&a), TARGET_SUCCESS);
  assert_int_equal(targetEventCreateTimed(&b), TARGET_SUCCESS);
  assert_int_equal(targetEventCreateTimed(&c), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_x, n * sizeof(double)), TARGET_SUCCESS);
  const int reps = strcmp(TARGETDP_BACKEND, "c") ? 2000 : 20;
  assert_int_equal(targetEventRecord(a, s), TARGET_SUCCESS);
  TDP_LAUNCH_STREAM(kSlowFill, n, s, t_x, n, 1.0, reps);
  assert_int_equal(targetEventRecord(b, s), TARGET_SUCCESS);
  assert_int_equal(targetEventRecord(c, s), TARGET_SUCCESS);
  double slow = -1.0, none = -1.0;
  assert_int_equal(targetEventElapsed(&slow, a, b), TARGET_SUCCESS);
  assert_int_equal(targetEventElapsed(&none, b, c), TARGET_SUCCESS);
  assert_true(slow > 0.0);
  assert_true(none >= 0.0);
  assert_true(slow > none);
  targetSetErrorAbort(0);
  expectError(targetEventCreateTimed(NULL), TARGET_ERROR_INVALID_VALUE, "targetEventCreateTimed",
              "NULL address");
  expectError(targetEventElapsed(NULL, a, b), TARGET_ERROR_INVALID_VALUE, "targetEventElapsed",
              "NULL address");
  assert_int_equal(targetEventCreateTimed(&dead), TARGET_SUCCESS);
  assert_int_equal(targetEventDestroy(dead), TARGET_SUCCESS);
  expectError(targetEventElapsed(&slow, dead, b), TARGET_ERROR_INVALID_VALUE,
              "targetEventElapsed", "not a live event");
  targetSetErrorAbort(1);
  assert_int_equal(targetFree(t_x), TARGET_SUCCESS);
  assert_int_equal(targetEventDestroy(a), TARGET_SUCCESS);
  assert_int_equal(targetEventDestroy(b), TARGET_SUCCESS);
  assert_int_equal(targetEventDestroy(c), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(s), TARGET_SUCCESS);
}

/* A high-priority stream (the halo's) is an ordinary stream for
 * correctness: its work runs in order and waits for events of a normal
 * stream (here the interior's slow kernel). Only scheduling differs. */
static void test_stream_priority(void **state) {
  (void) state;
  const int n = 1 << 20;
  size_t nbytes = (size_t) n * sizeof(double);
  targetStream_t hi = NULL, lo = NULL;
  targetEvent_t filled = NULL;
  assert_int_equal(targetStreamCreateWithPriority(&hi, TARGET_STREAM_PRIORITY_HIGH), TARGET_SUCCESS);
  assert_int_equal(targetStreamCreateWithPriority(&lo, TARGET_STREAM_PRIORITY_NORMAL),
                   TARGET_SUCCESS);
  assert_non_null(hi);
  assert_true(hi != lo);
  assert_int_equal(targetEventCreate(&filled), TARGET_SUCCESS);
  double *t_x = NULL, *t_y = NULL, *back = NULL;
  assert_int_equal(targetMalloc(&t_x, nbytes), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_y, nbytes), TARGET_SUCCESS);
  assert_int_equal(targetMallocHost(&back, nbytes), TARGET_SUCCESS);
  const int reps = strcmp(TARGETDP_BACKEND, "c") ? 2000 : 2;
  for (int round = 0; round < 2; round++) {
    tuSetContext("high-priority stream after a normal one's event, round %d", round);
    TDP_LAUNCH_STREAM(kSlowFill, n, lo, t_x, n, 3.0 + round, reps);
    assert_int_equal(targetEventRecord(filled, lo), TARGET_SUCCESS);
    assert_int_equal(targetStreamWaitEvent(hi, filled), TARGET_SUCCESS);
    TDP_LAUNCH_STREAM(kCopyPlus, n, hi, t_y, t_x, n, 0.5);
    TDP_LAUNCH_STREAM(kMulAdd, n, hi, t_y, n, 2.0, -1.0);
    assert_int_equal(copyFromTargetAsync(back, t_y, nbytes, hi), TARGET_SUCCESS);
    assert_int_equal(targetStreamSynchronize(hi), TARGET_SUCCESS);
    tuCheck c;
    tuCheckInit(&c);
    for (int i = 0; i < n; i++) tuCheckEq(&c, i, back[i], (3.0 + round + 0.5) * 2.0 - 1.0);
    tuCheckDone(&c, "values on the high-priority stream", n);
  }
  /* an in-kernel reduction on a stream: y = 6 + 2 round = 8 everywhere */
  double *t_sum = NULL, sum = -1.0;
  assert_int_equal(targetCalloc(&t_sum, sizeof(double)), TARGET_SUCCESS);
  TDP_LAUNCH_REDUCE_STREAM(kSum, n, hi, t_y, n, t_sum);
  assert_int_equal(copyFromTargetAsync(&sum, t_sum, sizeof(double), hi), TARGET_SUCCESS);
  assert_int_equal(targetStreamSynchronize(hi), TARGET_SUCCESS);
  assert_true(sum == 8.0 * n); /* exact: sums of 8 below 2^53 */
  assert_int_equal(targetFree(t_sum), TARGET_SUCCESS);
  targetStream_t bad = NULL;
  targetSetErrorAbort(0);
  expectError(targetStreamCreateWithPriority(&bad, (targetStreamPriority_t) 7),
              TARGET_ERROR_INVALID_VALUE, "targetStreamCreateWithPriority", "priority 7");
  expectError(targetStreamCreateWithPriority(NULL, TARGET_STREAM_PRIORITY_HIGH),
              TARGET_ERROR_INVALID_VALUE, "targetStreamCreateWithPriority", "NULL address");
  targetSetErrorAbort(1);
  assert_int_equal(targetStreamSynchronize(lo), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_x), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_y), TARGET_SUCCESS);
  assert_int_equal(targetFreeHost(back), TARGET_SUCCESS);
  assert_int_equal(targetEventDestroy(filled), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(lo), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(hi), TARGET_SUCCESS);
  assert_null(bad);
}

/* targetStreamSetShare: kernels launched on the stream take at most that
 * share of the device's resident blocks (one wave), grid-stride over the
 * rest, and still visit every site; its misuse is refused. */
static void test_stream_share(void **state) {
  (void) state;
  const int n = 1 << 20;
  targetStream_t s = NULL;
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);
  double *t_a = NULL, *a = (double *) malloc((size_t) n * sizeof(double));
  int *t_grid = NULL, grid[3] = {0, 0, 0};
  assert_non_null(a);
  assert_int_equal(targetMalloc(&t_a, (size_t) n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_grid, sizeof(int)), TARGET_SUCCESS);
  const double shares[3] = {1.0, 0.5, 0.001};
  for (int i = 0; i < n; i++) a[i] = -1.0;
  assert_int_equal(copyToTarget(t_a, a, (size_t) n * sizeof(double)), TARGET_SUCCESS);
  for (int k = 0; k < 3; k++) {
    tuSetContext("share %g", shares[k]);
    assert_int_equal(targetStreamSetShare(s, shares[k]), TARGET_SUCCESS);
    TDP_LAUNCH_STREAM(kGridFill, n, s, t_a, n, t_grid);
    assert_int_equal(targetStreamSynchronize(s), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(a, t_a, (size_t) n * sizeof(double)), TARGET_SUCCESS);
    assert_int_equal(copyFromTarget(grid + k, t_grid, sizeof(int)), TARGET_SUCCESS);
    tuCheck c;
    tuCheckInit(&c);
    for (int i = 0; i < n; i++) tuCheckEq(&c, i, a[i], 2.0 * i);
    tuCheckDone(&c, "every site of the shared stream's kernel", n);
    for (int i = 0; i < n; i++) a[i] = -1.0;
    assert_int_equal(copyToTarget(t_a, a, (size_t) n * sizeof(double)), TARGET_SUCCESS);
  }
  if (strcmp(TARGETDP_BACKEND, "c") != 0) {
    /* full: one block per TPB * VVL sites; a share: at most that share
     * of a wave, at least one block */
    assert_int_equal(grid[0], (n + VVL * TARGET_TPB - 1) / (VVL * TARGET_TPB));
    assert_true(grid[1] < grid[0]);
    assert_true(grid[2] >= 1 && grid[2] < grid[1]);
  }
  targetSetErrorAbort(0);
  expectError(targetStreamSetShare(s, 0.0), TARGET_ERROR_INVALID_VALUE, "targetStreamSetShare",
              "share 0 is not in (0, 1]");
  expectError(targetStreamSetShare(s, 1.5), TARGET_ERROR_INVALID_VALUE, "targetStreamSetShare",
              "share 1.5 is not in (0, 1]");
  expectError(targetStreamSetShare(s, NAN), TARGET_ERROR_INVALID_VALUE,
              "targetStreamSetShare", "is not in (0, 1]");
  expectError(targetStreamSetShare(TARGET_STREAM_DEFAULT, 0.5), TARGET_ERROR_INVALID_VALUE,
              "targetStreamSetShare", "default stream");
  targetSetErrorAbort(1);
  assert_int_equal(targetStreamDestroy(s), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  expectError(targetStreamSetShare(s, 0.5), TARGET_ERROR_INVALID_VALUE, "targetStreamSetShare",
              "not a live stream");
  targetSetErrorAbort(1);
  assert_int_equal(targetFree(t_a), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_grid), TARGET_SUCCESS);
  free(a);
}

static void test_pinned_memory(void **state) {
  (void) state;
  const size_t n = 4097;
  double *p = NULL, *q = NULL, *t = NULL;
  assert_int_equal(targetMallocHost(&p, n * sizeof(double)), TARGET_SUCCESS);
  assert_non_null(p);
  assert_int_equal(((uintptr_t) p) % 64, 0);
  tuFillDouble(p, n, 0.0, 1.0, 3); /* plain host memory: the host writes it */
  assert_int_equal(targetMalloc(&t, n * sizeof(double)), TARGET_SUCCESS);
  /* pinned memory is host memory to the synchronous copies too */
  assert_int_equal(copyToTarget(t, p, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMallocHost(&q, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(q, t, n * sizeof(double)), TARGET_SUCCESS);
  assert_memory_equal(p, q, n * sizeof(double));
  assert_int_equal(targetFreeHost(NULL), TARGET_SUCCESS); /* like free(NULL) */
  assert_int_equal(targetFreeHost(q), TARGET_SUCCESS);
  assert_int_equal(targetFreeHost(p), TARGET_SUCCESS);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
}

static void test_pinned_misuse(void **state) {
  (void) state;
  targetSetErrorAbort(0);
  double *p = NULL, *t = NULL, *h = (double *) tuMalloc(64 * sizeof(double));
  expectError(targetMallocHost(NULL, 8), TARGET_ERROR_INVALID_VALUE, "targetMallocHost",
              "NULL address");
  p = (double *) h;
  expectError(targetMallocHost(&p, 0), TARGET_ERROR_INVALID_VALUE, "targetMallocHost",
              "size is zero");
  assert_null(p);
  expectError(targetMallocHost(&p, (size_t) 1 << 62), TARGET_ERROR_MEMORY, "targetMallocHost",
              "bytes");
  assert_null(p);
  assert_int_equal(targetMallocHost(&p, 64 * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t, 64 * sizeof(double)), TARGET_SUCCESS);
  expectError(targetFree(p), TARGET_ERROR_INVALID_VALUE, "targetFree", "targetFreeHost");
  expectError(targetFreeHost(t), TARGET_ERROR_INVALID_VALUE, "targetFreeHost", "targetFree");
  expectError(targetFreeHost(h), TARGET_ERROR_INVALID_VALUE, "targetFreeHost",
              "not a live pinned allocation");
  expectError(targetFreeHost(p + 1), TARGET_ERROR_INVALID_VALUE, "targetFreeHost",
              "not a live pinned allocation");
  /* pinned memory where target memory belongs */
  expectError(copyToTarget(p, h, 8), TARGET_ERROR_INVALID_VALUE, "copyToTarget",
              "pinned host memory");
  expectError(copyFromTargetAsync(h, p, 8, TARGET_STREAM_DEFAULT), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetAsync", "pinned host memory");
  expectError(targetZero(p, 4), TARGET_ERROR_INVALID_VALUE, "targetZero", "pinned host memory");
  assert_int_equal(targetFreeHost(p), TARGET_SUCCESS);
  expectError(targetFreeHost(p), TARGET_ERROR_INVALID_VALUE, "targetFreeHost",
              "freed twice");
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  free(h);
  targetSetErrorAbort(1);
}

static void test_stream_event_misuse(void **state) {
  (void) state;
  targetSetErrorAbort(0);
  const int n = 16;
  double h[16], *t = NULL;
  for (int i = 0; i < n; i++) h[i] = i + 0.5;
  assert_int_equal(targetMalloc(&t, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t, h, sizeof(h)), TARGET_SUCCESS);
  targetStream_t s = NULL, dead = NULL;
  targetEvent_t e = NULL, dead_e = NULL;
  expectError(targetStreamCreate(NULL), TARGET_ERROR_INVALID_VALUE, "targetStreamCreate",
              "NULL address");
  expectError(targetEventCreate(NULL), TARGET_ERROR_INVALID_VALUE, "targetEventCreate",
              "NULL address");
  expectError(targetStreamDestroy(NULL), TARGET_ERROR_INVALID_VALUE, "targetStreamDestroy",
              "default stream");
  assert_int_equal(targetStreamCreate(&dead), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(dead), TARGET_SUCCESS);
  assert_int_equal(targetEventCreate(&dead_e), TARGET_SUCCESS);
  assert_int_equal(targetEventDestroy(dead_e), TARGET_SUCCESS);
  /* a stream or event handle that was destroyed: every call refuses it */
  expectError(targetStreamDestroy(dead), TARGET_ERROR_INVALID_VALUE, "targetStreamDestroy",
              "not a live stream");
  expectError(targetStreamSynchronize(dead), TARGET_ERROR_INVALID_VALUE,
              "targetStreamSynchronize", "not a live stream");
  expectError(copyToTargetAsync(t, h, sizeof(h), dead), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetAsync", "not a live stream");
  expectError(targetEventDestroy(dead_e), TARGET_ERROR_INVALID_VALUE, "targetEventDestroy",
              "not a live event");
  expectError(targetEventDestroy(NULL), TARGET_ERROR_INVALID_VALUE, "targetEventDestroy",
              "NULL event");
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);
  assert_int_equal(targetEventCreate(&e), TARGET_SUCCESS);
  expectError(targetEventRecord(dead_e, s), TARGET_ERROR_INVALID_VALUE, "targetEventRecord",
              "not a live event");
  expectError(targetEventRecord(e, dead), TARGET_ERROR_INVALID_VALUE, "targetEventRecord",
              "not a live stream");
  expectError(targetStreamWaitEvent(s, NULL), TARGET_ERROR_INVALID_VALUE,
              "targetStreamWaitEvent", "NULL event");
  expectError(targetEventSynchronize(dead_e), TARGET_ERROR_INVALID_VALUE,
              "targetEventSynchronize", "not a live event");
  /* a launch on a dead stream is refused and the kernel does not run */
  TDP_LAUNCH_STREAM(kMulAdd, n, dead, t, n, 0.0, 0.0);
  assert_int_equal(targetLastError(), TARGET_ERROR_INVALID_VALUE);
  tuAssertContains(targetLastErrorString(), "targetDP: TDP_LAUNCH_STREAM failed at ");
  tuAssertContains(targetLastErrorString(), "test_streams.c:");
  double back[16];
  assert_int_equal(copyFromTarget(back, t, sizeof(back)), TARGET_SUCCESS);
  assert_memory_equal(back, h, sizeof(h));
  /* bad copies */
  expectError(copyToTargetAsync(t, h, 0, s), TARGET_ERROR_INVALID_VALUE, "copyToTargetAsync",
              "size is zero");
  expectError(copyToTargetAsync(NULL, h, 8, s), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetAsync", "NULL pointer");
  expectError(copyToTargetAsync(t, h, (n + 1) * sizeof(double), s), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetAsync", "only");
  expectError(copyFromTargetAsync(back, t + 8, 9 * sizeof(double), s),
              TARGET_ERROR_INVALID_VALUE, "copyFromTargetAsync", "only");
  expectError(copyTargetToTargetAsync(t + 1, t, 8 * sizeof(double), s),
              TARGET_ERROR_INVALID_VALUE, "copyTargetToTargetAsync", "overlap");
  expectError(copyTargetToTarget(t, t + 8, 9 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyTargetToTarget", "only");
  expectError(copyToTargetAsync(t, h, (size_t) -8, s), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetAsync", "absurd");
  expectError(tdpCopyAsync_(t, h, 8, (tdpCopyKind_) 7, s, 0, TDP_SIZE_UNKNOWN_, TDP_AT_),
              TARGET_ERROR_INVALID_VALUE, "tdpCopyAsync_", "copy kind 7");
#ifdef TARGETDP_CHECK
  expectError(copyToTargetAsync(h, t, 8, s), TARGET_ERROR_INVALID_VALUE, "copyToTargetAsync",
              "not target memory");
  expectError(copyFromTargetAsync(t, t + 8, 8, s), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetAsync", "is target memory");
#endif
  /* nothing was changed by the refused calls */
  assert_int_equal(copyFromTarget(back, t, sizeof(back)), TARGET_SUCCESS);
  assert_memory_equal(back, h, sizeof(h));
  assert_int_equal(targetEventDestroy(e), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(s), TARGET_SUCCESS);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  targetSetErrorAbort(1);
}

static void test_ipc(void **state) {
  (void) state;
  targetSetErrorAbort(0);
  double *t = NULL, h[4] = {1, 2, 3, 4};
  void *peer = NULL;
  assert_int_equal(targetMalloc(&t, 100 * sizeof(double)), TARGET_SUCCESS);
  targetIpcHandle_t handle;
  memset(&handle, 0, sizeof(handle));
  if (!targetIpcAvailable()) {
    assert_string_equal(TARGETDP_BACKEND, "c");
    assert_int_equal(targetDeviceCount(), 0);
    assert_int_equal(targetDeviceId(), -1);
    expectError(targetIpcGetHandle(&handle, t), TARGET_ERROR_NOT_AVAILABLE,
                "targetIpcGetHandle", "not available on the c backend");
    expectError(targetIpcOpenHandle(&peer, &handle), TARGET_ERROR_NOT_AVAILABLE,
                "targetIpcOpenHandle", "not available");
    assert_null(peer);
    expectError(targetIpcCloseHandle(t), TARGET_ERROR_NOT_AVAILABLE, "targetIpcCloseHandle",
                "not available");
  } else {
    assert_true(targetDeviceCount() >= 1);
    assert_true(targetDeviceId() >= 0 && targetDeviceId() < targetDeviceCount());
    assert_int_equal(targetIpcGetHandle(&handle, t + 10), TARGET_SUCCESS);
    assert_int_equal(handle.offset, 10 * sizeof(double));
    assert_int_equal(handle.nbytes, 90 * sizeof(double));
    expectError(targetIpcGetHandle(&handle, h), TARGET_ERROR_INVALID_VALUE,
                "targetIpcGetHandle", "not inside a live allocation");
    memset(&handle, 0, sizeof(handle));
    expectError(targetIpcOpenHandle(&peer, &handle), TARGET_ERROR_INVALID_VALUE,
                "targetIpcOpenHandle", "empty");
    expectError(targetIpcCloseHandle(t), TARGET_ERROR_INVALID_VALUE, "targetIpcCloseHandle",
                "not a peer pointer");
    /* opening needs a second process: tests/suites/halo.sh on a GPU */
  }
  expectError(targetIpcGetHandle(NULL, t), TARGET_ERROR_INVALID_VALUE, "targetIpcGetHandle",
              "NULL");
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  targetSetErrorAbort(1);
}

/* Stream-ordered flags (targetStreamWriteFlag / targetStreamWaitFlag): a
 * slow kernel's writes before a flag are seen by a kernel queued on
 * another stream behind the wait (on a GPU the second stream would read
 * the old values without it); sequence numbers that wrap; bad flags
 * refused; on the C backend a wait that is never met fails after
 * TARGETDP_FLAG_TIMEOUT, never hangs. */
static void test_stream_flags(void **state) {
  (void) state;
  if (!targetStreamFlagsAvailable()) {
    assert_string_not_equal(TARGETDP_BACKEND, "c"); /* the C backend always has them */
    return;
  }
  const int n = 1 << 18;
  double *t_a = NULL, *t_b = NULL;
  uint32_t *t_flag = NULL;
  targetStream_t s1 = NULL, s2 = NULL;
  assert_int_equal(targetMalloc(&t_a, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_b, n * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_flag, 4 * sizeof(uint32_t)), TARGET_SUCCESS);
  uint32_t zero[4] = {0, 0, 0, 0}, got[4];
  assert_int_equal(copyToTarget(t_flag, zero, sizeof(zero)), TARGET_SUCCESS);
  assert_int_equal(targetZero(t_a, n), TARGET_SUCCESS);
  assert_int_equal(targetZero(t_b, n), TARGET_SUCCESS);
  assert_int_equal(targetStreamCreate(&s1), TARGET_SUCCESS);
  assert_int_equal(targetStreamCreate(&s2), TARGET_SUCCESS);
  TDP_LAUNCH_STREAM(kSlowFill, n, s1, t_a, n, 3.0, 2000);
  assert_int_equal(targetStreamWriteFlag(t_flag, 7, s1), TARGET_SUCCESS);
  assert_int_equal(targetStreamWaitFlag(t_flag, 7, s2), TARGET_SUCCESS);
  TDP_LAUNCH_STREAM(kCopyPlus, n, s2, t_b, t_a, n, 1.0);
  /* met waits: a smaller value, and across the wrap of 32 bits */
  assert_int_equal(targetStreamWaitFlag(t_flag, 5, s2), TARGET_SUCCESS);
  assert_int_equal(targetStreamWriteFlag(t_flag + 1, 0xFFFFFFF0u, s1), TARGET_SUCCESS);
  assert_int_equal(targetStreamWaitFlag(t_flag + 1, 0xFFFFFFE0u, s2), TARGET_SUCCESS);
  assert_int_equal(targetStreamWriteFlag(t_flag + 1, 5u, s1), TARGET_SUCCESS);
  assert_int_equal(targetStreamWaitFlag(t_flag + 1, 0xFFFFFFF8u, s2), TARGET_SUCCESS);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  double *h_b = (double *) malloc(n * sizeof(double));
  assert_non_null(h_b);
  assert_int_equal(copyFromTarget(h_b, t_b, n * sizeof(double)), TARGET_SUCCESS);
  int wrong = 0;
  for (int i = 0; i < n; i++) wrong += h_b[i] != 4.0;
  assert_int_equal(wrong, 0);
  free(h_b);
  assert_int_equal(copyFromTarget(got, t_flag, sizeof(got)), TARGET_SUCCESS);
  assert_int_equal(got[0], 7);
  assert_int_equal(got[1], 5);
  targetSetErrorAbort(0);
  expectError(targetStreamWriteFlag(NULL, 1, s1), TARGET_ERROR_INVALID_VALUE,
              "targetStreamWriteFlag", "NULL flag");
  expectError(targetStreamWaitFlag((const uint32_t *) ((char *) t_flag + 2), 1, s1),
              TARGET_ERROR_INVALID_VALUE, "targetStreamWaitFlag", "not 4-byte aligned");
  if (strcmp(TARGETDP_BACKEND, "c") == 0) { /* a GPU stream would wait for ever */
    setenv("TARGETDP_FLAG_TIMEOUT", "0.2", 1);
    expectError(targetStreamWaitFlag(t_flag + 2, 1, s2), TARGET_ERROR_DEVICE,
                "targetStreamWaitFlag", "still 0 after");
    unsetenv("TARGETDP_FLAG_TIMEOUT");
  }
  targetSetErrorAbort(1);
  assert_int_equal(targetStreamDestroy(s1), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(s2), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_a), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_b), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_flag), TARGET_SUCCESS);
}

/* Streams, events and pinned memory left live are released by
 * targetFinalize (and the layer works again after targetInit). */
static void test_finalize_releases(void **state) {
  (void) state;
  targetStream_t s = NULL;
  targetEvent_t e = NULL;
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);
  assert_int_equal(targetEventCreate(&e), TARGET_SUCCESS);
  assert_int_equal(targetEventRecord(e, s), TARGET_SUCCESS);
  assert_int_equal(targetFinalize(), TARGET_SUCCESS);
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  expectError(targetStreamSynchronize(s), TARGET_ERROR_INVALID_VALUE, "targetStreamSynchronize",
              "not a live stream");
  targetSetErrorAbort(1);
  assert_int_equal(targetStreamCreate(&s), TARGET_SUCCESS);
  assert_int_equal(targetStreamSynchronize(s), TARGET_SUCCESS);
  assert_int_equal(targetStreamDestroy(s), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stream_in_order),
      cmocka_unit_test(test_default_stream),
      cmocka_unit_test(test_async_round_trips),
      cmocka_unit_test(test_two_streams_event),
      cmocka_unit_test(test_timed_events),
      cmocka_unit_test(test_stream_priority),
      cmocka_unit_test(test_stream_share),
      cmocka_unit_test(test_pinned_memory),
      cmocka_unit_test(test_pinned_misuse),
      cmocka_unit_test(test_stream_event_misuse),
      cmocka_unit_test(test_ipc),
      cmocka_unit_test(test_stream_flags),
      cmocka_unit_test(test_finalize_releases),
  };
  return cmocka_run_group_tests_name("streams " TARGETDP_CONFIG, tests, tuSetup, tuTeardown);
}
