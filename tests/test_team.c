/*
 * test_team.c -- teams (targetDP_team.h, issue 30), every result against a
 * serial reference on the host:
 *   - every team, and every index of each team loop (THREADS, VECTOR inside
 *     THREADS, RANGE, EACH, ONE_THREAD) runs exactly once, for teams of
 *     many shapes (threads x lanes) and ranges shorter than, equal to and
 *     longer than the team, 0 included; 0 teams launch nothing;
 *   - team scratch: several allocations (1-D, 2-D with padding) written by
 *     one loop and read by another after a barrier, over several phases
 *     (the barrier must order them: racecheck on the GPU); scratch above
 *     the 48 KB a CUDA kernel gets by default;
 *   - team reductions (sum, min, max over the team's threads and over a
 *     thread's lanes; double, float, int, long), the result in every
 *     member, added to (or combined with) the variable's value before;
 *   - TDP_TEAM_PRIVATE accumulators that survive barriers: a tiled product
 *     C = A B^T through scratch tiles;
 *   - errors with file:line: launch shapes that do not fit (lanes not a
 *     power of two up to 32, threads x lanes not whole warps or over 1024,
 *     more threads than the kernel's launch bounds on CUDA, negative
 *     league), scratch beyond the device's limit, a launch before
 *     targetInit; in a forked child: a kernel that allocates more scratch
 *     than its launch gave, a team loop in a kernel not launched as teams,
 *     a team loop over more teams than the launch made, a break in a team
 *     loop, a team range of 2^31 items, private storage
 *     sized for fewer threads than the team; in a checked build, scratch
 *     and private accesses out of bounds.
 * Barriers and team loops where they are not allowed do not compile
 * (tests/suites/teams.sh).
 *
 * Forking cases come first (a child must not inherit a CUDA context or an
 * OpenMP pool), so there is no group setup.
 */
#include "test_util.h"

#ifdef __CUDACC__
#define TU_CUDA 1
#else
#define TU_CUDA 0
#endif
#ifdef TARGETDP_CHECK
#define TU_CHECKED 1
#else
#define TU_CHECKED 0
#endif

#define tuSkip(why)                        \
  do {                                     \
    print_message("# skipped: %s\n", why); \
    skip();                                \
  } while (0)

/* TDP_TEST_SMALL (set under compute-sanitizer racecheck, which tracks
 * every shared-memory access): the long leagues are left out. */
static int small(void) { return getenv("TDP_TEST_SMALL") != NULL; }

static int callChild(void *arg) { return (*(int (**)(void)) arg)(); }

/* Run child in a fork; want exit status != 0 (1 on the C backend) and the
 * output to contain every string of want[] (NULL-terminated). */
static void expectChildFails(int (*child)(void), const char *const *want) {
  char out[16384];
  TU_SKIP_IF_NO_FORK();
  int rc = tuRunChild(callChild, &child, out, sizeof(out));
  if (rc == 0 || rc == 99 || (!TU_CUDA && rc != 1))
    fail_msg("want the child to stop with an error, got exit status %d; output:\n%s", rc, out);
  for (int i = 0; want[i]; i++) tuAssertContains(out, want[i]);
}

/* ---------------------------------------------------------------------- */
/* Kernels with a planted bug; the enum before each holds its line. */

enum { LINE_OVERFLOW = __LINE__ + 4 };
TDP_TEAM_KERNEL(64) void kScratchOverflow(double *t_out, int n) {
  TDP_TEAMS(team, 3) {
    TDP_TEAM_SCRATCH(double, a, n);
    TDP_TEAM_SCRATCH(double, b, 1); /* planted: the launch gave room for a only */
    TDP_TEAM_RANGE(i, n) { a[i] = (double) i; }
    TDP_TEAM_ONE_THREAD { b[0] = 1.0; }
    TDP_TEAM_BARRIER();
    TDP_TEAM_ONE_THREAD { t_out[team] = a[0] + b[0]; }
  }
}
static int childScratchOverflow(void) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, 3 * sizeof(double));
  TDP_LAUNCH_TEAMS(kScratchOverflow, 3, 64, 1, TDP_SCRATCH_BYTES(double, 8), t, 8);
  targetSynchronize();
  printf("(the scratch overflow went unnoticed)\n");
  return 99;
}

enum { LINE_NOT_TEAMS = __LINE__ + 2 };
TDP_TEAM_KERNEL(1024) void kTeamsByTdpLaunch(double *t_out) {
  TDP_TEAMS(team, 4) {
    TDP_TEAM_ONE_THREAD { t_out[team] = 1.0; }
  }
}
static int childNotTeams(void) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, 4 * sizeof(double));
  TDP_LAUNCH(kTeamsByTdpLaunch, 4, t); /* planted: a team kernel by TDP_LAUNCH */
  targetSynchronize();
  printf("(the team kernel launched by TDP_LAUNCH went unnoticed)\n");
  return 99;
}

