/*
 * test_checked.c -- the checked build (make CHECK=1, TARGETDP_CHECK) must
 * catch misuse that a normal build turns into a silent wrong answer or a
 * crash on the GPU cluster. Each case plants one bug and asserts that it
 * is reported:
 *
 *   - TDP_INDEX / TDP_INDEX2 out of bounds inside a kernel (site past the
 *     end, negative site, component past ncomp, each rank-2 index on its
 *     own): the message names the kernel, the file and the line, and the
 *     program stops with status 1 (C: exit in the kernel; CUDA: a trap that
 *     the next targetSynchronize reports as a device error);
 *   - (C backend) an in-kernel reduction whose second partial is not named
 *     in the loop's clauses (shared by the OpenMP threads: a race), and a
 *     partial summed in a plain TDP_TLP loop: targetBlock* names the
 *     variable, the file and line, and the reduction loop's line; a sum
 *     that does not start at 0 (on CUDA it would count per thread); and a
 *     block call whose operation is not the clause's (TDP_RMAX(s), then
 *     targetBlockAddDouble(t, s): the backends disagree; issue 25 item 2);
 *   - (every build, CUDA) a block reduction in a block whose size is not a
 *     multiple of 32 (TDP_LAUNCH_TPB): a trap with a message, not a sum;
 *   - a missing copyToTarget: fresh target memory is NaN, so the kernel's
 *     results are NaN, while the same code with the copy is right;
 *   - a host pointer where an API call wants a target pointer, and target
 *     memory where it wants a host pointer;
 *   - (every build) double free, free of an unknown pointer, a copy larger
 *     than the allocation;
 *   - (every build, C backend) exhausted memory under RLIMIT_AS: a clear
 *     TARGET_ERROR_MEMORY, host data intact, everything freed cleanly.
 *
 * Not tested: reading through a stale pointer after targetFree (it is
 * poisoned with NaN on the way out, but reading freed memory is undefined
 * behaviour that the sanitizer runs rightly report).
 *
 * Bugs that stop the program run in a forked child with stdout and stderr
 * captured. The parent must not touch the target before the last fork (on
 * CUDA a child must not inherit a context; under OpenMP a child must not
 * inherit a thread pool), so the forking cases come first and there is no
 * group setup: the in-process cases call targetInit() themselves.
 */
#include "test_util.h" /* first: it sets _POSIX_C_SOURCE (fork, setrlimit) */

#include <sys/resource.h>

#if defined(__SANITIZE_ADDRESS__)
#define TU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_ASAN 1
#endif
#endif
#ifndef TU_ASAN
#define TU_ASAN 0
#endif

#ifdef TARGETDP_CHECK
#define TU_CHECKED 1
#else
#define TU_CHECKED 0
#endif

#ifdef __CUDACC__
#define TU_CUDA 1
#else
#define TU_CUDA 0
#endif

/* cmocka's skip() takes no reason: print it first (a TAP comment). */
#define tuSkip(why)                        \
  do {                                     \
    print_message("# skipped: %s\n", why); \
    skip();                                \
  } while (0)
#define NOT_CHECKED_WHY "not a checked build (make CHECK=1 defines TARGETDP_CHECK)"

#define NC 3 /* components of the fields below */

/* ---------------------------------------------------------------------- */
/* Kernels with a planted out-of-bounds index. The enum before each holds
 * the line of the bad access, which the message must name. */

enum { LINE_OOB_SITE = __LINE__ + 4 };
TDP_KERNEL void kOobSite(double *t_f, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) {
      t_f[TDP_INDEX(n, NC, base + v + 1, 0)] += 1.0; /* planted: site n at the last site */
    }
  }
}

enum { LINE_OOB_NEGATIVE = __LINE__ + 4 };
TDP_KERNEL void kOobNegative(double *t_f, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) {
      t_f[TDP_INDEX(n, NC, base + v - 1, 1)] += 1.0; /* planted: site -1 at site 0 */
    }
  }
}

/* Every site at once: all threads hit it together, one message must come out. */
enum { LINE_OOB_COMPONENT = __LINE__ + 4 };
TDP_KERNEL void kOobComponent(double *t_f, int n) {
  TDP_TLP(base, n) {
    for (int c = 0; c <= NC; c++) { /* planted: <= instead of < */
      TDP_ILP(v) { t_f[TDP_INDEX(n, NC, base + v, c)] += 1.0; }
    }
  }
}

