/*
 * targetDP_team.h -- teams: a second level of parallelism. A launch runs a
 * league of teams; a team is a group of threads (each with vector lanes)
 * that share a scratch memory, wait for each other at a barrier and
 * reduce together. What it holds: the public team API (first section),
 * then each backend's part (C: OpenMP; CUDA). What it may use: the loop,
 * pragma and reduction machinery of targetDP.h and the checks of
 * targetDP_team.c / targetDP_team_C.c / targetDP_team_CUDA.cu. Included by
 * targetDP.h (never on its own). Documentation: docs/api.md, "Teams".
 *
 * The model is Kokkos's TeamPolicy (league of teams, TeamThreadRange,
 * ThreadVectorRange, team scratch, team_barrier, team reductions) written
 * in targetDP's style: loops are macros over a for statement, everything
 * else plain inline functions. One team is
 *   CUDA: one thread block of nthreads x nlanes threads, blockDim =
 *         (nlanes, nthreads): a thread's lanes are neighbours in a warp;
 *         scratch is dynamic shared memory; the barrier is __syncthreads.
 *   C:    one OpenMP thread (teams are shared out over the threads), its
 *         nthreads team threads run one after the other and its lanes are
 *         `omp simd` lanes; scratch is a buffer per OpenMP thread; the
 *         barrier is nothing (a team is one thread: nothing to wait for).
 *         Why one thread, not a group of OpenMP threads with an `omp
 *         barrier`: docs/performance.md, "Teams on the CPU" (a tiled
 *         contraction does one barrier per 16-deep tile; a thread barrier
 *         costs ~1 us, the tile's arithmetic less).
 * Code that is right on one is right on the other if it keeps to the rules
 * of docs/api.md: a value that must outlive a barrier lives in scratch or
 * in TDP_TEAM_PRIVATE storage; no barrier inside a thread, vector or
 * each-thread loop (a compile error, below); iterations of a range loop do
 * not depend on each other.
 *
 * Public names (the loop or call each stands for; "in parallel" = the
 * iterations are shared out, in any order):
 *
 *   TDP_TEAM_KERNEL(maxthreads)   qualifier of a team kernel whose teams have
 *                                 at most maxthreads x lanes threads
 *                                 (__global__ __launch_bounds__ on CUDA)
 *   TDP_LAUNCH_TEAMS(kernel, nteams, nthreads, nlanes, scratch_bytes, args...)
 *                                 run kernel(args...) as nteams teams of
 *                                 nthreads threads of nlanes lanes, each team
 *                                 with scratch_bytes of scratch memory
 *   TDP_TEAMS(team, nteams)       for (long team = 0; team < nteams; team++)
 *                                 in parallel, one team per iteration
 *   TDP_TEAM_SIZE(), TDP_TEAM_LANES()   nthreads and nlanes of the launch
 *   TDP_TEAM_EACH(t)              for (int t = 0; t < TDP_TEAM_SIZE(); t++)
 *                                 each t by team thread t (its rank)
 *   TDP_TEAM_THREADS(i, n)        for (int i = 0; i < n; i++) in parallel over
 *                                 the team's threads (TeamThreadRange)
 *   TDP_TEAM_VECTOR(j, n)         for (int j = 0; j < n; j++) in parallel over
 *                                 the thread's lanes (ThreadVectorRange)
 *   TDP_TEAM_RANGE(i, n)          for (int i = 0; i < n; i++) in parallel over
 *                                 every thread and lane (TeamVectorRange)
 *   TDP_TEAM_THREADS_SUM(i, n, v) (MIN, MAX)  the thread loop, then
 *                                 v = v0 + (sum of what the body added to v),
 *                                 in every thread of the team
 *   TDP_TEAM_VECTOR_SUM(j, n, v)  (MIN, MAX)  the same over the lanes
 *   TDP_TEAM_BARRIER()            wait for every thread of the team
 *   TDP_TEAM_SCRATCH(T, a, n)     T *a: n elements of the team's scratch
 *   TDP_TEAM_SCRATCH2(T, a, n1, n2)  n1 x n2 elements, row-major
 *   TDP_SCR(a, i), TDP_SCR2(a, i, j)  a[i], a[i * n2 + j] (bounds-checked in
 *                                 a checked build)
 *   TDP_SCRATCH_BYTES(T, n)       bytes one TDP_TEAM_SCRATCH of n T's takes
 *   TDP_TEAM_PRIVATE(T, a, maxthreads, n)  n values of T per team thread that
 *                                 survive barriers (registers on CUDA)
 *   TDP_PRIV(a, t, k)             value k of team thread t's (inside EACH(t))
 *   TDP_TEAM_ONE_LANE             the next statement by one lane of the
 *                                 thread (Kokkos single(PerThread))
 *   TDP_TEAM_ONE_THREAD           the next statement by one thread of the
 *                                 team (Kokkos single(PerTeam))
 *
 * Extents: nteams is long; a team's ranges count in int (a team's work is
 * below 2^31 items: more is refused with file:line).
 */
