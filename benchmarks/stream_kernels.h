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

/* ---------------------------------------------------------------------- */
/* Through targetDP */

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

TDP_KERNEL void R(tdp_copy)(REAL *c, const REAL *a, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) c[base + v] = a[base + v];
  }
}

TDP_KERNEL void R(tdp_mul)(REAL *b, const REAL *c, REAL s, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) b[base + v] = s * c[base + v];
  }
}

TDP_KERNEL void R(tdp_add)(REAL *c, const REAL *a, const REAL *b, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) c[base + v] = a[base + v] + b[base + v];
  }
}

TDP_KERNEL void R(tdp_triad)(REAL *a, const REAL *b, const REAL *c, REAL s, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) a[base + v] = b[base + v] + s * c[base + v];
  }
}

/* The layer's fused reduction: per-thread partials, one atomic per block. */
TDP_KERNEL void R(tdp_dot)(double *sum, const REAL *a, const REAL *b, int n) {
  double partial = 0.0;
  TDP_TLP_SUM(base, n, partial) {
    TDP_ILP_SUM(v, partial) partial += (double) a[base + v] * b[base + v];
  }
  targetBlockAddDouble(sum, partial);
}

/* Two sums in one pass over the same two arrays: the bytes of Dot, so its
 * bandwidth against Dot's is the cost of the second reduction variable. */
TDP_KERNEL void R(tdp_dot2)(double *sum, const REAL *a, const REAL *b, int n) {
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

TDP_KERNEL void R(tdp_nstream)(REAL *a, const REAL *b, const REAL *c, REAL s, int n) {
  TDP_TLP(base, n) {
    TDP_ILP(v) a[base + v] += b[base + v] + s * c[base + v];
  }
}

/* ---------------------------------------------------------------------- */
/* Native */

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

__global__ void R(nat_copy)(REAL *c, const REAL *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i];
}

__global__ void R(nat_mul)(REAL *b, const REAL *c, REAL s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = s * c[i];
}

__global__ void R(nat_add)(REAL *c, const REAL *a, const REAL *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void R(nat_triad)(REAL *a, const REAL *b, const REAL *c, REAL s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = b[i] + s * c[i];
}

/* BabelStream's shape: a few blocks per SM stride over the arrays, then a
 * shuffle + shared-memory block sum and one atomic per block. */
__global__ void R(nat_dot)(double *sum, const REAL *a, const REAL *b, int n) {
  __shared__ double warp_sum[32];
  double s = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    s += (double) a[i] * b[i];
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
  if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < blockDim.x / 32 ? warp_sum[threadIdx.x] : 0.0;
    for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
    if (threadIdx.x == 0) atomicAdd(sum, s);
  }
}

__global__ void R(nat_nstream)(REAL *a, const REAL *b, const REAL *c, REAL s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += b[i] + s * c[i];
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

static void R(nat_copy)(REAL *c, const REAL *a, int n) {
#pragma omp parallel for simd schedule(static)
  for (int i = 0; i < n; i++) c[i] = a[i];
}

static void R(nat_mul)(REAL *b, const REAL *c, REAL s, int n) {
#pragma omp parallel for simd schedule(static)
  for (int i = 0; i < n; i++) b[i] = s * c[i];
}

static void R(nat_add)(REAL *c, const REAL *a, const REAL *b, int n) {
#pragma omp parallel for simd schedule(static)
  for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
}

static void R(nat_triad)(REAL *a, const REAL *b, const REAL *c, REAL s, int n) {
#pragma omp parallel for simd schedule(static)
  for (int i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}

static void R(nat_dot)(double *sum, const REAL *a, const REAL *b, int n) {
  double s = 0.0;
#pragma omp parallel for simd schedule(static) reduction(+:s)
  for (int i = 0; i < n; i++) s += (double) a[i] * b[i];
  *sum += s;
}

static void R(nat_nstream)(REAL *a, const REAL *b, const REAL *c, REAL s, int n) {
#pragma omp parallel for simd schedule(static)
  for (int i = 0; i < n; i++) a[i] += b[i] + s * c[i];
}

#endif

/* ---------------------------------------------------------------------- */
/* Running them. Each call returns when the kernel has completed. */

#ifdef __CUDACC__
#define NAT_TPB 1024 /* BabelStream's block size */
#define NATIVE_GRID(n) <<<((n) + NAT_TPB - 1) / NAT_TPB, NAT_TPB>>>
#define NATIVE_DOT_GRID <<<nativeDotBlocks(), NAT_TPB>>>
#else
#define NATIVE_GRID(n)
#define NATIVE_DOT_GRID
#endif

static void R(streamInit)(int impl, const streamSet *x, int n, double ka, double kb, double kc) {
  REAL *a = (REAL *) x->a, *b = (REAL *) x->b, *c = (REAL *) x->c;
  if (impl == BENCH_TDP) {
    TDP_LAUNCH(R(tdp_init), n, a, b, c, n, ka, kb, kc);
    targetSynchronize();
  } else {
    R(nat_init) NATIVE_GRID(n) (a, b, c, n, ka, kb, kc);
    nativeSynchronize();
  }
}

/* Kernel k (not STREAM_SUM, which is a library call) on set x. Dot adds to
 * x->sum[0], Dot2 to x->sum[0] and x->sum[1]: the caller zeroes them. */
static void R(streamLaunch)(int impl, int k, const streamSet *x, int n, double scalar) {
  REAL *a = (REAL *) x->a, *b = (REAL *) x->b, *c = (REAL *) x->c, s = (REAL) scalar;
  if (impl == BENCH_TDP) {
    switch (k) {
    case STREAM_COPY: TDP_LAUNCH(R(tdp_copy), n, c, a, n); break;
    case STREAM_MUL: TDP_LAUNCH(R(tdp_mul), n, b, c, s, n); break;
    case STREAM_ADD: TDP_LAUNCH(R(tdp_add), n, c, a, b, n); break;
    case STREAM_TRIAD: TDP_LAUNCH(R(tdp_triad), n, a, b, c, s, n); break;
    case STREAM_DOT: TDP_LAUNCH_REDUCE(R(tdp_dot), n, x->sum, a, b, n); break;
    case STREAM_NSTREAM: TDP_LAUNCH(R(tdp_nstream), n, a, b, c, s, n); break;
    /* The same kernel through the plain launch: one block, and so one
     * atomic, per VVL * TPB sites. Shows what TDP_LAUNCH_REDUCE saves. */
    case STREAM_DOT_PLAIN: TDP_LAUNCH(R(tdp_dot), n, x->sum, a, b, n); break;
    case STREAM_DOT2: TDP_LAUNCH_REDUCE(R(tdp_dot2), n, x->sum, a, b, n); break;
    }
    targetSynchronize();
  } else {
    switch (k) {
    case STREAM_COPY: R(nat_copy) NATIVE_GRID(n) (c, a, n); break;
    case STREAM_MUL: R(nat_mul) NATIVE_GRID(n) (b, c, s, n); break;
    case STREAM_ADD: R(nat_add) NATIVE_GRID(n) (c, a, b, n); break;
    case STREAM_TRIAD: R(nat_triad) NATIVE_GRID(n) (a, b, c, s, n); break;
    case STREAM_DOT: R(nat_dot) NATIVE_DOT_GRID (x->sum, a, b, n); break;
    case STREAM_NSTREAM: R(nat_nstream) NATIVE_GRID(n) (a, b, c, s, n); break;
    }
    nativeSynchronize();
  }
}

#undef NATIVE_GRID
#undef NATIVE_DOT_GRID
#undef NAT_TPB
