/*
 * targetDP_scan_CUDA.cu -- prefix sums and stream compaction on CUDA.
 * The scans through CUB (CCCL, part of the CUDA toolkit): cub::DeviceScan
 * (a single-pass decoupled look-back scan, near copy bandwidth); the
 * compaction by a kernel of our own (below; variants of its shape by
 * TARGETDP_COMPACT=<name>), with CUB's DeviceSelect::Flagged kept for
 * comparison (TARGETDP_COMPACT=cub). One template per scan, instantiated
 * per element type. The scratch (CUB's temporary storage, the
 * compaction's tile states) is kept between calls and freed by
 * targetFinalize.
 */
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/atomic>
#include <thrust/iterator/counting_iterator.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "targetDP_internal.h"

static void *d_temp = NULL;
static size_t d_temp_bytes = 0;

/* Room for `bytes` of CUB temporary storage plus one trailing long. */
static int grow_temp(size_t bytes, tdpSite at) {
  bytes = (bytes + 255) / 256 * 256 + 256;
  if (bytes <= d_temp_bytes) return TARGET_SUCCESS;
  cudaFree(d_temp);
  d_temp = NULL;
  d_temp_bytes = 0;
  cudaError_t err = cudaMalloc(&d_temp, bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return tdpFail(TARGET_ERROR_MEMORY, at, "cudaMalloc of %zu bytes of scan scratch: %s", bytes,
                   cudaGetErrorString(err));
  }
  d_temp_bytes = bytes;
  return TARGET_SUCCESS;
}

static int cuda_check(cudaError_t err, const char *what, tdpSite at) {
  if (err == cudaSuccess) return TARGET_SUCCESS;
  cudaGetLastError();
  return tdpFail(TARGET_ERROR_DEVICE, at, "%s: %s (%s)", what, cudaGetErrorString(err),
                 cudaGetErrorName(err));
}

/* CUB scans in place when out == in (the common layer has refused any
 * other overlap). N is CUB's offset type: int below 2^31 items (CUB's
 * kernels are leaner with 32-bit offsets), long beyond. */
template <typename T, typename N>
static int scan(T *out, const T *in, N n, tdpScanMode mode, tdpSite at) {
  size_t bytes = 0;
  cudaError_t err = mode == TDP_SCAN_INCLUSIVE
                        ? cub::DeviceScan::InclusiveSum(NULL, bytes, in, out, n)
                        : cub::DeviceScan::ExclusiveSum(NULL, bytes, in, out, n);
  int rc = cuda_check(err, "cub::DeviceScan (temporary storage size)", at);
  if (rc == TARGET_SUCCESS) rc = grow_temp(bytes, at);
  if (rc) return rc;
  bytes = d_temp_bytes;
  err = mode == TDP_SCAN_INCLUSIVE ? cub::DeviceScan::InclusiveSum(d_temp, bytes, in, out, n)
                                   : cub::DeviceScan::ExclusiveSum(d_temp, bytes, in, out, n);
  return cuda_check(err, "cub::DeviceScan", at);
}

template <typename T>
static int scan_n(void *t_out, const void *t_in, size_t n, tdpScanMode mode, tdpSite at) {
  if (n <= INT_MAX) return scan((T *) t_out, (const T *) t_in, (int) n, mode, at);
  return scan((T *) t_out, (const T *) t_in, (long) n, mode, at);
}

int tdpBackendScan(void *t_out, const void *t_in, size_t n, tdpScanType_ type, tdpScanMode mode,
                   tdpSite at) {
  switch (type) {
  case TDP_TYPE_INT: return scan_n<int>(t_out, t_in, n, mode, at);
  case TDP_TYPE_LONG: return scan_n<long>(t_out, t_in, n, mode, at);
  case TDP_TYPE_DOUBLE: return scan_n<double>(t_out, t_in, n, mode, at);
  default: break; /* the common half refuses other types */
  }
  return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "unknown element type %d", (int) type);
}