enum { LINE_TOO_MANY = __LINE__ + 2 };
TDP_TEAM_KERNEL(64) void kTooManyTeams(double *t_out) {
  TDP_TEAMS(team, 5) { /* planted: the launch made 3 */
    TDP_TEAM_ONE_THREAD { t_out[team] = 1.0; }
  }
}
static int childTooMany(void) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, 5 * sizeof(double));
  TDP_LAUNCH_TEAMS(kTooManyTeams, 3, 64, 1, 0, t);
  targetSynchronize();
  printf("(a team loop over more teams than launched went unnoticed)\n");
  return 99;
}

enum { LINE_BREAK = __LINE__ + 3 }; /* the loop's line: its check sees the break */
TDP_TEAM_KERNEL(64) void kBreak(double *t_out, int n) {
  TDP_TEAMS(team, 2) {
    TDP_TEAM_THREADS(i, n) {
      TDP_TEAM_ONE_LANE { t_out[team * n + i] = 1.0; }
      if (i == 3) break; /* planted */
    }
  }
}
static int childBreak(void) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, 2 * 100 * sizeof(double));
  TDP_LAUNCH_TEAMS(kBreak, 2, 32, 2, 0, t, 100);
  targetSynchronize();
  printf("(the break went unnoticed)\n");
  return 99;
}

enum { LINE_HUGE_RANGE = __LINE__ + 3 };
TDP_TEAM_KERNEL(64) void kHugeRange(double *t_out, long n) {
  TDP_TEAMS(team, 1) {
    TDP_TEAM_RANGE(i, n) { /* planted: 2^31 items */
      if (i == 0) t_out[team] = 1.0;
    }
  }
}
static int childHugeRange(void) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, sizeof(double));
  TDP_LAUNCH_TEAMS(kHugeRange, 1, 64, 1, 0, t, 1L << 31);
  targetSynchronize();
  printf("(the 2^31-item range went unnoticed)\n");
  return 99;
}

enum { LINE_PRIV_SMALL = __LINE__ + 3 };
TDP_TEAM_KERNEL(64) void kPrivSmall(double *t_out) {
  TDP_TEAMS(team, 2) {
    TDP_TEAM_PRIVATE(double, acc, 32, 1); /* planted: the team has 64 threads */
    TDP_TEAM_EACH(t) { TDP_PRIV(acc, t, 0) = (double) t; }
    TDP_TEAM_EACH(t) {
      TDP_TEAM_ONE_LANE { t_out[team * 64 + t] = TDP_PRIV(acc, t, 0); }
    }
  }
}
static int childPrivSmall(void) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, 2 * 64 * sizeof(double));
  TDP_LAUNCH_TEAMS(kPrivSmall, 2, 64, 1, 0, t);
  targetSynchronize();
  printf("(the private storage sized for too few threads went unnoticed)\n");
  return 99;
}

/* Checked build: scratch and private accesses out of bounds. */
enum { LINE_SCR_OOB = __LINE__ + 5 };
TDP_TEAM_KERNEL(64) void kScrOob(double *t_out, int n) {
  TDP_TEAMS(team, 2) {
    TDP_TEAM_SCRATCH(double, s, n);
    TDP_TEAM_SCRATCH(double, pad, 16); /* so that s[n] is inside the scratch */
    TDP_TEAM_RANGE(i, n + 1) { TDP_SCR(s, i) = 1.0; } /* planted: i == n */
    TDP_TEAM_RANGE(i, 16) { TDP_SCR(pad, i) = 0.0; }
    TDP_TEAM_BARRIER();
    TDP_TEAM_ONE_THREAD { t_out[team] = TDP_SCR(s, 0); }
  }
}
enum { LINE_SCR2_OOB = __LINE__ + 4 };
TDP_TEAM_KERNEL(64) void kScr2Oob(double *t_out) {
  TDP_TEAMS(team, 2) {
    TDP_TEAM_SCRATCH2(double, s, 4, 9);
    TDP_TEAM_RANGE(i, 4 * 8) { TDP_SCR2(s, i / 8, i % 8 + 2) = 1.0; } /* planted: column 9 */
    TDP_TEAM_BARRIER();
    TDP_TEAM_ONE_THREAD { t_out[team] = TDP_SCR2(s, 0, 1); }
  }
}
enum { LINE_PRIV_OOB = __LINE__ + 4 };
TDP_TEAM_KERNEL(64) void kPrivOob(double *t_out, int k) {
  TDP_TEAMS(team, 2) {
    TDP_TEAM_PRIVATE(double, acc, 64, 2);
    TDP_TEAM_EACH(t) { TDP_PRIV(acc, t, k) = 1.0; } /* planted: value k = 2 of 2 */
    TDP_TEAM_EACH(t) {
      TDP_TEAM_ONE_LANE { t_out[team] = TDP_PRIV(acc, t, 0); }
    }
  }
}
static int childScrOob(void) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, 2 * sizeof(double));
  TDP_LAUNCH_TEAMS(kScrOob, 2, 64, 1, TDP_SCRATCH_BYTES(double, 10) + TDP_SCRATCH_BYTES(double, 16), t, 10);
  targetSynchronize();
  printf("(the scratch index out of bounds went unnoticed)\n");
  return 99;
}
static int childScr2Oob(void) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, 2 * sizeof(double));
  TDP_LAUNCH_TEAMS(kScr2Oob, 2, 64, 1, TDP_SCRATCH_BYTES(double, 36), t);
  targetSynchronize();
  printf("(the 2-D scratch index out of bounds went unnoticed)\n");
  return 99;
}
static int childPrivOob(void) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, 2 * sizeof(double));
  static volatile int planted = 2; /* volatile: no compile-time warning about the plant */
  TDP_LAUNCH_TEAMS(kPrivOob, 2, 64, 1, 0, t, planted);
  targetSynchronize();
  printf("(the private index out of bounds went unnoticed)\n");
  return 99;
}

