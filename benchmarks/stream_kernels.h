/*
 * stream_kernels.h -- the STREAM kernels for one element type, written
 * twice: through targetDP (tdp_*), and natively (nat_*) as a user would
 * without the layer: plain CUDA kernels on the CUDA build, plain
 * "omp parallel for simd" loops on the C build. R(streamInit) and
 * R(streamLaunch) run either set.
 *
 * C99 has no templates: a file includes this once per type, with REAL the
 * element type and R(name) adding the type's suffix. No include guard.
 * Dot accumulates in double for both types, and both implementations.
 */
#include "stream_native.h"

/* ---------------------------------------------------------------------- */
/* Through targetDP. The kernels that write an array compute a stride's
 * results into r[TDP_LANE(v)] and store them with TDP_STREAM_LANES: on a
 * CPU with AVX whole aligned strides become streaming stores (the
 * technique of the best native C candidate: no write-allocate read of the
 * destination), elsewhere plain stores (docs/api.md, "Kernel hints").
 * The element-wise kernels are TDP_KERNEL_LANES: each launch says how
 * many sites a thread takes (streamLanes; bench_stream --lanes). */

TDP_KERNEL void R(tdp_init)(REAL *a, REAL *b, REAL *c, int n, double ka, double kb,
                                 double kc) {
  TDP_TLP(base, n) {
    TDP_ILP(v) {
      double w = streamWeight(base + v);
      a[base + v] = (REAL) (ka * w);
      b[base + v] = (REAL) (kb * w);
      c[base + v] = (REAL) (kc * w);
    }
  }
}

TDP_KERNEL_LANES void R(tdp_copy)(REAL *TDP_RESTRICT c, const REAL *TDP_RESTRICT a, int n) {
  TDP_TLP(base, n) {
    REAL r[VVL];
    TDP_ILP(v) r[TDP_LANE(v)] = a[base + v];
    TDP_STREAM_LANES(c, n, 1, base, 0, r); /* c[base + v] = r[lane] */
  }
}

TDP_KERNEL_LANES void R(tdp_mul)(REAL *TDP_RESTRICT b, const REAL *TDP_RESTRICT c, REAL s, int n) {
  TDP_TLP(base, n) {
    REAL r[VVL];
    TDP_ILP(v) r[TDP_LANE(v)] = s * c[base + v];
    TDP_STREAM_LANES(b, n, 1, base, 0, r);
  }
}

TDP_KERNEL_LANES void R(tdp_add)(REAL *TDP_RESTRICT c, const REAL *TDP_RESTRICT a,
                           const REAL *TDP_RESTRICT b, int n) {
  TDP_TLP(base, n) {
    REAL r[VVL];
    TDP_ILP(v) r[TDP_LANE(v)] = a[base + v] + b[base + v];
    TDP_STREAM_LANES(c, n, 1, base, 0, r);
  }
}

TDP_KERNEL_LANES void R(tdp_triad)(REAL *TDP_RESTRICT a, const REAL *TDP_RESTRICT b,
                             const REAL *TDP_RESTRICT c, REAL s, int n) {
  TDP_TLP(base, n) {
    REAL r[VVL];
    TDP_ILP(v) r[TDP_LANE(v)] = b[base + v] + s * c[base + v];
    TDP_STREAM_LANES(a, n, 1, base, 0, r);
  }
}

/* The layer's fused reduction: per-thread partials, one atomic per block. */
TDP_KERNEL void R(tdp_dot)(double *TDP_RESTRICT sum, const REAL *TDP_RESTRICT a,
                           const REAL *TDP_RESTRICT b, int n) {
  double partial = 0.0;
  TDP_TLP_SUM(base, n, partial) {
    TDP_ILP_SUM(v, partial) partial += (double) a[base + v] * b[base + v];
  }
  targetBlockAddDouble(sum, partial);
}

/* Two sums in one pass over the same two arrays: the bytes of Dot, so its
 * bandwidth against Dot's is the cost of the second reduction variable. */