/* Rank 2: (0, 3) of 3 x 3 flattens to component 3 of 9, inside the
 * allocation, yet it is the neighbouring row's element: a silent bug. */
enum { LINE_OOB_INDEX2_COLUMN = __LINE__ + 4 };
TDP_KERNEL void kOobIndex2Column(double *t_f, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) {
      t_f[TDP_INDEX2(n, 3, 3, base + v, 0, 3)] += 1.0; /* planted: i2 == n2 */
    }
  }
}

enum { LINE_OOB_INDEX2_ROW = __LINE__ + 4 };
TDP_KERNEL void kOobIndex2Row(double *t_f, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) {
      t_f[TDP_INDEX2(n, 3, 3, base + v, 3, 0)] += 1.0; /* planted: i1 == n1 */
    }
  }
}

/* out = 2 * in, component by component: the kernel of the missing-copy case. */
TDP_KERNEL void kTwice(double *t_out, const double *t_in, int n) {
  TDP_TLP(base, n) {
    for (int c = 0; c < NC; c++) {
      TDP_ILP(v) {
        size_t i = TDP_INDEX(n, NC, base + v, c);
        t_out[i] = 2.0 * t_in[i];
      }
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Forked children. */

/* Run a child that takes no argument with tuRunChild. */
static int callChild(void *arg) { return (*(int (**)(void)) arg)(); }

static int countOf(const char *s, const char *sub) {
  int n = 0;
  for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub)) n++;
  return n;
}

/* Launch one planted kernel on a field of n sites in default (abort)
 * mode. Reaching the end means the bug went unnoticed: status 99. */
#define N_OOB 37 /* not a multiple of VVL */
static int launchPlanted(void (*kernel)(double *, int), int ncomp) {
  double *t = NULL;
  targetInit();
  targetCalloc(&t, TDP_FIELD_SIZE(N_OOB, ncomp) * sizeof(double));
  TDP_LAUNCH(kernel, N_OOB, t, N_OOB);
  targetSynchronize();
  printf("(the planted out-of-bounds index went unnoticed)\n");
  targetFree(t);
  targetFinalize();
  return 99;
}
static int childOobSite(void) { return launchPlanted(kOobSite, NC); }
static int childOobNegative(void) { return launchPlanted(kOobNegative, NC); }
static int childOobComponent(void) { return launchPlanted(kOobComponent, NC); }
static int childOobIndex2Column(void) { return launchPlanted(kOobIndex2Column, 9); }
static int childOobIndex2Row(void) { return launchPlanted(kOobIndex2Row, 9); }

/* In-kernel reductions whose partial is not a reduction variable. On CUDA
 * each thread owns its copy, so the same code is right there. */
enum { LINE_RED_LOOP = __LINE__ + 3, LINE_RED_CALL = __LINE__ + 10 };
TDP_KERNEL void kUnlistedPartial(const double *t_a, int n, double *t_s) {
  double mass = 0.0, mom = 0.0;
  TDP_TLP_SUM(base, n, mass) { /* planted: mom is not listed */
    TDP_ILP_REDUCE(v) {
      mass += t_a[base + v];
      mom += 2.0 * t_a[base + v];
    }
  }
  targetBlockAddDouble(&t_s[0], mass);
  targetBlockAddDouble(&t_s[1], mom);
}
enum { LINE_TLP_CALL = __LINE__ + 6 };
TDP_KERNEL void kPlainTlpPartial(const double *t_a, int n, double *t_s) {
  double s = 0.0;
  TDP_TLP(base, n) { /* planted: a sum in a plain TLP loop */
    TDP_ILP(v) s += t_a[base + v];
  }
  targetBlockAddDouble(t_s, s);
}
enum { LINE_SUM_START = __LINE__ + 3 };
TDP_KERNEL void kSumStartsAtOne(const double *t_a, int n, double *t_s) {
  double mass = 0.0, count = 1.0; /* planted: a sum that starts at 1 */
  TDP_TLP_REDUCE(base, n, TDP_RSUM(mass), TDP_RSUM(count)) {
    TDP_ILP_REDUCE(v) {
      mass += t_a[base + v];
      count += 1.0;
    }
  }
  targetBlockAddDouble(&t_s[0], mass);
  targetBlockAddDouble(&t_s[1], count);
}
/* The clause's operation is not the block call's (issue 25 item 2). */
enum { LINE_OP_LOOP = __LINE__ + 3, LINE_OP_CALL = __LINE__ + 6 };
TDP_KERNEL void kOpMismatch(const double *t_a, int n, double *t_s) {
  double s = 0.0;
  TDP_TLP_REDUCE(base, n, TDP_RMAX(s)) {
    TDP_ILP_REDUCE(v) s = t_a[base + v] > s ? t_a[base + v] : s;
  }
  targetBlockAddDouble(t_s, s); /* planted: a sum of a max */
}
enum { LINE_OP_LOOP2 = __LINE__ + 3, LINE_OP_CALL2 = __LINE__ + 10 };
TDP_KERNEL void kOpMismatch2(const double *t_a, int n, double *t_s) {
  double mass = 0.0, lo = 1e300;
  TDP_TLP_REDUCE(base, n, TDP_RSUM(mass), TDP_RMIN(lo)) {
    TDP_ILP_REDUCE(v) {
      mass += t_a[base + v];
      lo = t_a[base + v] < lo ? t_a[base + v] : lo;
    }
  }
  targetBlockAddDouble(&t_s[0], mass);
  targetBlockMaxDouble(&t_s[1], lo); /* planted: a max of a min */
}
static int launchReduce(void (*kernel)(const double *, int, double *)) {
  double *t_a = NULL, *t_s = NULL;
  targetInit();
  targetCalloc(&t_a, 1000 * sizeof(double));
  targetCalloc(&t_s, 2 * sizeof(double));
  TDP_LAUNCH_REDUCE(kernel, 1000, t_a, 1000, t_s);
  targetSynchronize();
  printf("(the partial that is no reduction variable went unnoticed)\n");
  targetFree(t_s);
  targetFree(t_a);
  targetFinalize();
  return 99;
}
static int childUnlisted(void) { return launchReduce(kUnlistedPartial); }
static int childPlainTlp(void) { return launchReduce(kPlainTlpPartial); }
static int childSumStart(void) { return launchReduce(kSumStartsAtOne); }
static int childOpMismatch(void) { return launchReduce(kOpMismatch); }
static int childOpMismatch2(void) { return launchReduce(kOpMismatch2); }

/* (every build, CUDA) a block reduction in a block of 100 threads: the
 * full-warp shuffles cannot be right there, so it must trap, not sum. */
TDP_KERNEL_TPB(128) void kBlockSum100(const double *t_a, int n, double *t_s) {
  double s = 0.0;
  TDP_TLP_SUM(base, n, s) {
    TDP_ILP_REDUCE(v) s += t_a[base + v];
  }
  targetBlockAddDouble(t_s, s);
}
static int childBlockSum100(void) {
  double *t_a = NULL, *t_s = NULL;
  targetInit();
  targetCalloc(&t_a, 1000 * sizeof(double));
  targetCalloc(&t_s, sizeof(double));
  TDP_LAUNCH_TPB(kBlockSum100, 1000, 100, t_a, 1000, t_s);
  targetSynchronize();
  printf("(the block reduction in a block of 100 threads went unnoticed)\n");
  targetFree(t_s);
  targetFree(t_a);
  targetFinalize();
  return 99;
}

static void test_block_reduction_bad_block_size(void **state) {
  (void) state; /* both backends refuse it: the same program must fail the same way */
  char out[16384];
  int (*child)(void) = childBlockSum100;
  int rc = tuRunChild(callChild, &child, out, sizeof(out));
  if (rc != 1) fail_msg("want exit status 1, got %d; output:\n%s", rc, out);
  /* refused at the launch, on the host: a message the device's printf
   * could not guarantee (its output is lost when the kernel traps) */
  tuAssertContains(out, "kernel kBlockSum100 failed to launch: 100 threads per block");
}

static void test_reduction_partial_not_listed(void **state) {
  (void) state;
  if (!TU_CHECKED || TU_CUDA) tuSkip("C backend, checked build only (CUDA has no such race)");
  char out[16384], want[256];
  int (*child)(void) = childUnlisted;
  int rc = tuRunChild(callChild, &child, out, sizeof(out));
  if (rc != 1) fail_msg("want exit status 1, got %d; output:\n%s", rc, out);
  tuAssertContains(out, "targetDP: targetBlockAddDouble failed at ");
  snprintf(want, sizeof(want), "test_checked.c:%d: 'mom' is not a reduction variable of the "
           "in-kernel reduction at ", LINE_RED_CALL);
  tuAssertContains(out, want);
  snprintf(want, sizeof(want), "test_checked.c:%d (or of an earlier one in this kernel): its OpenMP threads shared it", LINE_RED_LOOP);
  tuAssertContains(out, want);
  child = childPlainTlp;
  rc = tuRunChild(callChild, &child, out, sizeof(out));
  if (rc != 1) fail_msg("want exit status 1, got %d; output:\n%s", rc, out);
  snprintf(want, sizeof(want), "test_checked.c:%d: 's' comes from no in-kernel reduction",
           LINE_TLP_CALL);
  tuAssertContains(out, want);
  child = childSumStart;
  rc = tuRunChild(callChild, &child, out, sizeof(out));
  if (rc != 1) fail_msg("want exit status 1, got %d; output:\n%s", rc, out);
  snprintf(want, sizeof(want), "test_checked.c:%d: the sum variable 'count' does not start at 0",
           LINE_SUM_START);
  tuAssertContains(out, want);
}

static void test_reduction_op_mismatch(void **state) {
  (void) state;
  if (!TU_CHECKED || TU_CUDA) tuSkip("C backend, checked build only (CUDA ignores the clauses)");
  char out[16384], want[512];
  int (*child)(void) = childOpMismatch;
  int rc = tuRunChild(callChild, &child, out, sizeof(out));
  if (rc != 1) fail_msg("want exit status 1, got %d; output:\n%s", rc, out);
  snprintf(want, sizeof(want), "targetDP: targetBlockAddDouble failed at ");
  tuAssertContains(out, want);
  snprintf(want, sizeof(want), "test_checked.c:%d: 's' is reduced as a maximum (TDP_RMAX) by the "
           "in-kernel reduction at ", LINE_OP_CALL);
  tuAssertContains(out, want);
  snprintf(want, sizeof(want), "test_checked.c:%d, but targetBlockAddDouble combines it as a sum",
           LINE_OP_LOOP);
  tuAssertContains(out, want);
  tuAssertContains(out, "call targetBlockMax* for it");
  child = childOpMismatch2;
  rc = tuRunChild(callChild, &child, out, sizeof(out));
  if (rc != 1) fail_msg("want exit status 1, got %d; output:\n%s", rc, out);
  snprintf(want, sizeof(want), "test_checked.c:%d: 'lo' is reduced as a minimum (TDP_RMIN) by the "
           "in-kernel reduction at ", LINE_OP_CALL2);
  tuAssertContains(out, want);
  snprintf(want, sizeof(want), "test_checked.c:%d, but targetBlockMaxDouble combines it as a "
           "maximum", LINE_OP_LOOP2);
  tuAssertContains(out, want);
}

/* The planted kernel must stop the program with status 1 and the message
 * "index out of bounds in <kernel> at <file>:<line>: <what>". */
static void expectOob(int (*child)(void), const char *kernel, int line, const char *what) {
  if (!TU_CHECKED) tuSkip(NOT_CHECKED_WHY);
  char out[16384], want[256];
  int rc = tuRunChild(callChild, &child, out, sizeof(out));
  tuSetContext("%s: exit status %d", kernel, rc);
  if (rc != 1) fail_msg("[%s] want exit status 1; output:\n%s", tu_context, out);
  snprintf(want, sizeof(want), "targetDP: index out of bounds in %s at ", kernel);
  tuAssertContains(out, want);
  snprintf(want, sizeof(want), "test_checked.c:%d: site ", line);
  tuAssertContains(out, want);
  tuAssertContains(out, what);
  if (TU_CUDA) {
    /* the trap surfaces at the synchronisation as a device error */
    tuAssertContains(out, "targetDP: targetSynchronize failed at ");
  } else if (countOf(out, "index out of bounds") != 1) {
    fail_msg("[%s] want exactly one message, however many threads hit the bug; output:\n%s",
             tu_context, out);
  }
}

static void test_oob_site_past_end(void **state) {
  (void) state;
  char what[64];
  snprintf(what, sizeof(what), "site %d of %d, component 0 of %d", N_OOB, N_OOB, NC);
  expectOob(childOobSite, "kOobSite", LINE_OOB_SITE, what);
}

static void test_oob_negative_site(void **state) {
  (void) state;
  char what[64];
  snprintf(what, sizeof(what), "site -1 of %d, component 1 of %d", N_OOB, NC);
  expectOob(childOobNegative, "kOobNegative", LINE_OOB_NEGATIVE, what);
}

static void test_oob_component_all_threads(void **state) {
  (void) state;
  char what[64];
  snprintf(what, sizeof(what), "component %d of %d", NC, NC);
  expectOob(childOobComponent, "kOobComponent", LINE_OOB_COMPONENT, what);
}

static void test_oob_index2_column(void **state) {
  (void) state;
  expectOob(childOobIndex2Column, "kOobIndex2Column", LINE_OOB_INDEX2_COLUMN,
            "component (0, 3) of 3 x 3");
}

static void test_oob_index2_row(void **state) {
  (void) state;
  expectOob(childOobIndex2Row, "kOobIndex2Row", LINE_OOB_INDEX2_ROW, "component (3, 0) of 3 x 3");
}

/* Exhausted memory. The child lowers its address-space limit a little
 * above what it uses and allocates 64 MiB target arrays until one fails.
 * It reports with its exit status (cmocka's asserts must stay in the
 * parent) and prints the layer's message for the parent to check. */
#define CHUNK ((size_t) 64 << 20)
#define MAXCHUNKS 256 /* 16 GiB: far past the limit, so the loop ends */
static int childExhaust(void) {
  const size_t nh = (size_t) 1 << 17; /* 1 MiB of host data */
  double *h = (double *) malloc(nh * sizeof(double));
  double *h0 = (double *) malloc(nh * sizeof(double));
  double *t_small = NULL;
  static double *t[MAXCHUNKS];
  if (!h || !h0) return 10;
  tuFillDouble(h0, nh, -1.0, 1.0, 31);
  memcpy(h, h0, nh * sizeof(double));
  targetSetErrorAbort(0);
  /* Before the limit: initialise, start the OpenMP threads (checked
   * builds poison fresh memory in parallel), put data on the target. */
  if (targetInit() || targetMalloc(&t_small, nh * sizeof(double)) ||
      copyToTarget(t_small, h, nh * sizeof(double)))
    return 11;

  long pages = 0;
  FILE *fp = fopen("/proc/self/statm", "r");
  if (!fp || fscanf(fp, "%ld", &pages) != 1) return 12;
  fclose(fp);
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl)) return 13;
  rl.rlim_cur = (rlim_t) pages * (rlim_t) sysconf(_SC_PAGESIZE) + 5 * CHUNK;
  if (setrlimit(RLIMIT_AS, &rl)) return 14;

  int n = 0, rc = TARGET_SUCCESS;
  for (n = 0; n < MAXCHUNKS; n++) {
    rc = targetMalloc(&t[n], CHUNK);
    if (rc) break;
  }
  printf("allocated %d x 64 MiB before the failure\n", n);
  printf("MESSAGE: %s\n", targetLastErrorString());
  if (n == MAXCHUNKS) return 20;                  /* the limit did not bite */
  if (rc != TARGET_ERROR_MEMORY || targetLastError() != TARGET_ERROR_MEMORY) return 21;
  if (t[n] != NULL) return 22;                    /* the failed pointer is NULL */
  if (memcmp(h, h0, nh * sizeof(double))) return 23; /* host data intact */
  memset(h, 0, nh * sizeof(double));
  if (copyFromTarget(h, t_small, nh * sizeof(double)) || memcmp(h, h0, nh * sizeof(double)))
    return 24;                                    /* target data intact */
  for (int i = 0; i < n; i++)
    if (targetFree(t[i])) return 25;              /* what was allocated frees cleanly */
  if (targetMalloc(&t[0], CHUNK) || targetFree(t[0])) return 26; /* and is usable again */
  if (targetFree(t_small) || targetFinalize()) return 27;
  free(h);
  free(h0);
  printf("PASS\n");
  return 0;
}