/* ---------------------------------------------------------------------
 * Stream compaction. CUB's DeviceSelect::Flagged moves one char flag per
 * item through its block machinery and stays near 55% of copy bandwidth
 * on the H100; this kernel reads 16 mask bytes per 16-byte load and
 * handles them as one 16-bit flag word.
 *
 * One pass with decoupled look-back (Merrill & Garland 2016) rather than
 * two (count per tile, scan the counts, then write): at 2^27 sites and
 * density 1/2 the bytes that must move are the mask (n) and the indices
 * (8 n / 2), 5n in all; two passes read the mask twice, 6n, so they cap at
 * 5/6 = 83% of the copy's rate before their extra launches, while one pass
 * adds only 8 bytes of tile state per tile.
 *
 * A tile is ROWS x THREADS x 16 mask bytes (the default: 4 x 256 x 16 =
 * 16384), a row of the block reading THREADS x 16 bytes contiguous. Tiles
 * take their number from an atomic counter, not blockIdx, so a tile only
 * waits on tiles that are already running (the look-back cannot deadlock
 * on tiles not yet scheduled). The mask is read from the 16-byte boundary
 * at or below t_mask; the chunks that straddle either end are read byte by
 * byte, so no byte outside [t_mask, t_mask + n) is touched.
 *
 * The kernel is a template over its shape, so that variants can be timed
 * side by side in one run (TARGETDP_COMPACT=<name>, read at each call; the
 * table ct_variants below says what each is for).
 */
namespace {
/* A tile's state, one 64-bit word so that a relaxed atomic load sees it
 * whole: a flag in the top 2 bits, the call's epoch in the next 22, the
 * count in the low 40 (2^40 sites: more mask bytes than a GPU holds). The
 * epoch is why no memset clears the states before each call: a state
 * left by an earlier call has another epoch and reads as "not posted yet".
 * Measured: the memset and a pageable read-back of the count were ~10 us
 * of a 0.23 ms compaction at 2^27 sites (4 points of copy bandwidth). */
constexpr unsigned long long ST_AGG = 1ull << 62; /* the tile's own count */
constexpr unsigned long long ST_PRE = 2ull << 62; /* its count plus all before it */
constexpr int ST_EPOCH_SHIFT = 40;
constexpr unsigned long long ST_VAL = (1ull << ST_EPOCH_SHIFT) - 1;
constexpr unsigned ST_EPOCHS = 1u << 22;
using state_ref = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

/* How a tile's indices are stored: 8 bytes per store from wherever the
 * tile's output starts, or 16 bytes (two indices) per store from its
 * first 128-byte line boundary on (the default), plain or evict-first (.cs). */
enum ct_store { CT_ST8, CT_ST16, CT_ST16_CS };
} // namespace

/* bit i set when byte i of w is non-zero (the products cannot carry into
 * bits 24-27: each lands on its own bit) */
__device__ static unsigned nz4(unsigned w) {
  return ((__vcmpne4(w, 0) & 0x01010101u) * 0x01020408u) >> 24;
}

/* The flags of the 16 mask bytes at base[q .. q+15]; only [head, m) is the mask. */
__device__ static unsigned flags16(const unsigned char *base, long q, long head, long m) {
  if (q >= head && q + 16 <= m) {
    uint4 v = __ldcs((const uint4 *) (base + q)); /* read once: stream past the cache */
    return nz4(v.x) | nz4(v.y) << 4 | nz4(v.z) << 8 | nz4(v.w) << 12;
  }
  unsigned f = 0;
  for (int b = 0; b < 16; b++)
    if (q + b >= head && q + b < m && base[q + b]) f |= 1u << b;
  return f;
}

__device__ static int warp_inclusive(int v, int lane) {
  for (int d = 1; d < 32; d *= 2) {
    int u = __shfl_up_sync(~0u, v, d);
    if (lane >= d) v += u;
  }
  return v;
}