#ifndef TARGETDP_H
#error "targetDP_team.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_TEAM_H
#define TARGETDP_TEAM_H

/* ---------------------------------------------------------------------- */
/* Host part, both backends (targetDP_team*.c, .cu). */

#ifdef __cplusplus
extern "C" {
#endif
/* Checks a team launch (and, on CUDA, raises the kernel's dynamic shared
 * memory limit when scratch_bytes needs it; on C, sets up the per-thread
 * scratch buffers and marks the launch as a team launch for TDP_TEAMS).
 * func: the kernel (CUDA) or NULL. Returns TARGET_SUCCESS or the error. */
int tdpTeamLaunchBegin_(const void *func, const char *kernel, long nteams, long nthreads,
                        long nlanes, size_t scratch_bytes, const char *f, int l);
void tdpTeamLaunchEnd_(void); /* C: the team launch is over */
/* The checks both backends share: threads_max and scratch_max are what the
 * kernel and device allow (why_*: how the limit arises, for the message). */
int tdpTeamCheck_(const char *kernel, long nteams, long nthreads, long nlanes,
                  size_t scratch_bytes, long threads_max, const char *why_threads,
                  size_t scratch_max, const char *why_scratch, const char *f, int l);
void tdpTeamFinalize_(void); /* targetFinalize: the C backend's scratch buffers */
#ifdef __cplusplus
}
#endif

/* Bytes a TDP_TEAM_SCRATCH of n elements of T takes: every allocation
 * starts 16-byte aligned (a double2 can live there), so each one is
 * rounded up to 16 bytes. The scratch_bytes of a launch is the sum over
 * the kernel's allocations. */
static TDP_HD_ inline size_t tdpScratchBytes_(size_t nbytes) { return (nbytes + 15) & ~(size_t) 15; }
#define TDP_SCRATCH_BYTES(T, n) tdpScratchBytes_((size_t) (n) * sizeof(T))

/* The C backend's largest team scratch: the H100's per-block shared memory
 * limit (227 KB), so that a program that runs on the CPU fits the GPU too.
 * -DTDP_TEAM_SCRATCH_MAX=bytes for more on a CPU-only code. */
#ifndef TDP_TEAM_SCRATCH_MAX
#define TDP_TEAM_SCRATCH_MAX (227 * 1024)
#endif

/* Where a team loop may be. TDP_TEAMS declares tdp_in_team_ an int; every
 * loop inside a team body declares its own tdp_in_team_ of the struct type
 * below. Constructs that need every thread of the team (a barrier, a
 * thread loop, a team reduction, scratch allocation) pass tdp_in_team_ to
 * tdpTeamTop_, which takes an int: outside a team body that is an
 * undeclared name, inside a thread/vector/each loop a type error naming
 * the struct -- both compile errors at the misuse's file:line, on every
 * compiler, instead of a barrier that only some threads reach (a hang or
 * undefined behaviour on a GPU). */
typedef struct {
  int zero_;
} tdp_TEAM_BARRIER_or_team_loop_inside_a_thread_vector_or_each_loop_;
typedef tdp_TEAM_BARRIER_or_team_loop_inside_a_thread_vector_or_each_loop_ tdpTeamInLoop_;
static TDP_HD_ inline int tdpTeamTop_(int in_team) { return in_team - 1; /* 0 */ }

/* A loop body that notices `break` (a range loop is parallel: there is no
 * rest of it to skip) and stops with its file:line; without a break the
 * pair folds away. decl declares this level's tdp_in_team_, `live` reads it
 * (true; a variable that is only set draws nvcc's warning 550). */
#define TDP_TEAM_NOBREAK_(decl, live)                                                 \
  for (int tdp_tst_ = 0; tdp_tst_ < 2;                                                \
       tdp_tst_ = tdpTeamNoBreak_(tdp_tst_, __FILE__, __LINE__))                      \
    for (decl; (live) && tdp_tst_ == 0; tdp_tst_ = 2)
#define TDP_TEAM_IN_LOOP_ \
  TDP_TEAM_NOBREAK_(tdpTeamInLoop_ tdp_in_team_ = {0}, tdp_in_team_.zero_ == 0)

/* ---------------------------------------------------------------------- */
#ifdef __CUDACC__ /* CUDA: a team is a thread block */