static void expectAt(int (*child)(void), const char *what, int line) {
  char at[64];
  snprintf(at, sizeof(at), "test_team.c:%d", line);
  const char *want[] = {what, at, NULL};
  expectChildFails(child, want);
}

static void test_scratch_overflow(void **state) {
  (void) state;
  expectAt(childScratchOverflow, "TDP_TEAM_SCRATCH: the team's scratch allocations need more "
           "than the scratch_bytes of its TDP_LAUNCH_TEAMS", LINE_OVERFLOW);
}
static void test_teams_not_launched_as_teams(void **state) {
  (void) state;
  if (TU_CUDA && TARGET_TPB <= 32) tuSkip("TPB 32: a TDP_LAUNCH block looks like a team of 32 lanes");
  expectAt(childNotTeams, "TDP_TEAMS in a kernel not launched by TDP_LAUNCH_TEAMS", LINE_NOT_TEAMS);
}
static void test_more_teams_than_launched(void **state) {
  (void) state;
  expectAt(childTooMany, "TDP_TEAMS(team, nteams) with more teams than its TDP_LAUNCH_TEAMS "
           "launched", LINE_TOO_MANY);
}
static void test_break(void **state) {
  (void) state;
  expectAt(childBreak, "break in a team loop", LINE_BREAK);
}
static void test_huge_range(void **state) {
  (void) state;
  expectAt(childHugeRange, "a team range of 2^31 or more items", LINE_HUGE_RANGE);
}
static void test_private_too_small(void **state) {
  (void) state;
  expectAt(childPrivSmall, "TDP_TEAM_PRIVATE sized for fewer threads than the team has",
           LINE_PRIV_SMALL);
}
static void test_checked_scratch_oob(void **state) {
  (void) state;
  if (!TU_CHECKED) tuSkip("not a checked build (make CHECK=1)");
  expectAt(childScrOob, "team scratch index out of bounds", LINE_SCR_OOB);
  expectAt(childScrOob, "s[10] of 10", LINE_SCR_OOB);
  expectAt(childScr2Oob, ", 9) of 4 x 9", LINE_SCR2_OOB);
  expectAt(childPrivOob, "TDP_PRIV index out of bounds", LINE_PRIV_OOB);
  expectAt(childPrivOob, "acc 2 of 2", LINE_PRIV_OOB);
}

/* ---------------------------------------------------------------------- */
/* In-process: a launch refused on the host, error-code mode. */

TDP_TEAM_KERNEL(1024) void kNothing(double *t_out) {
  TDP_TEAMS(team, 1) {
    TDP_TEAM_ONE_THREAD { t_out[team] = 1.0; }
  }
}
TDP_TEAM_KERNEL(64) void kBound64(double *t_out) {
  TDP_TEAMS(team, 1) {
    TDP_TEAM_ONE_THREAD { t_out[team] = 1.0; }
  }
}

/* The launch statement, then the error it must have recorded. */
#define expectLaunchError(launch, code, sub)                                          \
  do {                                                                              \
    targetSetErrorAbort(0);                                                         \
    launch;                                                                         \
    assert_int_equal(targetLastError(), (code));                                    \
    tuAssertContains(targetLastErrorString(), "targetDP: TDP_LAUNCH_TEAMS failed at "); \
    tuAssertContains(targetLastErrorString(), "test_team.c:");                      \
    tuAssertContains(targetLastErrorString(), sub);                                 \
    targetSetErrorAbort(1);                                                         \
  } while (0)

static void test_before_init(void **state) {
  (void) state;
  double *t = NULL;
  expectLaunchError(TDP_LAUNCH_TEAMS(kNothing, 1, 32, 1, 0, t), TARGET_ERROR_NOT_INITIALISED,
                    "before targetInit");
  assert_int_equal(targetInit(), TARGET_SUCCESS); /* for every test after this one */
}