static void test_exhausted_memory(void **state) {
  (void) state;
  if (TU_CUDA) tuSkip("C backend only: RLIMIT_AS breaks the CUDA driver");
  if (TU_ASAN) tuSkip("AddressSanitizer reserves terabytes of shadow memory and ignores RLIMIT_AS");
  const char *pre = getenv("LD_PRELOAD");
  if (pre && strstr(pre, "vgpreload")) tuSkip("valgrind cannot run under a low RLIMIT_AS");
  char out[8192];
  int (*child)(void) = childExhaust;
  int rc = tuRunChild(callChild, &child, out, sizeof(out));
  if (rc != 0)
    fail_msg("child exit status %d, want 0 (10-27: which check failed, see childExhaust); "
             "output:\n%s", rc, out);
  tuAssertContains(out, "MESSAGE: targetDP: targetMalloc failed at ");
  tuAssertContains(out, "test_checked.c:");
  tuAssertContains(out, "out of memory allocating 67108864 bytes");
  tuAssertContains(out, "PASS");
}

/* ---------------------------------------------------------------------- */
/* In-process cases, error codes instead of exits. */

#define HOST_NOT_TARGET "is not target memory from targetMalloc: a host pointer?"
#define TARGET_NOT_HOST "is target memory, not host memory: arguments swapped?"