/* Warp 0 of tile `tile` (count `total`): the number of set sites in all
 * earlier tiles. Posts the tile's count first, for the tiles behind it to
 * use at once, then reads 32 predecessors per step back to the nearest
 * one that knows its prefix. Earlier tiles have started (numbered by the
 * counter), so each posts its count without waiting: the spin ends. A
 * state of another epoch is an earlier call's: not posted yet. */
__device__ static unsigned long long lookback(unsigned long long *state, long tile, int total,
                                              unsigned long long epoch, int lane) {
  if (tile == 0) {
    if (lane == 0) state_ref(state[0]).store(ST_PRE | epoch | total, cuda::memory_order_relaxed);
    return 0;
  }
  if (lane == 0) state_ref(state[tile]).store(ST_AGG | epoch | total, cuda::memory_order_relaxed);
  unsigned long long before = 0;
  for (long j = tile - 1;; j -= 32) {
    long p = j - lane; /* lane 0 the nearest; before tile 0: a prefix of 0 */
    unsigned long long s;
    bool posted;
    do {
      s = p >= 0 ? state_ref(state[p]).load(cuda::memory_order_relaxed) : ST_PRE | epoch;
      posted = (s & ~(3ull << 62) & ~ST_VAL) == epoch && s >> 62 != 0;
    } while (!__all_sync(~0u, posted));
    unsigned pre = __ballot_sync(~0u, s >> 62 == 2);
    int last = pre ? __ffs(pre) - 1 : 31; /* sum up to the nearest prefix */
    unsigned long long v = lane <= last ? s & ST_VAL : 0;
    for (int d = 16; d; d /= 2) v += __shfl_xor_sync(~0u, v, d);
    before += v;
    if (pre) break;
  }
  if (lane == 0)
    state_ref(state[tile]).store(ST_PRE | epoch | (before + total), cuda::memory_order_relaxed);
  return before;
}

template <int STORE> __device__ static void put1(long *p, long v) {
  if (STORE == CT_ST16_CS) __stcs(p, v);
  else *p = v;
}

template <int STORE> __device__ static void put2(long *p, long a, long b) {
  const longlong2 v = make_longlong2(a, b);
  if (STORE == CT_ST16_CS) __stcs((longlong2 *) p, v);
  else *(longlong2 *) p = v;
}

/* A tile's `total` indices, site0 + pos[j], to dst[0 .. total), coalesced:
 * consecutive threads write consecutive indices. dst follows the earlier
 * tiles' indices, so it is anywhere on an 8-byte boundary: with 8-byte
 * stores a warp's 256 bytes then straddle 3 lines and 9 sectors, two of
 * them shared with the next warps. The 16-byte stores start at the first
 * 128-byte line boundary (the up to 15 indices before it one by one), so
 * each warp's 512 bytes are 4 whole lines, in half the store instructions. */
template <int THREADS, int STORE>
__device__ static void put_indices(long *dst, long site0, const unsigned short *pos, int total,
                                   int tid) {
  if (STORE == CT_ST8 || ((uintptr_t) dst & 7)) { /* the latter: a long* off 8 bytes */
    for (int j = tid; j < total; j += THREADS) dst[j] = site0 + pos[j];
    return;
  }
  int lead = (int) (((0 - (uintptr_t) dst) & 127) >> 3);
  if (lead > total) lead = total;
  if (tid < lead) put1<STORE>(dst + tid, site0 + pos[tid]);
  for (int j = lead + 2 * tid; j < total; j += 2 * THREADS) {
    if (j + 1 < total) put2<STORE>(dst + j, site0 + pos[j], site0 + pos[j + 1]);
    else put1<STORE>(dst + j, site0 + pos[j]);
  }
}

/* base: t_mask rounded down to 16 bytes; the mask is base[head .. m).
 * BLOCKS resident per SM (the default: 6 of 256 threads, 1536 threads and
 * 6 x 33 KiB of shared memory per SM): 6 x 16 KiB of mask loads in flight
 * per SM. */