static void test_launch_errors(void **state) {
  (void) state;
  double *t = NULL;
  assert_int_equal(targetCalloc(&t, sizeof(double)), TARGET_SUCCESS);
  expectLaunchError(TDP_LAUNCH_TEAMS(kNothing, 1, 32, 3, 0, t), TARGET_ERROR_INVALID_VALUE,
                    "kernel kNothing: 3 lanes per thread (1, 2, 4, 8, 16 or 32");
  expectLaunchError(TDP_LAUNCH_TEAMS(kNothing, 1, 1, 64, 0, t), TARGET_ERROR_INVALID_VALUE,
                    "64 lanes per thread");
  expectLaunchError(TDP_LAUNCH_TEAMS(kNothing, 1, 48, 1, 0, t), TARGET_ERROR_INVALID_VALUE,
                    "a team of 48 threads x 1 lanes (a team must be whole warps");
  expectLaunchError(TDP_LAUNCH_TEAMS(kNothing, 1, 12, 4, 0, t), TARGET_ERROR_INVALID_VALUE,
                    "a team of 12 threads x 4 lanes");
  expectLaunchError(TDP_LAUNCH_TEAMS(kNothing, 1, 1024, 2, 0, t), TARGET_ERROR_INVALID_VALUE,
                    "from 32 to 1024");
  expectLaunchError(TDP_LAUNCH_TEAMS(kNothing, 1, 0, 32, 0, t), TARGET_ERROR_INVALID_VALUE,
                    "a team of 0 threads");
  expectLaunchError(TDP_LAUNCH_TEAMS(kNothing, -1, 32, 1, 0, t), TARGET_ERROR_INVALID_VALUE,
                    "-1 teams");
  expectLaunchError(TDP_LAUNCH_TEAMS(kNothing, 1, 32, 1, (size_t) 300 * 1024, t),
                    TARGET_ERROR_INVALID_VALUE, "307200 bytes of team scratch, more than the ");
  if (TU_CUDA) {
    /* the kernel's launch bounds: 64 threads; the C backend runs a team
     * as one thread and has nothing to check */
    expectLaunchError(TDP_LAUNCH_TEAMS(kBound64, 1, 32, 4, 0, t), TARGET_ERROR_INVALID_VALUE,
                      "a team of 32 threads x 4 lanes = 128, but its launch bounds "
                      "(TDP_TEAM_KERNEL) and registers allow at most 64");
  }
  /* a refused launch ran nothing */
  double h = 0.0;
  targetSynchronize();
  copyFromTarget(&h, t, sizeof(double));
  assert_true(h == 0.0);
  targetFree(t);
}

/* ---------------------------------------------------------------------- */
/* Coverage: each loop index exactly once. cnt holds, per team, the
 * counters of: the team itself, ONE_THREAD, EACH (nthreads), THREADS (n),
 * RANGE (n), VECTOR inside THREADS (n x m). */

static long covStride(int nthreads, int n, int m) { return 2 + nthreads + 2 * n + (long) n * m; }

TDP_TEAM_KERNEL(1024) void kCover(int *t_cnt, long nteams, int n, int m, long stride) {
  TDP_TEAMS(team, nteams) {
    int *c = t_cnt + team * stride;
    const int nt = TDP_TEAM_SIZE();
    TDP_TEAM_ONE_THREAD {
      targetAtomicAddInt(&c[0], 1);
      targetAtomicAddInt(&c[1], 1);
    }
    TDP_TEAM_EACH(t) {
      TDP_TEAM_ONE_LANE { targetAtomicAddInt(&c[2 + t], 1); }
    }
    TDP_TEAM_THREADS(i, n) {
      TDP_TEAM_ONE_LANE { targetAtomicAddInt(&c[2 + nt + i], 1); }
      TDP_TEAM_VECTOR(j, m) { targetAtomicAddInt(&c[2 + nt + 2 * n + (long) i * m + j], 1); }
    }
    TDP_TEAM_RANGE(i, n) { targetAtomicAddInt(&c[2 + nt + n + i], 1); }
  }
}

static void checkCover(long nteams, int nthreads, int nlanes, int n, int m) {
  const long stride = covStride(nthreads, n, m), total = nteams * stride;
  int *h = (int *) tuMalloc((size_t) total * sizeof(int) + 1);
  int *t = NULL;
  assert_int_equal(targetCalloc(&t, (size_t) total * sizeof(int) + 1), TARGET_SUCCESS);
  TDP_LAUNCH_TEAMS(kCover, nteams, nthreads, nlanes, 0, t, nteams, n, m, stride);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  copyFromTarget(h, t, (size_t) total * sizeof(int));
  for (long k = 0; k < total; k++) {
    if (h[k] != 1)
      fail_msg("[%ld teams of %d x %d, n %d, m %d] counter %ld (team %ld, slot %ld) = %d, want 1",
               nteams, nthreads, nlanes, n, m, k, k / stride, k % stride, h[k]);
  }
  targetFree(t);
  free(h);
}