#define TDP_TEAM_KERNEL(maxthreads) __global__ __launch_bounds__(maxthreads)

/* Errors inside a kernel: __assert_fail (the device side of assert())
 * prints the message with the file and line and stops the kernel, which
 * the next targetSynchronize reports ("device-side assert triggered"). Its
 * arguments are constants, so unlike printf it costs no stack frame. The
 * __trap after it tells the compiler that nothing comes back from the
 * call: without it every value live across the (never taken) call had to
 * survive it, and the team kernels of targetDP_contract.c took 60 and 42
 * registers instead of 38 and 31 (native CUDA versions: 32 and 25). */
#include <assert.h>
#define TDP_TEAM_FAIL_(msg, file, line) \
  (__assert_fail("targetDP: " msg, file, (unsigned int) (line), __func__), __trap())

static __device__ inline int tdpTeamNoBreak_(int st, const char *file, int line) {
  if (st != 2) TDP_TEAM_FAIL_("break in a team loop: a parallel loop cannot be left early",
                              file, line);
  return st;
}

/* Per team: the scratch allocated so far. */
typedef struct {
  int once;
  unsigned int off;
  long last; /* the last team */
} tdpTeam_;
/* A block is one team: team = blockIdx.y * gridDim.x + blockIdx.x (the
 * launch makes a second grid dimension only past 2^31 - 1 teams). No loop
 * over teams: a grid-stride loop kept its index, bound and stride in
 * registers for the whole kernel (targetContract's dot-per-row kernel: 48
 * registers with it, 42 without; 25 by hand). */
static __device__ inline tdpTeam_ tdpTeamStart_(long nteams, const char *file, int line) {
  /* TDP_LAUNCH makes one-dimensional blocks of TARGET_TPB >= 32 threads;
   * a team launch never has more than 32 lanes. */
  if (blockDim.x > 32 || (blockDim.x & (blockDim.x - 1)))
    TDP_TEAM_FAIL_("TDP_TEAMS in a kernel not launched by TDP_LAUNCH_TEAMS", file, line);
  /* more teams than the launch's: some would never run */
  if (nteams > (long) gridDim.x * gridDim.y)
    TDP_TEAM_FAIL_("TDP_TEAMS(team, nteams) with more teams than its TDP_LAUNCH_TEAMS launched",
                   file, line);
  tdpTeam_ t = {1, 0u, nteams - 1};
  return t;
}
#define TDP_TEAMS(team, nteams)                                                          \
  for (tdpTeam_ tdp_team_ = tdpTeamStart_((long) (nteams), __FILE__, __LINE__);          \
       tdp_team_.once; tdp_team_.once = 0)                                               \
    for (long team = (long) blockIdx.y * gridDim.x + blockIdx.x; team <= tdp_team_.last; \
         team = tdp_team_.last + 1)                                                      \
      TDP_TEAM_NOBREAK_(int tdp_in_team_ = 1, tdp_in_team_ == 1)

#define TDP_TEAM_SIZE() ((void) tdp_team_, (int) blockDim.y)
#define TDP_TEAM_LANES() ((void) tdp_team_, (int) blockDim.x)

/* A range's count as an int (a team's ranges are below 2^31). */
static __device__ inline int tdpTeamCount_(long n, const char *file, int line) {
  if (n > 2147483647L)
    TDP_TEAM_FAIL_("a team range of 2^31 or more items (team ranges count in int)", file, line);
  return (int) n;
}

#define TDP_TEAM_EACH(t)                                                                 \
  for (int t = (int) threadIdx.y + tdpTeamTop_(tdp_in_team_), TDP_CAT_(tdp_o_, t) = 1;   \
       TDP_CAT_(tdp_o_, t); TDP_CAT_(tdp_o_, t) = 0)                                     \
    TDP_TEAM_IN_LOOP_
#define TDP_TEAM_STRIDED_(i, n, first, stride)                                           \
  for (int TDP_CAT_(tdp_n_, i) = tdpTeamCount_((long) (n), __FILE__, __LINE__),          \
           i = (int) (first);                                                            \
       i < TDP_CAT_(tdp_n_, i); i += (int) (stride))                                     \
    TDP_TEAM_IN_LOOP_
#define TDP_TEAM_THREADS(i, n) \
  TDP_TEAM_STRIDED_(i, n, threadIdx.y + tdpTeamTop_(tdp_in_team_), blockDim.y)
#define TDP_TEAM_VECTOR(j, n) TDP_TEAM_STRIDED_(j, n, threadIdx.x, blockDim.x)
#define TDP_TEAM_RANGE(i, n)                                                             \
  TDP_TEAM_STRIDED_(i, n, threadIdx.y * blockDim.x + threadIdx.x + tdpTeamTop_(tdp_in_team_), \
                    blockDim.x * blockDim.y)