template <int THREADS, int ROWS, int BLOCKS, int STORE>
__global__ void __launch_bounds__(THREADS, BLOCKS)
    compact_kernel(long *out, unsigned long long *count, const unsigned char *base, long head,
                   long m, unsigned long long *state, unsigned long long *next,
                   unsigned long long first, unsigned long long epoch, long ntiles) {
  constexpr int WARPS = THREADS / 32, NW = ROWS * WARPS, SITES = ROWS * THREADS * 16;
  static_assert(THREADS % 32 == 0 && NW <= 32, "one warp count per lane in the block scan");
  static_assert(SITES <= 65536, "tile positions are staged as unsigned short");
  __shared__ unsigned short pos[SITES]; /* the set sites' tile positions, in order */
  __shared__ int wsum[NW];
  __shared__ long tile_s;
  __shared__ unsigned long long before_s;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid == 0) tile_s = (long) (atomicAdd(next, 1ull) - first);
  __syncthreads();
  const long tile = tile_s;

  unsigned f[ROWS];
  int incl[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; r++) {
    f[r] = flags16(base, tile * SITES + 16L * (r * THREADS + tid), head, m);
    incl[r] = warp_inclusive(__popc(f[r]), lane);
    if (lane == 31) wsum[r * WARPS + warp] = incl[r];
  }
  __syncthreads();
  /* every warp scans the NW warp counts (row-major: site order) itself */
  const int w = lane < NW ? wsum[lane] : 0, wi = warp_inclusive(w, lane);
  const int total = __shfl_sync(~0u, wi, 31);
  if (warp == 0) {
    unsigned long long b = lookback(state, tile, total, epoch, lane);
    if (lane == 0) before_s = b;
  }
#pragma unroll
  for (int r = 0; r < ROWS; r++) {
    int slot = r * WARPS + warp;
    int k = __shfl_sync(~0u, wi - w, slot) + incl[r] - __popc(f[r]);
    int p = 16 * (r * THREADS + tid);
    for (unsigned g = f[r]; g; g &= g - 1) pos[k++] = (unsigned short) (p + __ffs(g) - 1);
  }
  __syncthreads();
  put_indices<THREADS, STORE>(out + before_s, tile * SITES - head, pos, total, tid);
  if (tile == ntiles - 1 && tid == 0) *(volatile unsigned long long *) count = before_s + total;
}

/* The compaction's own scratch, kept between calls and shared by the
 * variants: the tile states and, after them, the tile counter. The counter
 * is never reset: a call's tiles take the numbers [ct_first, ct_first +
 * ntiles). The count comes back through mapped pinned memory the kernel
 * writes; its device address is looked up once, with the allocation. */
static unsigned long long *ct_state = NULL, *ct_count = NULL, *ct_dcount = NULL;
static long ct_cap = 0;
static unsigned ct_epoch = 0;
static unsigned long long ct_first = 0;

static int compact_scratch(long ntiles, tdpSite at) {
  if (!ct_count) {
    int rc = cuda_check(cudaHostAlloc((void **) &ct_count, sizeof(*ct_count), cudaHostAllocMapped),
                        "cudaHostAlloc of the compaction's count", at);
    if (rc) return rc;
    rc = cuda_check(cudaHostGetDevicePointer((void **) &ct_dcount, ct_count, 0),
                    "cudaHostGetDevicePointer of the compaction's count", at);
    if (rc) {
      cudaFreeHost(ct_count);
      ct_count = ct_dcount = NULL;
      return rc;
    }
  }
  if (ntiles > ct_cap) {
    cudaFree(ct_state);
    ct_state = NULL;
    ct_cap = 0;
    long cap = ntiles < 1024 ? 1024 : ntiles;
    int rc = cuda_check(cudaMalloc((void **) &ct_state, (cap + 1) * sizeof(*ct_state)),
                        "cudaMalloc of the compaction's tile states", at);
    if (rc) return rc;
    ct_cap = cap;
    ct_epoch = ST_EPOCHS - 1; /* clear below */
  }
  if (++ct_epoch == ST_EPOCHS) { /* new scratch, or every epoch used: clear and start over */
    int rc = cuda_check(cudaMemsetAsync(ct_state, 0, (ct_cap + 1) * sizeof(*ct_state), 0),
                        "cudaMemsetAsync of the tile states", at);
    if (rc) return rc;
    ct_epoch = 1;
    ct_first = 0;
  }
  return TARGET_SUCCESS;
}

