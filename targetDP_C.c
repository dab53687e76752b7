/*
 * targetDP_C.c -- the C backend: OpenMP threads and omp simd, or plain
 * serial C when compiled without OpenMP.
 *
 * Memory model: target memory is a separate, 64-byte aligned allocation and
 * the copies are real memcpys, as on a GPU. That costs a copy, but a program
 * that forgets a copyToTarget gives a wrong answer here too, not only on the
 * GPU cluster; and the alignment lets full VVL strides use aligned vector
 * loads.
 */
#define _POSIX_C_SOURCE 200809L /* posix_memalign, sysconf, clock_gettime */
#ifdef __linux__
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#define _GNU_SOURCE     /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <sys/mman.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "targetDP/targetDP_internal.h"

#define ALIGNMENT 64

/* Reductions sum fixed blocks in parallel, then the block sums in order:
 * the result is the same for any number of threads. */
#define REDUCE_BLOCK 8192

static char device_name[128] = "host";

/* Warn when MPI ranks x OpenMP threads on this node exceed its cores: the
 * classic cause of a run that gets 10x slower when OpenMP is switched on. */
static void warn_oversubscription(void) {
#ifdef _OPENMP
  const char *vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"};
  int ranks = 1;
  for (int i = 0; i < 3; i++) {
    if (getenv(vars[i])) {
      ranks = atoi(getenv(vars[i]));
      break;
    }
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = omp_get_max_threads();
  if (ranks > 0 && cores > 0 && (long) ranks * threads > cores && !getenv("TARGETDP_QUIET"))
    fprintf(stderr,
            "targetDP: warning: %d ranks x %d OpenMP threads on %ld cores: oversubscribed; "
            "set OMP_NUM_THREADS=%ld\n",
            ranks, threads, cores, cores / ranks > 0 ? cores / ranks : 1);
#endif
}

/* Warn (once per process) when the CPUs this process may run on are fewer
 * than its OpenMP threads: "mpirun -np 1" binds a rank to one core by
 * default (Open MPI, 2 ranks or fewer), so OMP_NUM_THREADS=2 ran two
 * threads on one core, milc 2.3x slower, while the banner said 2 threads
 * (issue 28). Not where the OpenMP runtime binds threads itself
 * (OMP_PROC_BIND, OMP_PLACES: the initial thread's mask is then its own
 * place, not the process's). */
static void warn_affinity(void) {
#if defined(_OPENMP) && defined(__linux__) && defined(CPU_COUNT)
  static int warned = 0;
  if (warned || getenv("TARGETDP_QUIET") || omp_get_proc_bind() != omp_proc_bind_false) return;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return; /* a mask beyond 1024 CPUs */
  const int cpus = CPU_COUNT(&mask), threads = omp_get_max_threads();
  if (cpus < 1 || cpus >= threads) return;
  warned = 1;
  fprintf(stderr,
          "targetDP: warning: %d OpenMP threads but this process may run on %d CPU%s only "
          "(its affinity mask): the threads share them. Under Open MPI run with "
          "--bind-to none, or --map-by slot:PE=%d (%d cores per rank); under Slurm with "
          "--cpus-per-task=%d; or set OMP_NUM_THREADS=%d\n",
          threads, cpus, cpus == 1 ? "" : "s", threads, threads, threads, cpus);
#endif
}

#if defined(_OPENMP) && defined(__GNUC__)
/* Defined by every object compiled with -fopenmp that includes targetDP.h:
 * a program built without OpenMP flags then fails to link with this name
 * among the GOMP_* ones, which says what is missing. */
extern int targetDP_library_uses_OpenMP__compile_and_link_the_program_with_fopenmp;
#endif

int tdpBackendInit(tdpSite at) {
  (void) at;
#if defined(_OPENMP) && defined(__GNUC__)
  (void) *(volatile int *) &targetDP_library_uses_OpenMP__compile_and_link_the_program_with_fopenmp;
#endif
#ifdef _OPENMP
  snprintf(device_name, sizeof(device_name), "host, %d OpenMP threads", omp_get_max_threads());
#else
  snprintf(device_name, sizeof(device_name), "host, serial");
#endif
  warn_oversubscription();
  warn_affinity();
  if (getenv("TARGETDP_VERBOSE")) {
    const char *from = NULL;
    int rank = tdpLocalRank(&from);
    fprintf(stderr, "targetDP: local rank %d (from %s) runs on the host\n", rank, from);
  }
  return TARGET_SUCCESS;
}

void tdpBackendFinalize(void) {}

const char *tdpBackendDevice(void) { return device_name; }
const char *tdpBackendConfig(void) { return TARGETDP_CONFIG; }

int tdpBackendMalloc(void **t_ptr, size_t nbytes, int zero, int unified, tdpSite at) {
  (void) unified; /* host and target share an address space here */
  void *p = NULL;
  /* A large field on 2 MiB boundaries. Transparent huge pages only when
   * asked (TARGETDP_HUGEPAGE=1; Linux, THP "madvise"): a halo face across
   * the fastest axis (one value per line) then misses the TLB 512 times
   * less, but on the GPU machine's 16-core host (a VM) the corpus's ports
   * ran at half speed on them: one thread, jacobi2d 0.41-0.50x its serial
   * original on huge pages, 1.02-1.14x without; heat3d 1.0-1.3x against
   * 1.4-2.6x (benchmarks/results/h100-38e5b67-hugepages). The serial
   * originals' malloc'd arrays never had them. */
  const size_t huge = (size_t) 2 << 20;
  const size_t align = nbytes >= 4 * huge ? huge : ALIGNMENT;
  if (nbytes > ((size_t) -1) / 4 || posix_memalign(&p, align, nbytes) != 0)
    return tdpFail(TARGET_ERROR_MEMORY, at, "out of memory allocating %zu bytes (%.3g GiB)",
                   nbytes, nbytes / 1073741824.0);
#if defined(MADV_HUGEPAGE)
  const char *hp = getenv("TARGETDP_HUGEPAGE");
  if (align == huge && hp && strcmp(hp, "1") == 0) (void) madvise(p, nbytes, MADV_HUGEPAGE);
#endif
  if (zero) memset(p, 0, nbytes);
  *t_ptr = p;
  return TARGET_SUCCESS;
}

int tdpBackendFree(void *t_ptr, tdpSite at) {
  (void) at;
  free(t_ptr);
  return TARGET_SUCCESS;
}

int tdpBackendCopy(void *dst, const void *src, size_t nbytes, int to_target, tdpSite at) {
  (void) to_target;
  (void) at;
  memcpy(dst, src, nbytes);
  return TARGET_SUCCESS;
}

int tdpBackendCopyConst(void *t_symbol, const void *src, size_t nbytes, tdpSite at) {
  (void) at;
  memcpy(t_symbol, src, nbytes);
  return TARGET_SUCCESS;
}

/* Element moves: one implementation over the element size, which is 4, 8
 * or 16 (checked by the common half). A memcpy of a constant size compiles
 * to one load and one store; the switch picks the size once per call. */
typedef struct {
  uint64_t w[2];
} tdpE16_;
#define TDP_BY_SIZE_(esz, ...)          \
  do {                                   \
    switch (esz) {                       \
    case 4: { typedef uint32_t E; __VA_ARGS__ } break; \
    case 8: { typedef uint64_t E; __VA_ARGS__ } break; \
    default: { typedef tdpE16_ E; __VA_ARGS__ } break; \
    }                                    \
  } while (0)

int tdpBackendSetConstant(void *t_a, const void *value, size_t esz, size_t n, tdpSite at) {
  (void) at;
  TDP_BY_SIZE_(esz, {
    E v;
    E *a = (E *) t_a;
    memcpy(&v, value, sizeof(E));
    TDP_OMP_(parallel for schedule(static))
    for (size_t i = 0; i < n; i++) a[i] = v;
  });
  return TARGET_SUCCESS;
}

int tdpBackendCopySites(void *dst, const void *src, long nsites, long ncomp, size_t esz,
                        const long *sites, long nlist, int to_target, tdpSite at) {
  (void) nsites; /* not every layout needs it */
  (void) to_target;
  (void) at;
  TDP_BY_SIZE_(esz, {
    E *d = (E *) dst;
    const E *sr = (const E *) src;
    TDP_OMP_(parallel for schedule(static))
    for (long k = 0; k < nlist; k++) {
      for (long c = 0; c < ncomp; c++) {
        size_t i = TDP_INDEX(nsites, ncomp, sites[k], c);
        d[i] = sr[i];
      }
    }
  });
  return TARGET_SUCCESS;
}

/* A NaN? (double) of an integer is never one, and the compilers know it:
 * the test folds away for the integer types (gcc 12, clang 14). */
static inline int is_nan(double y) { return y != y; }

/* Min and max propagate a NaN (issue 25 item 3, as the sum and the CUDA
 * backend do): the simd loop keeps OpenMP's min/max, which may drop a NaN
 * (unspecified), and ORs a NaN flag beside it; a block that has a NaN
 * gives its first NaN, and the combine of the blocks keeps it. */
#define REDUCE_MINMAX_LOOP_(A, acc, t_a, lo, hi, cmp, op, stride)                \
  TDP_OMP_SIMD_(reduction(op:acc) reduction(|:nan_))                             \
  for (size_t i = lo; i < hi; i++) {                                             \
    A x_ = (A) (t_a)[i * (stride)];                                              \
    acc = x_ cmp acc ? x_ : acc;                                                 \
    nan_ |= is_nan((double) x_);                                                 \
  }
/* Stride 1 apart: with the stride a run-time value gcc 12 kept the loop
 * scalar, 5.7x slower in L2 (43 against 7.6 us for 32768 doubles, 1
 * thread, benchmarks/run_reduce.sh). */
#define REDUCE_MINMAX_(A, acc, t_a, lo, hi, cmp, op, stride)                     \
  do {                                                                           \
    int nan_ = 0;                                                                \
    if ((stride) == 1) {                                                         \
      REDUCE_MINMAX_LOOP_(A, acc, t_a, lo, hi, cmp, op, 1)                       \
    } else {                                                                     \
      REDUCE_MINMAX_LOOP_(A, acc, t_a, lo, hi, cmp, op, stride)                  \
    }                                                                            \
    for (size_t i = lo; nan_ && i < hi; i++)                                     \
      if (is_nan((double) (A) (t_a)[i * (stride)])) {                            \
        acc = (A) (t_a)[i * (stride)];                                           \
        nan_ = 0;                                                                \
      }                                                                          \
  } while (0)

/* op is TDP_SUM, TDP_MIN or TDP_MAX; A the accumulator type; every stride-th
 * element of t_a. */
#define REDUCE_AT_(A, res, t_a, n, op, stride)                                           \
  do {                                                                          \
    size_t nblocks = ((n) + REDUCE_BLOCK - 1) / REDUCE_BLOCK;                   \
    A *part = (A *) calloc(nblocks, sizeof(A)); /* calloc: no maybe-uninit */ \
    if (!part) return tdpFail(TARGET_ERROR_MEMORY, at, "no memory for partials"); \
    TDP_OMP_(parallel for schedule(static))                               \
    for (size_t b = 0; b < nblocks; b++) {                                      \
      size_t lo = b * REDUCE_BLOCK, hi = lo + REDUCE_BLOCK < (n) ? lo + REDUCE_BLOCK : (n); \
      A acc = (A) (t_a)[lo * (stride)];                                                    \
      if ((op) == TDP_SUM) {                                                    \
        A s = 0;                                                                \
        TDP_OMP_SIMD_(reduction(+:s))                                     \
        for (size_t i = lo; i < hi; i++) s += (A) (t_a)[i * (stride)];                     \
        acc = s;                                                                \
      } else if ((op) == TDP_MIN) {                                             \
        REDUCE_MINMAX_(A, acc, t_a, lo, hi, <, min, stride);                    \
      } else {                                                                  \
        REDUCE_MINMAX_(A, acc, t_a, lo, hi, >, max, stride);                    \
      }                                                                         \
      part[b] = acc;                                                            \
    }                                                                           \
    A r = part[0];                                                              \
    for (size_t b = 1; b < nblocks; b++) {                                      \
      if ((op) == TDP_SUM) r += part[b];                                        \
      else if ((op) == TDP_MIN) r = part[b] < r || is_nan((double) part[b]) ? part[b] : r; \
      else r = part[b] > r || is_nan((double) part[b]) ? part[b] : r;          \
    }                                                                           \
    *(res) = r;                                                                 \
    free(part);                                                                 \
  } while (0)

/* A complex sum is the sums of its real and imaginary parts: two strided
 * real reductions, in the same fixed order as the real types. */
#define REDUCE_STRIDED_(T, A, R, res, t_a, n, op, stride)                  \
  do {                                                                      \
    A r_;                                                                   \
    const T *a_ = (const T *) (t_a);                                        \
    size_t st_ = (stride);                                                  \
    REDUCE_AT_(A, &r_, a_, (n), (op), st_);                                 \
    *(R *) (res) = (R) r_;                                                  \
  } while (0)

int tdpBackendReduce(void *res, const void *t_a, size_t n, tdpType type, tdpReduceOp op,
                     tdpSite at) {
  switch (type) {
  case TDP_TYPE_INT: REDUCE_STRIDED_(int, long long, long long, res, t_a, n, op, 1); break;
  case TDP_TYPE_LONG: REDUCE_STRIDED_(long, long, long, res, t_a, n, op, 1); break;
  case TDP_TYPE_FLOAT: REDUCE_STRIDED_(float, double, float, res, t_a, n, op, 1); break;
  case TDP_TYPE_DOUBLE: REDUCE_STRIDED_(double, double, double, res, t_a, n, op, 1); break;
  case TDP_TYPE_DOUBLE_COMPLEX:
    REDUCE_STRIDED_(double, double, double, res, t_a, n, op, 2);
    REDUCE_STRIDED_(double, double, double, (double *) res + 1, (const double *) t_a + 1, n, op, 2);
    break;
  case TDP_TYPE_FLOAT_COMPLEX:
    REDUCE_STRIDED_(float, double, float, res, t_a, n, op, 2);
    REDUCE_STRIDED_(float, double, float, (float *) res + 1, (const float *) t_a + 1, n, op, 2);
    break;
  }
  return TARGET_SUCCESS;
}

int tdpBackendConvert(void *t_dst, const void *t_src, long nsites, long ncomp, size_t esz,
                      int aos2soa, tdpSite at) {
  (void) at;
  TDP_BY_SIZE_(esz, {
    E *d = (E *) t_dst;
    const E *sr = (const E *) t_src;
    TDP_OMP_(parallel for schedule(static))
    for (long s = 0; s < nsites; s++) {
      for (long c = 0; c < ncomp; c++) {
        size_t aos = (size_t) s * ncomp + c, soa = (size_t) c * nsites + s;
        if (aos2soa) d[soa] = sr[aos];
        else d[aos] = sr[soa];
      }
    }
  });
  return TARGET_SUCCESS;
}

int tdpBackendLaunchCheck(const char *kernel, tdpSite at) {
  (void) kernel; /* a function call cannot fail to launch */
  (void) at;
  return TARGET_SUCCESS;
}

int tdpBackendSynchronize(tdpSite at) {
  (void) at; /* kernels are synchronous function calls here */
  return TARGET_SUCCESS;
}

/* ---------------------------------------------------------------------- */
/* Constants are plain globals here: their address is the target address. */

int tdpBackendCopyConstFrom(void *dst, const void *t_symbol, size_t nbytes, tdpSite at) {
  (void) at;
  memcpy(dst, t_symbol, nbytes);
  return TARGET_SUCCESS;
}

int tdpBackendCopyConstFromArray(void *t_symbol, const void *t_src, size_t nbytes, tdpSite at) {
  (void) at;
  memcpy(t_symbol, t_src, nbytes);
  return TARGET_SUCCESS;
}

int tdpBackendConstAddress(void **t_ptr, const void *t_symbol, tdpSite at) {
  (void) at;
  *t_ptr = (void *) t_symbol;
  return TARGET_SUCCESS;
}

int tdpBackendCopyTargetToTarget(void *t_dst, const void *t_src, size_t nbytes, tdpSite at) {
  (void) at;
  memcpy(t_dst, t_src, nbytes);
  return TARGET_SUCCESS;
}

/* Profiling: kernels are synchronous calls, the wall clock times them. */
#define PROFILE_DEPTH 16
static double prof_t0[PROFILE_DEPTH];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void tdpBackendProfileStart(int depth, const char *name) {
  (void) name;
  if (depth >= 0 && depth < PROFILE_DEPTH) prof_t0[depth] = now();
}

double tdpBackendProfileStop(int depth) {
  return depth >= 0 && depth < PROFILE_DEPTH ? now() - prof_t0[depth] : 0.0;
}

/* Asynchronous layer. Every operation finishes before its call returns,
 * so a stream runs in order and an event is complete once recorded. The
 * native handles only need to be distinct non-NULL pointers. */

static char stream_token;

int tdpBackendStreamCreate(void **native, targetStreamPriority_t priority, tdpSite at) {
  (void) priority;
  (void) at;
  *native = &stream_token;
  return TARGET_SUCCESS;
}
int tdpBackendStreamDestroy(void *native, tdpSite at) {
  (void) native;
  (void) at;
  return TARGET_SUCCESS;
}
int tdpBackendStreamSynchronize(void *native, tdpSite at) {
  (void) native;
  (void) at;
  return TARGET_SUCCESS;
}
/* An event holds the time it was recorded at (the work before it is done
 * by then): targetEventElapsed is the difference. */
int tdpBackendEventCreate(void **native, int timed, tdpSite at) {
  (void) timed;
  double *t = (double *) calloc(1, sizeof(double));
  if (!t) return tdpFail(TARGET_ERROR_MEMORY, at, "no host memory for an event");
  *native = t;
  return TARGET_SUCCESS;
}
int tdpBackendEventDestroy(void *native, tdpSite at) {
  (void) at;
  free(native);
  return TARGET_SUCCESS;
}
int tdpBackendEventRecord(void *event, void *stream, tdpSite at) {
  (void) stream;
  (void) at;
  *(double *) event = now();
  return TARGET_SUCCESS;
}
int tdpBackendEventElapsed(double *seconds, void *start, void *stop, tdpSite at) {
  (void) at;
  *seconds = *(double *) stop - *(double *) start;
  return TARGET_SUCCESS;
}
int tdpBackendStreamWaitEvent(void *stream, void *event, tdpSite at) {
  (void) stream;
  (void) event;
  (void) at;
  return TARGET_SUCCESS;
}
int tdpBackendEventSynchronize(void *event, tdpSite at) {
  (void) event;
  (void) at;
  return TARGET_SUCCESS;
}

int tdpBackendCopyAsync(void *dst, const void *src, size_t nbytes, tdpCopyKind_ kind,
                        void *stream, tdpSite at) {
  (void) kind;
  (void) stream;
  (void) at;
  memcpy(dst, src, nbytes);
  return TARGET_SUCCESS;
}

int tdpBackendMallocHost(void **p, size_t nbytes, tdpSite at) {
  return tdpBackendMalloc(p, nbytes, 0, 0, at); /* aligned host memory */
}
int tdpBackendFreeHost(void *p, tdpSite at) { return tdpBackendFree(p, at); }

int tdpBackendIpcAvailable(void) { return 0; }
/* Not reached: the common half refuses IPC calls when unavailable. */
int tdpBackendIpcGetHandle(unsigned char bytes[64], void *t_base, tdpSite at) {
  (void) bytes;
  (void) t_base;
  return tdpFail(TARGET_ERROR_NOT_AVAILABLE, at, "no CUDA IPC on the C backend");
}
int tdpBackendIpcOpenHandle(void **t_base, const unsigned char bytes[64], tdpSite at) {
  (void) t_base;
  (void) bytes;
  return tdpFail(TARGET_ERROR_NOT_AVAILABLE, at, "no CUDA IPC on the C backend");
}
int tdpBackendIpcCloseHandle(void *t_base, tdpSite at) {
  (void) t_base;
  return tdpFail(TARGET_ERROR_NOT_AVAILABLE, at, "no CUDA IPC on the C backend");
}

/* Stream-ordered flags on memory another process shares (an MPI shared
 * window): the work before a write is done when the call comes (every
 * operation finishes before its call returns; an OpenMP kernel's threads
 * joined), so a release store after a full fence publishes it; a wait
 * spins with acquire loads, yielding the core (ranks may share cores).
 * A peer that never writes is an error after TARGETDP_FLAG_TIMEOUT
 * seconds (default 120), not a hang. */
int tdpBackendFlagsAvailable(void) { return 1; }

int tdpBackendStreamFlag(uint32_t *flag, uint32_t value, int wait, void *stream, tdpSite at) {
  (void) stream;
  if (!wait) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(flag, value, __ATOMIC_RELEASE);
    return TARGET_SUCCESS;
  }
  const char *env = getenv("TARGETDP_FLAG_TIMEOUT");
  const double limit = env && atof(env) > 0 ? atof(env) : 120.0, t0 = now();
  for (unsigned long spin = 0;; spin++) {
    const uint32_t v = __atomic_load_n(flag, __ATOMIC_ACQUIRE);
    if ((int32_t) (v - value) >= 0) break;
    if (spin % 1024 == 1023) {
      sched_yield();
      if (now() - t0 > limit)
        return tdpFail(TARGET_ERROR_DEVICE, at,
                       "flag %p still %u after %.0f s waiting for %u (a peer stopped or "
                       "exchanges out of step; TARGETDP_FLAG_TIMEOUT)",
                       (void *) flag, (unsigned) v, limit, (unsigned) value);
    }
  }
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return TARGET_SUCCESS;
}
int tdpBackendDeviceCount(void) { return 0; }
int tdpBackendDeviceId(void) { return -1; }