/* Team reductions. Each thread's lanes hold the same partial (a thread
 * body runs in every lane), so the reduction runs over the threads: a
 * butterfly over the warp's lane bits >= log2(lanes), one value per warp
 * through shared memory, then every thread combines the warps' values in
 * the same order (the same result, bit for bit, in every thread). The
 * barrier before the write: the previous call's readers are done. The
 * shared array belongs to the instantiation (op, type). */
template <tdpReduceOp op, typename T> static __device__ inline T tdpTeamReduce_(T v) {
  __shared__ T tdp_warp_[32];
  const unsigned int nl = blockDim.x, lin = threadIdx.y * nl + threadIdx.x;
  const unsigned int nwarp = (blockDim.x * blockDim.y + 31) / 32;
  for (unsigned int off = 16; off >= nl; off /= 2)
    v = tdpCombine_<op>(v, __shfl_xor_sync(0xffffffffu, v, off));
  __syncthreads();
  if (lin % 32 == 0) tdp_warp_[lin / 32] = v;
  __syncthreads();
  T r = tdp_warp_[0];
  for (unsigned int w = 1; w < nwarp; w++) r = tdpCombine_<op>(r, tdp_warp_[w]);
  return r;
}
/* Over one thread's lanes (a group of nlanes neighbours in a warp, all of
 * which run the loop together): a butterfly inside the group. */
template <tdpReduceOp op, typename T> static __device__ inline T tdpVectorReduce_(T v) {
  const unsigned int nl = blockDim.x;
  if (nl == 1) return v;
  const unsigned int lane = (threadIdx.y * nl + threadIdx.x) % 32;
  const unsigned int mask = nl == 32 ? 0xffffffffu : ((1u << nl) - 1u) << (lane & ~(nl - 1u));
  for (unsigned int off = nl / 2; off > 0; off /= 2)
    v = tdpCombine_<op>(v, __shfl_xor_sync(mask, v, off, (int) nl));
  return v;
}
/* v0 before the loop; v starts from the identity (sum: 0; min/max: v0,
 * which changes nothing), so each thread's partial is only its own part. */
template <tdpReduceOp op, typename T> static __device__ inline T tdpRedStart_(T *v) {
  T v0 = *v;
  if (op == TDP_SUM) *v = (T) 0;
  return v0;
}
template <tdpReduceOp op, typename T>
static __device__ inline T tdpRedEnd_(T v0, T partial, int team) {
  T r = team ? tdpTeamReduce_<op>(partial) : tdpVectorReduce_<op>(partial);
  return tdpCombine_<op>(v0, r);
}
/* loop: the range loop; the outer once-loop's third clause runs the
 * reduction after it (every thread, the same number of times). */
#define TDP_TEAM_REDUCE_(op, isteam, v, loop)                                             \
  for (int tdp_ro_ = 1; tdp_ro_; tdp_ro_ = 0)                                            \
    for (auto tdp_v0_ = tdpRedStart_<op>(&(v)); tdp_ro_;                                 \
         tdp_ro_ = 0, (v) = tdpRedEnd_<op>(tdp_v0_, (v), isteam))                          \
  loop
#define TDP_TEAM_THREADS_SUM(i, n, v) TDP_TEAM_REDUCE_(TDP_SUM, 1, v, TDP_TEAM_THREADS(i, n))
#define TDP_TEAM_THREADS_MIN(i, n, v) TDP_TEAM_REDUCE_(TDP_MIN, 1, v, TDP_TEAM_THREADS(i, n))
#define TDP_TEAM_THREADS_MAX(i, n, v) TDP_TEAM_REDUCE_(TDP_MAX, 1, v, TDP_TEAM_THREADS(i, n))
#define TDP_TEAM_VECTOR_SUM(j, n, v) TDP_TEAM_REDUCE_(TDP_SUM, 0, v, TDP_TEAM_VECTOR(j, n))
#define TDP_TEAM_VECTOR_MIN(j, n, v) TDP_TEAM_REDUCE_(TDP_MIN, 0, v, TDP_TEAM_VECTOR(j, n))
#define TDP_TEAM_VECTOR_MAX(j, n, v) TDP_TEAM_REDUCE_(TDP_MAX, 0, v, TDP_TEAM_VECTOR(j, n))

#define TDP_TEAM_BARRIER() ((void) tdpTeamTop_(tdp_in_team_), __syncthreads())

/* Scratch: dynamic shared memory, handed out in order (its size, from the
 * launch, is in the %dynamic_smem_size register). */