/* One call of one variant. The driver calls per call are the launch, its
 * error check (host-side, no round trip) and the synchronisation that the
 * count needs; the rest is done once (the carveout once per variant). */
template <int THREADS, int ROWS, int BLOCKS, int STORE>
static int compact_run(long *t_index, size_t *count, const char *t_mask, size_t n, tdpSite at) {
  constexpr long SITES = 16L * ROWS * THREADS;
  const long head = (long) ((uintptr_t) t_mask & 15), m = head + (long) n;
  const long ntiles = (m + SITES - 1) / SITES;
  if (ntiles > INT_MAX || (unsigned long long) m > ST_VAL)
    return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "%zu sites: too many tiles", n);
  int rc = compact_scratch(ntiles, at);
  if (rc) return rc;
  /* BLOCKS blocks of 17-33 KiB need the shared memory; L1 serves nothing here */
  static bool carveout = false;
  if (!carveout) {
    carveout = true;
    if (cudaFuncSetAttribute(compact_kernel<THREADS, ROWS, BLOCKS, STORE>,
                             cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared) != cudaSuccess)
      cudaGetLastError(); /* only a hint: drop its error */
  }
  compact_kernel<THREADS, ROWS, BLOCKS, STORE><<<(unsigned) ntiles, THREADS>>>(
      t_index, ct_dcount, (const unsigned char *) t_mask - head, head, m, ct_state,
      ct_state + ct_cap, ct_first, (unsigned long long) ct_epoch << ST_EPOCH_SHIFT, ntiles);
  rc = cuda_check(cudaGetLastError(), "compaction kernel launch", at);
  if (rc) return rc;
  ct_first += (unsigned long long) ntiles;
  rc = cuda_check(cudaStreamSynchronize(0), "compaction kernel", at);
  if (rc == TARGET_SUCCESS) *count = (size_t) *(volatile unsigned long long *) ct_count;
  return rc;
}

/* The variants, by TARGETDP_COMPACT; the first is the default (unset).
 * All share the scratch: a call's tile count follows its own tile size.
 * Shared memory per SM is 228 KiB, 1 KiB of it reserved per block; a
 * 16384-site tile takes 32.1 KiB (ptxas: 32912 bytes), 33.1 KiB a block.
 * Registers (ptxas, sm_90, no spills): 32 at 4 and 8 blocks, 40 at 6. */
namespace {
typedef int (*ct_run)(long *, size_t *, const char *, size_t, tdpSite);
struct ct_variant {
  const char *name;
  ct_run run;
};
const ct_variant ct_variants[] = {
    /* the default: 256 x 4 rows, 6 blocks/SM, 16-byte stores (t256r4 and
     * t512r2v2 below together). H100, 2^27 sites, % of copy in 3 rounds
     * (e1e6492): 81.9 / 83.6 / 81.6; t256r4 82.4 / 82.1 / 80.3, t512r2v2
     * 79.1 / 79.5 / 79.4, t512r2 78.7 / 80.5 / 79.7 */
    {"t256r4v2", compact_run<256, 4, 6, CT_ST16>},
    /* 512 x 2 rows, 4 blocks/SM, 8-byte stores: the default until 2026-11-25 */
    {"t512r2", compact_run<512, 2, 4, CT_ST8>},
    /* the same tile with 256 x 4 rows: 6 blocks/SM fit the shared memory
     * (6 x 33.1 KiB; 7 would need 232 KiB), 96 KiB of mask loads in flight
     * per SM instead of 64, and 6 tiles' serial phases (number, loads,
     * look-back) per SM overlapping the others' writes instead of 4. A
     * 256 x 4 timed on 2026-11-24 was level with 512 x 2, but its blocks
     * per SM were not recorded: here __launch_bounds__ pins 6. */
    {"t256r4", compact_run<256, 4, 6, CT_ST8>},
    /* half tiles (8192 sites, 16 warp counts), 8 blocks/SM of 256: the
     * same mask bytes in flight per SM as the default, in twice as many
     * tiles, so the drain at the end of the grid (SMs idle while the last
     * tiles write) is half as long; the cost is twice the look-backs */
    {"t256r2", compact_run<256, 2, 8, CT_ST8>},
    /* the default's shape with 16-byte stores on whole lines (put_indices):
     * the index writes are 80% of the bytes */
    {"t512r2v2", compact_run<512, 2, 4, CT_ST16>},
    /* and evict-first: the kernel never reads an index back, so these lines
     * may leave the L2 first, before the tile states the look-backs poll */
    {"t512r2v2cs", compact_run<512, 2, 4, CT_ST16_CS>},

};
constexpr int CT_NVARIANTS = sizeof(ct_variants) / sizeof(ct_variants[0]);
} // namespace