TDP_KERNEL void R(tdp_dot2)(double *TDP_RESTRICT sum, const REAL *TDP_RESTRICT a,
                            const REAL *TDP_RESTRICT b, int n) {
  double ab = 0.0, aa = 0.0;
  TDP_TLP_SUM(base, n, ab, aa) {
    TDP_ILP_REDUCE(v) {
      double x = (double) a[base + v];
      ab += x * b[base + v];
      aa += x * x;
    }
  }
  targetBlockAddDouble(&sum[0], ab);
  targetBlockAddDouble(&sum[1], aa);
}

TDP_KERNEL_LANES void R(tdp_nstream)(REAL *TDP_RESTRICT a, const REAL *TDP_RESTRICT b,
                               const REAL *TDP_RESTRICT c, REAL s, int n) {
  /* Every lane's loads first, then the stores (TDP_ILP_STAGED): "a[base +
   * v] += ..." in one lane loop makes lane 1's load of a wait on lane 0's
   * on CUDA (it may alias lane 0's store; 0.98 of native at 2 lanes on the
   * H100); written out as a local array and a second lane loop, clang keeps
   * the array in memory on the host (0.958). Plain stores: a was just read,
   * so it is in cache (streaming stores were slower on the host). */
  TDP_TLP(base, n) {
    TDP_ILP_STAGED(v, REAL, a[base + v], a[base + v] + (b[base + v] + s * c[base + v]));
  }
}

/* ---------------------------------------------------------------------- */
/* Native: a set of candidates per kernel (stream_native.h says which and
 * why); bench_stream times them all and compares targetDP with the
 * fastest. streamNativeChoice[k] picks the one R(streamLaunch) runs. */

#ifdef __CUDACC__

__global__ void R(nat_init)(REAL *a, REAL *b, REAL *c, int n, double ka, double kb, double kc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double w = streamWeight(i);
    a[i] = (REAL) (ka * w);
    b[i] = (REAL) (kb * w);
    c[i] = (REAL) (kc * w);
  }
}

static inline int R(streamNativeCount)(int k) { return k == STREAM_DOT ? NAT_NDOT : NAT_NELT; }
static inline const char *R(streamNativeName)(int k, int v) {
  return k == STREAM_DOT ? natDotVariants[v].name : natEltVariants[v].name;
}

static void R(nat_run)(int k, int v, const streamSet *x, int n, REAL s) {
  REAL *a = (REAL *) x->a, *b = (REAL *) x->b, *c = (REAL *) x->c;
  switch (k) {
  case STREAM_COPY: natLaunchElt<NOP_COPY, REAL>(v, c, a, a, s, n); break;
  case STREAM_MUL: natLaunchElt<NOP_MUL, REAL>(v, b, c, c, s, n); break;
  case STREAM_ADD: natLaunchElt<NOP_ADD, REAL>(v, c, a, b, s, n); break;
  case STREAM_TRIAD: natLaunchElt<NOP_TRIAD, REAL>(v, a, b, c, s, n); break;
  case STREAM_DOT: natLaunchDot<REAL>(v, x->sum, a, b, n); break;
  case STREAM_NSTREAM: natLaunchElt<NOP_NSTREAM, REAL>(v, a, b, c, s, n); break;
  }
}

#else /* C: the loops a user would write with OpenMP */

static void R(nat_init)(REAL *a, REAL *b, REAL *c, int n, double ka, double kb, double kc) {
#pragma omp parallel for simd schedule(static)
  for (int i = 0; i < n; i++) {
    double w = streamWeight(i);
    a[i] = (REAL) (ka * w);
    b[i] = (REAL) (kb * w);
    c[i] = (REAL) (kc * w);
  }
}

/* One element of op (stream_native.h's NOP_*): the scalar ends of the
 * streaming-store loops. */
static inline REAL R(nat_op1)(int op, REAL s, REAL x, REAL y, REAL d) {
  switch (op) {
  case NOP_COPY: return x;
  case NOP_MUL: return s * x;
  case NOP_ADD: return x + y;
  case NOP_TRIAD: return x + s * y;
  default: return d + (x + s * y);
  }
}