static __device__ inline unsigned int tdpDynSmem_(void) {
  unsigned int n;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
  return n;
}
static __device__ inline void *tdpTeamAlloc_(tdpTeam_ *tm, int top, size_t nbytes,
                                             const char *file, int line) {
  extern __shared__ __align__(16) unsigned char tdp_team_smem_[];
  (void) top;
  const size_t off = tm->off, end = off + tdpScratchBytes_(nbytes);
  if (end > tdpDynSmem_())
    TDP_TEAM_FAIL_("TDP_TEAM_SCRATCH: the team's scratch allocations need more than the "
                   "scratch_bytes of its TDP_LAUNCH_TEAMS", file, line);
  tm->off = (unsigned int) end;
  return tdp_team_smem_ + off;
}

/* TDP_TEAM_ONE_LANE: lane 0 of the thread; TDP_TEAM_ONE_THREAD: thread 0
 * of the team (lane 0). */
#define TDP_TEAM_ONE_LANE_COND_() (threadIdx.x == 0)
#define TDP_TEAM_ONE_THREAD_COND_() (threadIdx.x == 0 && threadIdx.y == 0)

/* Private: registers (one row: this thread's). */
#define TDP_TEAM_PRIVATE(T, a, maxthreads, n)                                            \
  T a[n];                                                                                \
  tdpTeamPrivCheck_(TDP_TEAM_SIZE(), (maxthreads), __FILE__, __LINE__)
/* A team (a block) has at most 1024 threads: with maxthreads 1024 the
 * check cannot fail and folds away. It matters: the failure path's call
 * cost tdpContractTiled_ 6 registers (38 against 32; the hand-written
 * kernel 32), and with them a fifth of its blocks per SM at 64 threads. */
static __device__ inline void tdpTeamPrivCheck_(int nthreads, int maxthreads, const char *file,
                                                int line) {
  if (maxthreads < 1024 && nthreads > maxthreads)
    TDP_TEAM_FAIL_("TDP_TEAM_PRIVATE sized for fewer threads than the team has", file, line);
}

/* One block per team: up to 2^31 - 1 in x, then rows of them in y. */
static inline dim3 tdpTeamGrid_(long nteams) {
  const long x = nteams < 2147483647L ? nteams : 2147483647L;
  return dim3((unsigned int) x, (unsigned int) ((nteams + x - 1) / x));
}
/* TDP_LAUNCH_TEAMS: kernel<<<teams, (nlanes, nthreads), scratch>>>(args),
 * after the checks (and the shared memory attribute) of
 * tdpTeamLaunchBegin_; no launch at all for 0 teams. Each argument of the
 * macro is evaluated once. */