/* CUB's select, for comparison only: TARGETDP_COMPACT=cub (read at each
 * call, so that bench_blocks can time both in one run). */
template <typename N>
static int compact(long *t_index, size_t *count, const char *t_mask, N n, tdpSite at) {
  size_t bytes = 0;
  thrust::counting_iterator<long> sites(0);
  int rc = cuda_check(cub::DeviceSelect::Flagged(NULL, bytes, sites, t_mask, t_index,
                                                 (N *) NULL, n),
                      "cub::DeviceSelect::Flagged (temporary storage size)", at);
  if (rc == TARGET_SUCCESS) rc = grow_temp(bytes, at);
  if (rc) return rc;
  /* the count goes in the last 256 bytes of the scratch */
  N *d_count = (N *) ((char *) d_temp + d_temp_bytes - 256);
  bytes = d_temp_bytes - 256;
  rc = cuda_check(cub::DeviceSelect::Flagged(d_temp, bytes, sites, t_mask, t_index, d_count, n),
                  "cub::DeviceSelect::Flagged", at);
  N c = 0;
  if (rc == TARGET_SUCCESS)
    rc = cuda_check(cudaMemcpy(&c, d_count, sizeof(N), cudaMemcpyDeviceToHost),
                    "cudaMemcpy of the count", at);
  if (rc == TARGET_SUCCESS) *count = (size_t) c;
  return rc;
}

/* An unknown TARGETDP_COMPACT is refused rather than read as the default:
 * a misspelt variant must not pass for a measurement of itself. */
int tdpBackendCompact(long *t_index, size_t *count, const char *t_mask, size_t n, tdpSite at) {
  const char *e = getenv("TARGETDP_COMPACT");
  if (!e || !*e) return ct_variants[0].run(t_index, count, t_mask, n, at);
  if (!strcmp(e, "cub")) {
    if (n <= INT_MAX) return compact(t_index, count, t_mask, (int) n, at);
    return compact(t_index, count, t_mask, (long) n, at);
  }
  char known[256] = "cub";
  for (int i = 0; i < CT_NVARIANTS; i++) {
    if (!strcmp(e, ct_variants[i].name)) return ct_variants[i].run(t_index, count, t_mask, n, at);
    strncat(known, " ", sizeof(known) - strlen(known) - 1);
    strncat(known, ct_variants[i].name, sizeof(known) - strlen(known) - 1);
  }
  return tdpFail(TARGET_ERROR_INVALID_VALUE, at, "TARGETDP_COMPACT=%s: not one of %s", e, known);
}

void tdpBackendScanFinalize(void) {
  cudaFree(ct_state);
  cudaFreeHost(ct_count);
  ct_state = ct_count = ct_dcount = NULL;
  ct_cap = 0;
  ct_epoch = 0;
  ct_first = 0;
  cudaFree(d_temp);
  d_temp = NULL;
  d_temp_bytes = 0;
}