/* A kernel fed with target memory that was never copied to reads the
 * poison: NaN in every result on either backend, as garbage on a GPU
 * would be, instead of the host's values that a shared address space
 * would have handed it. The same code with the copy is right. */
static void test_missing_copy_to_target(void **state) {
  (void) state;
  if (!TU_CHECKED) tuSkip(NOT_CHECKED_WHY);
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  const int n = 1003;
  const size_t size = TDP_FIELD_SIZE(n, NC), nbytes = size * sizeof(double);
  double *h = (double *) tuMalloc(nbytes), *back = (double *) tuMalloc(nbytes);
  double *t_in = NULL, *t_out = NULL, *t_forgot = NULL;
  tuFillDouble(h, size, 1.0, 2.0, 41);
  assert_int_equal(targetMalloc(&t_in, nbytes), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_out, nbytes), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_forgot, nbytes), TARGET_SUCCESS);

  /* with the copy: out = 2 in */
  assert_int_equal(copyToTarget(t_in, h, nbytes), TARGET_SUCCESS);
  TDP_LAUNCH(kTwice, n, t_out, t_in, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(back, t_out, nbytes), TARGET_SUCCESS);
  tuCheck c;
  tuCheckInit(&c);
  for (int s = 0; s < n; s++)
    for (int k = 0; k < NC; k++) {
      size_t i = TDP_INDEX(n, NC, s, k);
      tuCheckEq(&c, (long) i, back[i], 2.0 * h[i]);
    }
  tuSetContext("with copyToTarget, n = %d", n);
  tuCheckDone(&c, "out = 2 in", (long) n * NC);

  /* planted: the copy into t_forgot is missing */
  TDP_LAUNCH(kTwice, n, t_out, t_forgot, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(back, t_out, nbytes), TARGET_SUCCESS);
  long nnan = 0;
  for (int s = 0; s < n; s++)
    for (int k = 0; k < NC; k++) nnan += isnan(back[TDP_INDEX(n, NC, s, k)]) ? 1 : 0;
  if (nnan != (long) n * NC)
    fail_msg("missing copyToTarget: %ld of %ld results are NaN, want all", nnan, (long) n * NC);

  /* and the reverse: without copyFromTarget the host does not see the
   * target's results (the memories are separate on a CPU too) */
  memcpy(back, h, nbytes);
  TDP_LAUNCH(kTwice, n, t_out, t_in, n);
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_memory_equal(back, h, nbytes);

  assert_int_equal(targetFree(t_in), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_out), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_forgot), TARGET_SUCCESS);
  free(h);
  free(back);
}