static void test_cover(void **state) {
  (void) state;
  const int shapes[][2] = {{32, 1}, {64, 1}, {8, 4}, {4, 8}, {1, 32}, {16, 2},
                           {256, 1}, {128, 2}, {32, 32}, {1024, 1}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
    const int nt = shapes[s][0], nl = shapes[s][1];
    const int ns[] = {0, 1, 5, nt - 1, nt, nt + 1, 3 * nt + 7};
    for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
      if (ns[k] < 0) continue;
      checkCover(3, nt, nl, ns[k], 1 + (int) (k % 3) * nl + (int) k);
    }
  }
  if (!small()) checkCover(20000, 32, 1, 3, 2); /* a long league */
  checkCover(1, 64, 2, 1000, 3);
}

static void test_zero_teams(void **state) {
  (void) state;
  int *t = NULL;
  assert_int_equal(targetCalloc(&t, sizeof(int)), TARGET_SUCCESS);
  TDP_LAUNCH_TEAMS(kCover, 0, 32, 1, 0, t, 0L, 1, 1, 1L);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  int h = -1;
  copyFromTarget(&h, t, sizeof(int));
  assert_int_equal(h, 0);
  targetFree(t);
}

/* ---------------------------------------------------------------------- */
/* Scratch and barriers: three phases, each reading what other threads
 * wrote in the phase before. x: n values per team, out: n per team.
 *   phase 1: s[i] = x[i];                      (RANGE)
 *   phase 2: u(i, 0..1) = s[n-1-i], s[(i+1)%n]  (THREADS; 2-D, padded rows)
 *   phase 3: s[i] = u(i,0) * u((i+2)%n, 1)      (RANGE)
 *   out[i] = s[(i + 3) % n] + w[i % 7]          (THREADS; w: 7 values set by ONE_THREAD)
 * pad doubles of unused scratch sit between the allocations, so a layout
 * that gets the offsets wrong shows too. */
TDP_TEAM_KERNEL(1024) void kPhases(const double *t_x, double *t_out, long nteams, int n, int pad) {
  TDP_TEAMS(team, nteams) {
    TDP_TEAM_SCRATCH(double, s, n);
    TDP_TEAM_SCRATCH(double, gap, pad);
    TDP_TEAM_SCRATCH2(double, u, n, 3);
    TDP_TEAM_SCRATCH(double, w, 7);
    const double *x = t_x + team * n;
    TDP_TEAM_RANGE(i, n) { TDP_SCR(s, i) = x[i]; }
    TDP_TEAM_RANGE(i, pad) { TDP_SCR(gap, i) = -1.0; }
    TDP_TEAM_ONE_THREAD {
      for (int k = 0; k < 7; k++) TDP_SCR(w, k) = 0.5 * k;
    }
    TDP_TEAM_BARRIER();
    TDP_TEAM_THREADS(i, n) {
      TDP_TEAM_ONE_LANE {
        TDP_SCR2(u, i, 0) = TDP_SCR(s, n - 1 - i);
        TDP_SCR2(u, i, 1) = TDP_SCR(s, (i + 1) % n);
        TDP_SCR2(u, i, 2) = 0.0;
      }
    }
    TDP_TEAM_BARRIER();
    TDP_TEAM_RANGE(i, n) { TDP_SCR(s, i) = TDP_SCR2(u, i, 0) * TDP_SCR2(u, (i + 2) % n, 1); }
    TDP_TEAM_BARRIER();
    TDP_TEAM_THREADS(i, n) {
      TDP_TEAM_ONE_LANE { t_out[team * n + i] = TDP_SCR(s, (i + 3) % n) + TDP_SCR(w, i % 7); }
    }
  }
}

static void checkPhases(long nteams, int nthreads, int nlanes, int n, int pad) {
  const size_t total = (size_t) nteams * n;
  double *x = (double *) tuMalloc(total * sizeof(double));
  double *got = (double *) tuMalloc(total * sizeof(double));
  tuFillDouble(x, total, -1.0, 2.0, 7u + (uint64_t) n);
  for (size_t k = 0; k < total; k++) x[k] = floor(x[k] * 8.0) / 8.0; /* exact products */
  double *t_x = NULL, *t_out = NULL;
  assert_int_equal(targetMalloc(&t_x, total * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_out, total * sizeof(double)), TARGET_SUCCESS);
  copyToTarget(t_x, x, total * sizeof(double));
  const size_t bytes = TDP_SCRATCH_BYTES(double, n) + TDP_SCRATCH_BYTES(double, pad) +
                       TDP_SCRATCH_BYTES(double, 3 * n) + TDP_SCRATCH_BYTES(double, 7);
  TDP_LAUNCH_TEAMS(kPhases, nteams, nthreads, nlanes, bytes, t_x, t_out, nteams, n, pad);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  copyFromTarget(got, t_out, total * sizeof(double));
  tuSetContext("%ld teams of %d x %d, n %d, pad %d, %zu bytes of scratch", nteams, nthreads,
               nlanes, n, pad, bytes);
  for (long tm = 0; tm < nteams; tm++) {
    const double *xt = x + tm * n;
    for (int i = 0; i < n; i++) {
      const int k = (i + 3) % n, k2 = (k + 2) % n;
      const double want = xt[n - 1 - k] * xt[(k2 + 1) % n] + 0.5 * (i % 7);
      tuAssertClose(got[tm * n + i], want, 0.0);
    }
  }
  targetFree(t_x);
  targetFree(t_out);
  free(x);
  free(got);
}