/* Candidates 0 and 1: McCalpin's loops with a static schedule, as
 * "omp parallel for simd" (the compiler's widest vectors: 512-bit with
 * AVX-512) and as the original plain "omp parallel for" (the compiler's
 * own choice, 256-bit by default on most x86). */
#define NAT_LOOPS_(name, pragma)                                                      \
  static void R(name)(int op, REAL *TDP_RESTRICT d, const REAL *TDP_RESTRICT x,               \
                      const REAL *TDP_RESTRICT y, REAL s, int n) {                        \
    switch (op) {                                                                     \
    case NOP_COPY: _Pragma(pragma) for (int i = 0; i < n; i++) d[i] = x[i]; break;    \
    case NOP_MUL: _Pragma(pragma) for (int i = 0; i < n; i++) d[i] = s * x[i]; break; \
    case NOP_ADD: _Pragma(pragma) for (int i = 0; i < n; i++) d[i] = x[i] + y[i]; break; \
    case NOP_TRIAD:                                                                   \
      _Pragma(pragma) for (int i = 0; i < n; i++) d[i] = x[i] + s * y[i];             \
      break;                                                                          \
    default:                                                                          \
      _Pragma(pragma) for (int i = 0; i < n; i++) d[i] = d[i] + (x[i] + s * y[i]);    \
      break;                                                                          \
    }                                                                                 \
  }
NAT_LOOPS_(nat_pfs, "omp parallel for simd schedule(static)")
NAT_LOOPS_(nat_pf, "omp parallel for schedule(static)")
#undef NAT_LOOPS_

#if NAT_HAVE_NT
/* Candidate 2: whole 64-byte lines of d computed in registers and
 * streamed (no write-allocate read); scalar head up to d's first line
 * boundary and scalar tail. Each thread fences its own stores. */
#define NAT_LINE_ (64 / (int) sizeof(REAL))
#define NAT_NT_LINE_(expr)                                    \
  do {                                                         \
    _Pragma("omp simd") for (int j = 0; j < NAT_LINE_; j++) {  \
      const int i = i0 + j;                                    \
      r[j] = (expr);                                           \
    }                                                          \
  } while (0)
static void R(nat_nt)(int op, REAL *TDP_RESTRICT d, const REAL *TDP_RESTRICT x, const REAL *TDP_RESTRICT y,
                      REAL s, int n) {
  int head = (int) (((64 - (uintptr_t) d % 64) % 64) / sizeof(REAL));
  if (head > n) head = n;
  const int nlines = (n - head) / NAT_LINE_, tail = head + nlines * NAT_LINE_;
#pragma omp parallel
  {
#pragma omp for schedule(static) nowait
    for (int l = 0; l < nlines; l++) {
      REAL r[NAT_LINE_];
      const int i0 = head + l * NAT_LINE_;
      switch (op) {
      case NOP_COPY: NAT_NT_LINE_(x[i]); break;
      case NOP_MUL: NAT_NT_LINE_(s * x[i]); break;
      case NOP_ADD: NAT_NT_LINE_(x[i] + y[i]); break;
      case NOP_TRIAD: NAT_NT_LINE_(x[i] + s * y[i]); break;
      default: NAT_NT_LINE_(d[i] + (x[i] + s * y[i])); break;
      }
      natStreamLine(d + i0, r);
    }
    natStreamFence();
  }
  for (int i = 0; i < head; i++) d[i] = R(nat_op1)(op, s, x[i], y[i], d[i]);
  for (int i = tail; i < n; i++) d[i] = R(nat_op1)(op, s, x[i], y[i], d[i]);
}
#undef NAT_NT_LINE_
#undef NAT_LINE_
#endif

static void R(nat_dot)(double *sum, const REAL *TDP_RESTRICT a, const REAL *TDP_RESTRICT b, int n) {
  double s = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+:s)
  for (int i = 0; i < n; i++) s += (double) a[i] * b[i];
  *sum += s;
}