#define TDP_LAUNCH_TEAMS(kernel, nteams, nthreads, nlanes, scratch_bytes, ...)             \
  do {                                                                                     \
    const long tdp_lt_n_ = (nteams), tdp_lt_t_ = (nthreads), tdp_lt_l_ = (nlanes);         \
    const size_t tdp_lt_s_ = (scratch_bytes);                                              \
    if (tdpTeamLaunchBegin_((const void *) kernel, #kernel, tdp_lt_n_, tdp_lt_t_, tdp_lt_l_, \
                            tdp_lt_s_, __FILE__, __LINE__) == TARGET_SUCCESS &&            \
        tdp_lt_n_ > 0) {                                                                   \
      TDP_PROFILE_START_(#kernel);                                                         \
      kernel<<<tdpTeamGrid_(tdp_lt_n_), dim3((unsigned int) tdp_lt_l_, (unsigned int) tdp_lt_t_), \
               tdp_lt_s_>>>(__VA_ARGS__);                                                  \
      tdpLaunchCheck_(#kernel, __FILE__, __LINE__);                                         \
      TDP_PROFILE_STOP_(#kernel);                                                          \
    }                                                                                      \
  } while (0)

#else /* C backend: a team is one OpenMP thread */

#define TDP_TEAM_KERNEL(maxthreads)

#ifdef __cplusplus
extern "C" {
#endif
/* The current team launch (set by TDP_LAUNCH_TEAMS around the kernel call;
 * kernels run on the launching thread, so one at a time). */
typedef struct {
  int active;
  int nthreads, nlanes;
  long nteams;            /* launched */
  size_t scratch, stride; /* bytes per team, and between threads' buffers */
  char *buf;              /* one buffer per OpenMP thread */
} tdpTeamLaunch_;
extern tdpTeamLaunch_ tdpTeamNow_;
char *tdpTeamThreadScratch_(void); /* this OpenMP thread's scratch buffer */
void tdpTeamFail_(const char *what, const char *file, int line); /* prints, exit(1), once */
#ifdef __cplusplus
}
#endif

static inline int tdpTeamNoBreak_(int st, const char *file, int line) {
  if (st != 2) tdpTeamFail_("break in a team loop: a parallel loop cannot be left early", file, line);
  return st;
}

typedef struct {
  int once;
  int nthreads, nlanes;
  long league; /* the number of teams */
  char *base;        /* this OpenMP thread's scratch */
  size_t off, bytes; /* handed out so far, and the launch's scratch_bytes */
} tdpTeam_;
/* Per OpenMP thread, at the start of the team loop. */
static inline tdpTeam_ tdpTeamThread_(long nteams, const char *file, int line) {
  tdpTeam_ t;
  if (!tdpTeamNow_.active)
    tdpTeamFail_("TDP_TEAMS in a kernel not launched by TDP_LAUNCH_TEAMS", file, line);
  /* as on a GPU, where the teams past the launch's would never run */
  if (nteams > tdpTeamNow_.nteams)
    tdpTeamFail_("TDP_TEAMS(team, nteams) with more teams than its TDP_LAUNCH_TEAMS launched",
                 file, line);
  t.once = 1;
  t.nthreads = tdpTeamNow_.nthreads;
  t.nlanes = tdpTeamNow_.nlanes;
  t.league = nteams;
  t.base = tdpTeamThreadScratch_();
  t.off = 0;
  t.bytes = tdpTeamNow_.scratch;
  return t;
}
/* Per team: nothing handed out yet. The checked build fills the scratch
 * with 0xff bytes (NaN as double or float, -1 as an integer), so that a
 * read of scratch no thread of this team wrote shows. */
static inline tdpTeam_ tdpTeamStart_(tdpTeam_ t) {
#ifdef TARGETDP_CHECK
  for (size_t b = 0; b < t.bytes; b++) t.base[b] = (char) 0xff;
#endif
  t.off = 0;
  return t;
}
#define TDP_TEAMS(team, nteams)                                                          \
  TDP_OMP_(parallel)                                                                     \
  for (tdpTeam_ tdp_tthr_ = tdpTeamThread_((long) (nteams), __FILE__, __LINE__);          \
       tdp_tthr_.once; tdp_tthr_.once = 0)                                               \
    TDP_OMP_(for schedule(static))                                                       \
    for (long team = 0; team < tdp_tthr_.league; team++)                                 \
      for (tdpTeam_ tdp_team_ = tdpTeamStart_(tdp_tthr_); tdp_team_.once; tdp_team_.once = 0) \
        TDP_TEAM_NOBREAK_(int tdp_in_team_ = 1, tdp_in_team_ == 1)

#define TDP_TEAM_SIZE() (tdp_team_.nthreads)
#define TDP_TEAM_LANES() (tdp_team_.nlanes)

static inline int tdpTeamCount_(long n, const char *file, int line) {
  if (n > 2147483647L)
    tdpTeamFail_("a team range of 2^31 or more items (team ranges count in int)", file, line);
  return (int) n;
}

/* Thread and each loops: one after the other (plain loops; the compiler
 * may vectorise them where their bodies allow). Vector and range loops:
 * `omp simd`. The bound is read once, in a once-loop around the simd loop
 * (OpenMP's canonical loop form takes one variable). */
#define TDP_TEAM_EACH(t)                                                                 \
  for (int TDP_CAT_(tdp_n_, t) = TDP_TEAM_SIZE(), t = tdpTeamTop_(tdp_in_team_);           \
       t < TDP_CAT_(tdp_n_, t); t++)                                                     \
    TDP_TEAM_IN_LOOP_
#define TDP_TEAM_THREADS(i, n)                                                           \
  for (int TDP_CAT_(tdp_n_, i) = tdpTeamCount_((long) (n), __FILE__, __LINE__),           \
           i = tdpTeamTop_(tdp_in_team_);                                                \
       i < TDP_CAT_(tdp_n_, i); i++)                                                     \
    TDP_TEAM_IN_LOOP_
#define TDP_TEAM_SIMD_(i, n, top, clauses)                                               \
  for (int TDP_CAT_(tdp_n_, i) = tdpTeamCount_((long) (n), __FILE__, __LINE__) + (top),   \
           TDP_CAT_(tdp_o_, i) = 1;                                                      \
       TDP_CAT_(tdp_o_, i); TDP_CAT_(tdp_o_, i) = 0)                                     \
    TDP_OMP_SIMD_(clauses)                                                               \
    for (int i = 0; i < TDP_CAT_(tdp_n_, i); i++)                                        \
      TDP_TEAM_IN_LOOP_
#define TDP_TEAM_VECTOR(j, n) TDP_TEAM_SIMD_(j, n, 0, )
#define TDP_TEAM_RANGE(i, n) TDP_TEAM_SIMD_(i, n, tdpTeamTop_(tdp_in_team_), )

/* Reductions: one thread has the whole range, so v itself accumulates the
 * result; the vector forms are `omp simd reduction`. */
#define TDP_TEAM_THREADS_SUM(i, n, v) TDP_TEAM_THREADS(i, n)
#define TDP_TEAM_THREADS_MIN(i, n, v) TDP_TEAM_THREADS(i, n)
#define TDP_TEAM_THREADS_MAX(i, n, v) TDP_TEAM_THREADS(i, n)
#define TDP_TEAM_VECTOR_SUM(j, n, v) TDP_TEAM_SIMD_(j, n, 0, reduction(+ : v))
#define TDP_TEAM_VECTOR_MIN(j, n, v) TDP_TEAM_SIMD_(j, n, 0, reduction(min : v))
#define TDP_TEAM_VECTOR_MAX(j, n, v) TDP_TEAM_SIMD_(j, n, 0, reduction(max : v))

/* Nothing to wait for in a team of one thread; it still compiles only
 * where a barrier is allowed. */
#define TDP_TEAM_BARRIER() ((void) tdpTeamTop_(tdp_in_team_))

static inline void *tdpTeamAlloc_(tdpTeam_ *tm, int top, size_t nbytes, const char *file,
                                  int line) {
  (void) top;
  const size_t off = tm->off, end = off + tdpScratchBytes_(nbytes);
  if (end > tm->bytes || end < off)
    tdpTeamFail_("TDP_TEAM_SCRATCH: the team's scratch allocations need more than the "
                 "scratch_bytes of its TDP_LAUNCH_TEAMS", file, line);
  tm->off = end;
  return tm->base + off;
}

#define TDP_TEAM_ONE_LANE_COND_() 1
#define TDP_TEAM_ONE_THREAD_COND_() 1

/* Private: one row per team thread, on the OpenMP thread's stack
 * (maxthreads x n values: keep it to kilobytes). */
#define TDP_TEAM_PRIVATE(T, a, maxthreads, n)                                            \
  T a[maxthreads][n];                                                                    \
  tdpTeamPrivCheck_(TDP_TEAM_SIZE(), (maxthreads), __FILE__, __LINE__)
static inline void tdpTeamPrivCheck_(int nthreads, int maxthreads, const char *file, int line) {
  if (nthreads > maxthreads)
    tdpTeamFail_("TDP_TEAM_PRIVATE sized for fewer threads than the team has", file, line);
}

/* TDP_LAUNCH_TEAMS: the checks, then kernel(args) (a function call, as
 * TDP_LAUNCH) with the launch recorded for its TDP_TEAMS loops; no call
 * for 0 teams, as no launch on a GPU. */
#define TDP_LAUNCH_TEAMS(kernel, nteams, nthreads, nlanes, scratch_bytes, ...)             \
  do {                                                                                     \
    const long tdp_lt_n_ = (nteams);                                                       \
    if (tdpTeamLaunchBegin_(NULL, #kernel, tdp_lt_n_, (nthreads), (nlanes), (scratch_bytes), \
                            __FILE__, __LINE__) == TARGET_SUCCESS) {                       \
      if (tdp_lt_n_ > 0 && tdpLaunchCheck_(#kernel, __FILE__, __LINE__) == TARGET_SUCCESS) { \
        TDP_PROFILE_START_(#kernel);                                                       \
        kernel(__VA_ARGS__);                                                               \
        TDP_PROFILE_STOP_(#kernel);                                                        \
      }                                                                                    \
      tdpTeamLaunchEnd_();                                                                 \
    }                                                                                      \
  } while (0)

#endif /* __CUDACC__ */

/* ---------------------------------------------------------------------- */
/* Both backends, on the parts above. */

/* Scratch: T *a = the next n elements of the team's scratch (declare at the
 * top level of a team body, where every thread runs it). The extent rides
 * along as tdp_ext_<a> (and the row length as tdp_ld_<a>) for the checked
 * accesses TDP_SCR / TDP_SCR2. */
#define TDP_TEAM_SCRATCH(T, a, n)                                                        \
  const long TDP_CAT_(tdp_ext_, a) = (long) (n);                                         \
  T *a = (T *) tdpTeamAlloc_(&tdp_team_, tdpTeamTop_(tdp_in_team_),                       \
                             (size_t) TDP_CAT_(tdp_ext_, a) * sizeof(T), __FILE__, __LINE__)
#define TDP_TEAM_SCRATCH2(T, a, n1, n2)                                                  \
  const int TDP_CAT_(tdp_ld_, a) = (int) (n2);                                           \
  const long TDP_CAT_(tdp_ext_, a) = (long) (n1) * TDP_CAT_(tdp_ld_, a);                  \
  T *a = (T *) tdpTeamAlloc_(&tdp_team_, tdpTeamTop_(tdp_in_team_),                       \
                             (size_t) TDP_CAT_(tdp_ext_, a) * sizeof(T), __FILE__, __LINE__)

#ifdef TARGETDP_CHECK
/* (i, j) of a scratch array `name` of n elements in rows of ld (a 1-D one:
 * ld 1, j 0). */
static TDP_HOST_DEVICE inline long tdpScrIndex_(long i, long j, long ld, long n, int two,
                                               const char *name, const char *file, int line) {
  if (!two && (i < 0 || i >= n))
    TDP_OOB_STOP_("targetDP: team scratch index out of bounds at %s:%d: %s[%ld] of %ld\n", file,
                  line, name, i, n);
  if (two && (i < 0 || i >= n / ld || j < 0 || j >= ld))
    TDP_OOB_STOP_("targetDP: team scratch index out of bounds at %s:%d: %s(%ld, %ld) of %ld x "
                  "%ld\n", file, line, name, i, j, n / ld, ld);
  return i * ld + j;
}
/* k of n private values; on CUDA (me >= 0) t must also be the calling
 * thread's rank. */
static TDP_HOST_DEVICE inline long tdpPrivIndex_(long k, long n, long t, long me,
                                                const char *name, const char *file, int line) {
  if (k < 0 || k >= n)
    TDP_OOB_STOP_("targetDP: TDP_PRIV index out of bounds at %s:%d: %s %ld of %ld\n", file,
                  line, name, k, n);
  if (me >= 0 && t != me)
    TDP_OOB_STOP_("targetDP: TDP_PRIV at %s:%d: %s of team thread %ld used by thread %ld (use "
                  "it inside TDP_TEAM_EACH(t) with that loop's t)\n", file, line, name, t, me);
  return k;
}
#define TDP_SCR(a, i) \
  (a)[tdpScrIndex_((long) (i), 0L, 1L, TDP_CAT_(tdp_ext_, a), 0, #a, __FILE__, __LINE__)]
#define TDP_SCR2(a, i, j)                                                                \
  (a)[tdpScrIndex_((long) (i), (long) (j), (long) TDP_CAT_(tdp_ld_, a), TDP_CAT_(tdp_ext_, a), 1, #a, \
                   __FILE__, __LINE__)]
#ifdef __CUDACC__
#define TDP_PRIV(a, t, k)                                                                \
  (a)[tdpPrivIndex_((long) (k), (long) (sizeof(a) / sizeof((a)[0])), (long) (t),          \
                    (long) threadIdx.y, #a, __FILE__, __LINE__)]
#else
#define TDP_PRIV(a, t, k)                                                                \
  (a)[tdpPrivIndex_((long) (t), (long) TDP_TEAM_SIZE(), 0L, -1L, #a, __FILE__, __LINE__)]    \
     [tdpPrivIndex_((long) (k), (long) (sizeof((a)[0]) / sizeof((a)[0][0])), 0L, -1L, #a,  \
                    __FILE__, __LINE__)]
#endif
#else
#define TDP_SCR(a, i) (a)[i]
#define TDP_SCR2(a, i, j) (a)[(i) * TDP_CAT_(tdp_ld_, a) + (j)]
#ifdef __CUDACC__
#define TDP_PRIV(a, t, k) (a)[((void) (t), (k))]
#else
#define TDP_PRIV(a, t, k) (a)[t][k]
#endif
#endif

/* The next statement by one lane / one thread, as a once-loop (no
 * dangling else; a break in it leaves it, as it would leave a block). A
 * barrier inside does not compile. */
#define TDP_TEAM_ONE_LANE                                                                \
  for (int tdp_one_ = TDP_TEAM_ONE_LANE_COND_(); tdp_one_; tdp_one_ = 0)                 \
    for (tdpTeamInLoop_ tdp_in_team_ = {0}; tdp_in_team_.zero_ == 0 && tdp_one_; tdp_one_ = 0)
#define TDP_TEAM_ONE_THREAD                                                              \
  for (int tdp_one_ = tdpTeamTop_(tdp_in_team_) == 0 && TDP_TEAM_ONE_THREAD_COND_();      \
       tdp_one_; tdp_one_ = 0)                                                           \
    for (tdpTeamInLoop_ tdp_in_team_ = {0}; tdp_in_team_.zero_ == 0 && tdp_one_; tdp_one_ = 0)

#endif /* TARGETDP_TEAM_H */