static void test_scratch_barrier(void **state) {
  (void) state;
  checkPhases(5, 32, 1, 1, 0);
  checkPhases(7, 64, 1, 63, 3);
  checkPhases(7, 8, 4, 100, 1);
  checkPhases(3, 256, 1, 1000, 0);
  checkPhases(4, 32, 8, 257, 5);
  if (!small()) checkPhases(1000, 128, 1, 130, 2);
  /* above CUDA's default 48 KB of dynamic shared memory: 4 x 2000 doubles
   * = 64 KB, then about 200 KB */
  checkPhases(9, 512, 1, 2000, 7);
  checkPhases(3, 256, 2, 6200, 1);
}

/* ---------------------------------------------------------------------- */
/* Team reductions, per type. Data: small integers (exact sums in every
 * type). Per team: the sum, min and max over its n values by the threads,
 * and per value i the sum/min/max over m lanes of f(i, j); each starting
 * from a value v0 that must be combined in once. Every thread writes what
 * it holds: all must agree. */
#define TU_TEAMRED_TYPE(Name, T)                                                          \
  TDP_TEAM_KERNEL(1024) void kTeamRed##Name(const T *t_x, T *t_res, long nteams, int n,    \
                                            int m, T v0) {                                \
    TDP_TEAMS(team, nteams) {                                                             \
      const T *x = t_x + team * n;                                                        \
      const int nt = TDP_TEAM_SIZE();                                                     \
      T s = v0, lo = v0, hi = v0;                                                         \
      TDP_TEAM_THREADS_SUM(i, n, s) { s += x[i]; }                                        \
      TDP_TEAM_THREADS_MIN(i, n, lo) { lo = x[i] < lo ? x[i] : lo; }                      \
      TDP_TEAM_THREADS_MAX(i, n, hi) { hi = x[i] > hi ? x[i] : hi; }                      \
      T *r = t_res + team * (3L * nt + 3L * n);                                           \
      TDP_TEAM_EACH(t) {                                                                  \
        TDP_TEAM_ONE_LANE {                                                               \
          r[3 * t] = s;                                                                   \
          r[3 * t + 1] = lo;                                                              \
          r[3 * t + 2] = hi;                                                              \
        }                                                                                 \
      }                                                                                   \
      TDP_TEAM_THREADS(i, n) {                                                            \
        T vs = v0, vlo = v0, vhi = v0;                                                    \
        TDP_TEAM_VECTOR_SUM(j, m, vs) { vs += (T) ((i + 3 * j) % 11 - 5); }               \
        TDP_TEAM_VECTOR_MIN(j, m, vlo) {                                                  \
          T f = (T) ((i * 7 + j * 5) % 13 - 6);                                           \
          vlo = f < vlo ? f : vlo;                                                        \
        }                                                                                 \
        TDP_TEAM_VECTOR_MAX(j, m, vhi) {                                                  \
          T f = (T) ((i * 7 + j * 5) % 13 - 6);                                           \
          vhi = f > vhi ? f : vhi;                                                        \
        }                                                                                 \
        /* every lane holds the results: lane order must not matter */                  \
        TDP_TEAM_VECTOR(j, TDP_TEAM_LANES()) {                                            \
          if (j == TDP_TEAM_LANES() - 1) {                                                \
            r[3 * nt + 3 * i] = vs;                                                       \
            r[3 * nt + 3 * i + 1] = vlo;                                                  \
            r[3 * nt + 3 * i + 2] = vhi;                                                  \
          }                                                                               \
        }                                                                                 \
      }                                                                                   \
    }                                                                                     \
  }                                                                                       \
  static void checkTeamRed##Name(long nteams, int nthreads, int nlanes, int n, int m, T v0) { \
    const long per = 3L * nthreads + 3L * n;                                              \
    T *x = (T *) tuMalloc((size_t) (nteams * n) * sizeof(T) + 1);                        \
    T *got = (T *) tuMalloc((size_t) (nteams * per) * sizeof(T));                         \
    for (long k = 0; k < nteams * n; k++) x[k] = (T) ((k * 37 + 11) % 23 - 9);            \
    T *t_x = NULL, *t_res = NULL;                                                         \
    assert_int_equal(targetMalloc(&t_x, (size_t) (nteams * n) * sizeof(T) + 1), TARGET_SUCCESS); \
    assert_int_equal(targetCalloc(&t_res, (size_t) (nteams * per) * sizeof(T)), TARGET_SUCCESS); \
    if (n > 0) copyToTarget(t_x, x, (size_t) (nteams * n) * sizeof(T));                 \
    TDP_LAUNCH_TEAMS(kTeamRed##Name, nteams, nthreads, nlanes, 0, t_x, t_res, nteams, n, m, v0); \
    assert_int_equal(targetSynchronize(), TARGET_SUCCESS);                                \
    copyFromTarget(got, t_res, (size_t) (nteams * per) * sizeof(T));                      \
    tuSetContext(#Name ": %ld teams of %d x %d, n %d, m %d", nteams, nthreads, nlanes, n, m); \
    for (long tm = 0; tm < nteams; tm++) {                                                \
      T s = v0, lo = v0, hi = v0;                                                         \
      for (int i = 0; i < n; i++) {                                                       \
        T v = x[tm * n + i];                                                              \
        s += v;                                                                           \
        lo = v < lo ? v : lo;                                                             \
        hi = v > hi ? v : hi;                                                             \
      }                                                                                   \
      const T *r = got + tm * per;                                                        \
      for (int t = 0; t < nthreads; t++) {                                                \
        tuAssertClose((double) r[3 * t], (double) s, 0.0);                                \
        tuAssertClose((double) r[3 * t + 1], (double) lo, 0.0);                           \
        tuAssertClose((double) r[3 * t + 2], (double) hi, 0.0);                           \
      }                                                                                   \
      for (int i = 0; i < n; i++) {                                                       \
        T vs = v0, vlo = v0, vhi = v0;                                                    \
        for (int j = 0; j < m; j++) {                                                     \
          vs += (T) ((i + 3 * j) % 11 - 5);                                               \
          T f = (T) ((i * 7 + j * 5) % 13 - 6);                                           \
          vlo = f < vlo ? f : vlo;                                                        \
          vhi = f > vhi ? f : vhi;                                                        \
        }                                                                                 \
        tuAssertClose((double) r[3 * nthreads + 3 * i], (double) vs, 0.0);                \
        tuAssertClose((double) r[3 * nthreads + 3 * i + 1], (double) vlo, 0.0);           \
        tuAssertClose((double) r[3 * nthreads + 3 * i + 2], (double) vhi, 0.0);           \
      }                                                                                   \
    }                                                                                     \
    targetFree(t_x);                                                                      \
    targetFree(t_res);                                                                    \
    free(x);                                                                              \
    free(got);                                                                            \
  }                                                                                       \
  static void checkAllTeamRed##Name(void) {                                               \
    const int shapes[][2] = {{32, 1}, {64, 1}, {8, 4}, {4, 8}, {1, 32}, {256, 1},         \
                             {32, 32}, {1024, 1}};                                        \
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {                     \
      const int nt = shapes[k][0], nl = shapes[k][1];                                     \
      checkTeamRed##Name(3, nt, nl, 0, 0, (T) 0);                                         \
      checkTeamRed##Name(3, nt, nl, 1, 1, (T) 5);                                         \
      checkTeamRed##Name(4, nt, nl, nt + 3, nl + 1, (T) 2);                               \
      checkTeamRed##Name(2, nt, nl, 3 * nt + 1, 2 * nl + 3, (T) -4);                      \
      checkTeamRed##Name(2, nt, nl, 100, 7, (T) 0);                                       \
    }                                                                                     \
    if (!small()) checkTeamRed##Name(500, 64, 2, 37, 5, (T) 1);                           \
  }