static inline int R(streamNativeCount)(int k) { return k == STREAM_DOT ? 1 : 2 + NAT_HAVE_NT; }
static inline const char *R(streamNativeName)(int k, int v) {
  return k == STREAM_DOT ? "omp parallel for simd reduction"
         : v == 0        ? "omp parallel for simd"
         : v == 1        ? "omp parallel for"
                         : "omp parallel for + streaming stores";
}

static void R(nat_run)(int k, int v, const streamSet *x, int n, REAL s) {
  REAL *a = (REAL *) x->a, *b = (REAL *) x->b, *c = (REAL *) x->c;
  void (*f)(int, REAL *TDP_RESTRICT, const REAL *TDP_RESTRICT, const REAL *TDP_RESTRICT, REAL, int) =
      R(nat_pfs);
  if (v == 1) f = R(nat_pf);
#if NAT_HAVE_NT
  if (v == 2) f = R(nat_nt);
#endif
  switch (k) {
  case STREAM_COPY: f(NOP_COPY, c, a, a, s, n); break;
  case STREAM_MUL: f(NOP_MUL, b, c, c, s, n); break;
  case STREAM_ADD: f(NOP_ADD, c, a, b, s, n); break;
  case STREAM_TRIAD: f(NOP_TRIAD, a, b, c, s, n); break;
  case STREAM_DOT: R(nat_dot)(x->sum, a, b, n); break;
  case STREAM_NSTREAM: f(NOP_NSTREAM, a, b, c, s, n); break;
  }
}

#endif

/* ---------------------------------------------------------------------- */
/* Running them. Each call returns when the kernel has completed. */

static void R(streamInit)(int impl, const streamSet *x, int n, double ka, double kb, double kc) {
  REAL *a = (REAL *) x->a, *b = (REAL *) x->b, *c = (REAL *) x->c;
  if (impl == BENCH_TDP) {
    TDP_LAUNCH(R(tdp_init), n, a, b, c, n, ka, kb, kc);
    targetSynchronize();
  } else {
#ifdef __CUDACC__
    R(nat_init)<<<(n + 255) / 256, 256>>>(a, b, c, n, ka, kb, kc);
#else
    R(nat_init)(a, b, c, n, ka, kb, kc);
#endif
    nativeSynchronize();
  }
}

/* Kernel k (not STREAM_SUM, which is a library call) on set x; natively,
 * candidate streamNativeChoice[k]. Dot adds to x->sum[0], Dot2 to x->sum[0]
 * and x->sum[1]: the caller zeroes them. */
static void R(streamLaunch)(int impl, int k, const streamSet *x, int n, double scalar) {
  REAL *a = (REAL *) x->a, *b = (REAL *) x->b, *c = (REAL *) x->c, s = (REAL) scalar;
  if (impl == BENCH_TDP) {
    const int l = streamLanes[k] > 0 ? streamLanes[k] : VVL;
    switch (k) {
    case STREAM_COPY: TDP_LAUNCH_LANES(R(tdp_copy), n, l, c, a, n); break;
    case STREAM_MUL: TDP_LAUNCH_LANES(R(tdp_mul), n, l, b, c, s, n); break;
    case STREAM_ADD: TDP_LAUNCH_LANES(R(tdp_add), n, l, c, a, b, n); break;
    case STREAM_TRIAD: TDP_LAUNCH_LANES(R(tdp_triad), n, l, a, b, c, s, n); break;
    case STREAM_DOT: TDP_LAUNCH_REDUCE(R(tdp_dot), n, x->sum, a, b, n); break;
    case STREAM_NSTREAM: TDP_LAUNCH_LANES(R(tdp_nstream), n, l, a, b, c, s, n); break;
    /* The same kernel through the plain launch: one block, and so one
     * atomic, per VVL * TPB sites. Shows what TDP_LAUNCH_REDUCE saves. */
    case STREAM_DOT_PLAIN: TDP_LAUNCH(R(tdp_dot), n, x->sum, a, b, n); break;
    case STREAM_DOT2: TDP_LAUNCH_REDUCE(R(tdp_dot2), n, x->sum, a, b, n); break;
    }
    targetSynchronize();
  } else {
    R(nat_run)(k, streamNativeChoice[k], x, n, s);
    nativeSynchronize();
  }
}