/* A host array where the target array belongs, in every kind of call
 * that takes one; nothing moves. */
static void test_host_pointer_as_target(void **state) {
  (void) state;
  if (!TU_CHECKED) tuSkip(NOT_CHECKED_WHY);
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  const int n = 64;
  const size_t size = TDP_FIELD_SIZE(n, NC), nbytes = size * sizeof(double);
  double *h = (double *) tuMalloc(nbytes), *h2 = (double *) tuMalloc(nbytes);
  double *h2_0 = (double *) tuMalloc(nbytes), *t = NULL, res = 7.0;
  int *hi = (int *) tuMalloc(n * sizeof(int)), sites[2] = {1, 5}, e[3] = {4, 4, 4};
  long long ires = 7;
  char mask[64];
  memset(mask, 1, sizeof(mask));
  tuFillDouble(h, size, 1.0, 2.0, 42);
  tuFillDouble(h2_0, size, 3.0, 4.0, 43);
  memcpy(h2, h2_0, nbytes);
  tuFillInt(hi, n, 1, 9, 44);
  assert_int_equal(targetMalloc(&t, nbytes), TARGET_SUCCESS);

  expectError(copyToTarget(h2, h, nbytes), TARGET_ERROR_INVALID_VALUE, "copyToTarget",
              HOST_NOT_TARGET);
  expectError(copyFromTarget(h2, h, nbytes), TARGET_ERROR_INVALID_VALUE, "copyFromTarget",
              HOST_NOT_TARGET);
  /* the classic: arguments of copyToTarget swapped */
  expectError(copyToTarget(h2, t, nbytes), TARGET_ERROR_INVALID_VALUE, "copyToTarget",
              HOST_NOT_TARGET);
  expectError(targetDoubleSum(&res, h, n), TARGET_ERROR_INVALID_VALUE, "targetDoubleSum",
              HOST_NOT_TARGET);
  expectError(targetDoubleMax(&res, h, n), TARGET_ERROR_INVALID_VALUE, "targetDoubleMax",
              HOST_NOT_TARGET);
  expectError(targetIntSum(&ires, hi, n), TARGET_ERROR_INVALID_VALUE, "targetIntSum",
              HOST_NOT_TARGET);
  expectError(targetZero(h2, size), TARGET_ERROR_INVALID_VALUE, "targetZero", HOST_NOT_TARGET);
  expectError(targetSetConstant(h2, 2.0, size), TARGET_ERROR_INVALID_VALUE, "targetSetConstant",
              HOST_NOT_TARGET);
  expectError(copyToTargetMasked(h2, h, n, NC, mask), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", HOST_NOT_TARGET);
  expectError(copyFromTargetMasked(h2, h, n, NC, mask), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetMasked", HOST_NOT_TARGET);
  expectError(copyToTargetSites(h2, h, n, NC, sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetSites", HOST_NOT_TARGET);
  expectError(copyFromTargetSites(h2, h, n, NC, sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetSites", HOST_NOT_TARGET);
  expectError(copyToTarget3DHalo(h2, h, e, 1, 1), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", HOST_NOT_TARGET);
  expectError(copyFromTarget3DEdge(h2, h, e, 1, 1), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget3DEdge", HOST_NOT_TARGET);
  expectError(targetAoS2SoA(t, h, 10, NC), TARGET_ERROR_INVALID_VALUE, "targetAoS2SoA",
              HOST_NOT_TARGET);
  expectError(targetSoA2AoS(h2, t, 10, NC), TARGET_ERROR_INVALID_VALUE, "targetSoA2AoS",
              HOST_NOT_TARGET);

  assert_true(res == 7.0 && ires == 7);
  assert_memory_equal(h2, h2_0, nbytes);
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  free(h);
  free(h2);
  free(h2_0);
  free(hi);
  targetSetErrorAbort(1);
}

/* Target memory where a host array belongs: the host side of every copy,
 * and the host-only arguments (result, mask, site list, constant source). */
static void test_target_pointer_as_host(void **state) {
  (void) state;
  if (!TU_CHECKED) tuSkip(NOT_CHECKED_WHY);
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  const int n = 64;
  const size_t size = TDP_FIELD_SIZE(n, NC), nbytes = size * sizeof(double);
  double *t = NULL, *t2 = NULL, *t_res = NULL, *u = NULL, res = 0.0;
  char *t_mask = NULL;
  int *t_sites = NULL, e[3] = {4, 4, 4};
  static double sym; /* stands in for a TDP_CONST: never dereferenced here */
  assert_int_equal(targetCalloc(&t, nbytes), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t2, nbytes), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_res, sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_mask, 64), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_sites, 4 * sizeof(int)), TARGET_SUCCESS);

  expectError(copyToTarget(t, t2, nbytes), TARGET_ERROR_INVALID_VALUE, "copyToTarget",
              TARGET_NOT_HOST);
  expectError(copyFromTarget(t2, t, nbytes), TARGET_ERROR_INVALID_VALUE, "copyFromTarget",
              TARGET_NOT_HOST);
  expectError(copyConstToTarget(&sym, t, sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyConstToTarget", TARGET_NOT_HOST);
  expectError(copyToTargetMasked(t, t2, n, NC, t_mask), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", TARGET_NOT_HOST);
  expectError(copyFromTargetSites(t2, t, n, NC, t_sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyFromTargetSites", TARGET_NOT_HOST);
  expectError(copyToTarget3DHalo(t, t2, e, 1, 1), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget3DHalo", TARGET_NOT_HOST);
  /* host-only arguments that are target memory */
  /* defined contents: the exact sum below branches on every value */
  double *hf = (double *) tuMalloc(nbytes);
  memset(hf, 0, nbytes);
  char mask[64];
  memset(mask, 1, sizeof(mask));
  expectError(copyToTargetMasked(t, hf, n, NC, t_mask), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetMasked", "the mask");
  expectError(copyToTargetSites(t, hf, n, NC, t_sites, 2), TARGET_ERROR_INVALID_VALUE,
              "copyToTargetSites", "the site list");
  expectError(targetDoubleSum(t_res, t, n), TARGET_ERROR_INVALID_VALUE, "targetDoubleSum",
              "the result");
  /* unified memory is both: accepted on either side */
  assert_int_equal(targetMallocUnified(&u, nbytes), TARGET_SUCCESS);
  memset(u, 0, nbytes);
  assert_int_equal(copyToTarget(t, u, nbytes), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(u, t, nbytes), TARGET_SUCCESS);
  assert_int_equal(copyToTargetMasked(u, hf, n, NC, mask), TARGET_SUCCESS);
  assert_int_equal(targetDoubleSum(&res, u, n), TARGET_SUCCESS);
  assert_int_equal(targetFree(u), TARGET_SUCCESS);

  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  assert_int_equal(targetFree(t2), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_res), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_mask), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_sites), TARGET_SUCCESS);
  free(hf);
  targetSetErrorAbort(1);
}

/* Always on, checked build or not. */
static void test_double_free_unknown_free_oversize_copy(void **state) {
  (void) state;
  assert_int_equal(targetInit(), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  double *t = NULL, h[16];
  tuFillDouble(h, 16, 1.0, 2.0, 45);
  assert_int_equal(targetMalloc(&t, 8 * sizeof(double)), TARGET_SUCCESS);
  expectError(copyToTarget(t, h, 9 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyToTarget", "72 bytes asked of the target array but only 64 remain");
  expectError(copyFromTarget(h, t + 4, 5 * sizeof(double)), TARGET_ERROR_INVALID_VALUE,
              "copyFromTarget", "only 32 remain");
  expectError(targetFree(h), TARGET_ERROR_INVALID_VALUE, "targetFree",
              "not a live target allocation");
  assert_int_equal(targetFree(t), TARGET_SUCCESS);
  expectError(targetFree(t), TARGET_ERROR_INVALID_VALUE, "targetFree", "freed twice");
  targetSetErrorAbort(1);
}

static int teardown(void **state) {
  (void) state;
  targetSetErrorAbort(1);
  return targetFinalize() == TARGET_SUCCESS ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* forking cases first: the parent has not touched the target yet */
      cmocka_unit_test(test_oob_site_past_end),
      cmocka_unit_test(test_oob_negative_site),
      cmocka_unit_test(test_oob_component_all_threads),
      cmocka_unit_test(test_oob_index2_column),
      cmocka_unit_test(test_oob_index2_row),
      cmocka_unit_test(test_reduction_partial_not_listed),
      cmocka_unit_test(test_reduction_op_mismatch),
      cmocka_unit_test(test_block_reduction_bad_block_size),
      cmocka_unit_test(test_exhausted_memory),
      cmocka_unit_test(test_missing_copy_to_target),
      cmocka_unit_test(test_host_pointer_as_target),
      cmocka_unit_test(test_target_pointer_as_host),
      cmocka_unit_test(test_double_free_unknown_free_oversize_copy),
  };
  return cmocka_run_group_tests_name("checked " TARGETDP_CONFIG, tests, NULL, teardown);
}