TU_TEAMRED_TYPE(Double, double)
TU_TEAMRED_TYPE(Float, float)
TU_TEAMRED_TYPE(Int, int)
TU_TEAMRED_TYPE(Long, long)

static void test_reductions(void **state) {
  (void) state;
  checkAllTeamRedDouble();
  checkAllTeamRedFloat();
  checkAllTeamRedInt();
  checkAllTeamRedLong();
}

/* ---------------------------------------------------------------------- */
/* Private accumulators across barriers: per team (a batch entry b), the
 * product C_b = A_b B_b^T of an L x K and an R x K matrix (row-major), tiled
 * TL x TR outputs per team, one per team thread, TK deep tiles through
 * scratch. The classic tiled form (Kokkos' Intrepid case study, the tiled
 * GEMM literature): every thread keeps its output's sum across the tiles. */
enum { TL = 8, TR = 8, TK = 8 };
TDP_TEAM_KERNEL(64) void kTiled(const double *t_a, const double *t_b, double *t_c, long nb,
                                int L, int R, int K) {
  const int ntl = (L + TL - 1) / TL, ntr = (R + TR - 1) / TR;
  TDP_TEAMS(team, nb * ntl * ntr) {
    const long b = team / (ntl * ntr);
    const int l0 = (int) (team % (ntl * ntr)) / ntr * TL, r0 = (int) (team % ntr) * TR;
    const double *a = t_a + b * L * K, *bb = t_b + b * R * K;
    TDP_TEAM_SCRATCH2(double, as, TL, TK + 1);
    TDP_TEAM_SCRATCH2(double, bs, TR, TK + 1);
    TDP_TEAM_PRIVATE(double, acc, TL * TR, 1);
    TDP_TEAM_EACH(t) { TDP_PRIV(acc, t, 0) = 0.0; }
    for (int k0 = 0; k0 < K; k0 += TK) {
      TDP_TEAM_RANGE(i, TL * TK) {
        const int l = i / TK, k = i % TK;
        TDP_SCR2(as, l, k) = (l0 + l < L && k0 + k < K) ? a[(l0 + l) * K + k0 + k] : 0.0;
      }
      TDP_TEAM_RANGE(i, TR * TK) {
        const int r = i / TK, k = i % TK;
        TDP_SCR2(bs, r, k) = (r0 + r < R && k0 + k < K) ? bb[(r0 + r) * K + k0 + k] : 0.0;
      }
      TDP_TEAM_BARRIER();
      TDP_TEAM_EACH(t) {
        const int l = t / TR, r = t % TR;
        double s = 0.0;
        for (int k = 0; k < TK; k++) s += TDP_SCR2(as, l, k) * TDP_SCR2(bs, r, k);
        TDP_PRIV(acc, t, 0) += s;
      }
      TDP_TEAM_BARRIER();
    }
    TDP_TEAM_EACH(t) {
      const int l = t / TR, r = t % TR;
      if (l0 + l < L && r0 + r < R) t_c[(b * L + l0 + l) * R + r0 + r] = TDP_PRIV(acc, t, 0);
    }
  }
}

static void checkTiled(long nb, int L, int R, int K) {
  const size_t na = (size_t) nb * L * K, nbb = (size_t) nb * R * K, nc = (size_t) nb * L * R;
  double *a = (double *) tuMalloc(na * sizeof(double)), *b = (double *) tuMalloc(nbb * sizeof(double));
  double *c = (double *) tuMalloc(nc * sizeof(double));
  tuFillDouble(a, na, -1.0, 1.0, 11);
  tuFillDouble(b, nbb, -1.0, 1.0, 12);
  double *t_a = NULL, *t_b = NULL, *t_c = NULL;
  targetMalloc(&t_a, na * sizeof(double));
  targetMalloc(&t_b, nbb * sizeof(double));
  targetCalloc(&t_c, nc * sizeof(double));
  copyToTarget(t_a, a, na * sizeof(double));
  copyToTarget(t_b, b, nbb * sizeof(double));
  const long nteams = nb * ((L + TL - 1) / TL) * ((R + TR - 1) / TR);
  TDP_LAUNCH_TEAMS(kTiled, nteams, TL * TR, 1,
                   TDP_SCRATCH_BYTES(double, TL * (TK + 1)) + TDP_SCRATCH_BYTES(double, TR * (TK + 1)),
                   t_a, t_b, t_c, nb, L, R, K);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  copyFromTarget(c, t_c, nc * sizeof(double));
  tuSetContext("tiled %ld x (%d x %d x %d)", nb, L, R, K);
  for (long e = 0; e < nb; e++)
    for (int l = 0; l < L; l++)
      for (int r = 0; r < R; r++) {
        /* to 1e-12 of the sum of the terms' sizes: the sum itself may cancel */
        double s = 0.0, size = 0.0;
        for (int k = 0; k < K; k++) {
          s += a[(e * L + l) * K + k] * b[(e * R + r) * K + k];
          size += fabs(a[(e * L + l) * K + k] * b[(e * R + r) * K + k]);
        }
        const double got = c[(e * L + l) * R + r];
        if (!(fabs(got - s) <= 1e-12 * size))
          fail_msg("[%s] C(%ld, %d, %d) = %.17g, want %.17g (to 1e-12 of %g)", tu_context, e, l,
                   r, got, s, size);
      }
  targetFree(t_a);
  targetFree(t_b);
  targetFree(t_c);
  free(a);
  free(b);
  free(c);
}

static void test_private_tiled(void **state) {
  (void) state;
  checkTiled(3, 8, 8, 8);
  checkTiled(5, 13, 7, 29);
  checkTiled(2, 27, 27, 64);
  checkTiled(4, 1, 1, 5);
  if (!small()) checkTiled(100, 16, 16, 48);
}

static int teardown(void **state) {
  (void) state;
  targetSetErrorAbort(1);
  return targetFinalize() == TARGET_SUCCESS ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* forking cases first: the parent has not touched the target yet */
      cmocka_unit_test(test_scratch_overflow),
      cmocka_unit_test(test_teams_not_launched_as_teams),
      cmocka_unit_test(test_more_teams_than_launched),
      cmocka_unit_test(test_break),
      cmocka_unit_test(test_huge_range),
      cmocka_unit_test(test_private_too_small),
      cmocka_unit_test(test_checked_scratch_oob),
      cmocka_unit_test(test_before_init), /* ends in targetInit() */
      cmocka_unit_test(test_launch_errors),
      cmocka_unit_test(test_cover),
      cmocka_unit_test(test_zero_teams),
      cmocka_unit_test(test_scratch_barrier),
      cmocka_unit_test(test_reductions),
      cmocka_unit_test(test_private_tiled),
  };
  return cmocka_run_group_tests_name("team " TARGETDP_CONFIG, tests, NULL, teardown);
}
