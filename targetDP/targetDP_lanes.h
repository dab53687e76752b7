/*
 * targetDP_lanes.h -- how the lanes of a stride store: TDP_STREAM_LANES,
 * the streaming-store form of the TLP/ILP idiom (issue 10: the host STREAM
 * kernels reach the best native ones only with streaming stores), and
 * TDP_ILP_STAGED, every lane's loads before any lane's store. Included by
 * targetDP.h after the layout and checked-index functions they use; not a
 * header to include on its own.
 */
#ifndef TARGETDP_LANES_H
#define TARGETDP_LANES_H
/* TDP_STREAM_LANES(field, nsites, ncomp, site, icomp, r): the lanes of one
 * stride stored from a per-lane array, as streaming (non-temporal) stores
 * where the hardware allows and plain stores otherwise. The loop it serves
 * (docs/api.md, "Kernel hints"):
 *
 *   TDP_TLP(base, n) {
 *     double r[VVL];                                  results of the stride
 *     TDP_ILP(v) r[TDP_LANE(v)] = b[base + v] + s * c[base + v];
 *     TDP_STREAM_LANES(a, n, 1, base, 0, r);          a[base + v] = r[lane]
 *   }
 *
 * i.e. for every lane of the stride, field[TDP_INDEX(nsites, ncomp,
 * site + vecIndex, icomp)] = r[TDP_LANE(vecIndex)]. Written once per stride,
 * after the ILP loop, inside TDP_TLP (or a box loop), for double and float
 * fields (a plain array is the field of one component: ncomp 1, icomp 0).
 * Why the field's coordinates and not a pointer to lane 0: the layer then
 * knows where every lane is in every layout (AoS puts a component's lanes
 * ncomp apart, AoSoA with SAL < VVL or a stride that crosses a short array
 * splits them), checks each one in the checked build, and the kernel holds
 * no layout test. Each argument is evaluated once (inline functions; the
 * macro adds the loop's lane count, and in the checked build file:line).
 *
 * C backend (AVX, unchecked builds): a full stride whose lanes are
 * contiguous and whose first lane is aligned to the vector width becomes
 * VVL * sizeof(T) / W streaming stores of W bytes (W = 64: _mm512_stream_pd
 * / _ps with AVX-512 where VVL * sizeof(T) is a multiple of 64; else
 * W = 32, _mm256_stream_pd / _ps): no read of the destination line first
 * (write-allocate), which is what a store-bound kernel gains. Everything
 * else is plain stores (contiguous lanes: one vector store; else lane by
 * lane): the short last stride, a misaligned or split stride, VVL *
 * sizeof(T) not a multiple of 32 (VVL 1 and 2 for double), no AVX, the
 * checked build (every lane bounds-checked), box loops (they do not
 * fence). Streaming stores are weakly ordered: TDP_TLP fences each
 * thread's once, when the thread has done its strides (tdpTlpEnd_), so the
 * data are in memory when the kernel returns; nothing to call. They pay
 * where the kernel writes whole 64-byte lines that nothing reads soon (a
 * partial line is still right, but may be slower than plain stores).
 *
 * CUDA: plain stores, lane by lane (lanes a block apart, coalesced), not
 * __stcs. A GPU does not read a line before a write that covers its
 * sectors (no write-allocate traffic for a streaming store to save: the
 * plain-store STREAM kernels are at 1.00-1.05 of the best native CUDA
 * candidate), and the evict-first hint can only lose L2 hits of a next
 * kernel that reads the field (fields up to the 50 MB L2). At VVL 1 the
 * PTX of the STREAM kernels is that of the loop storing field[...] =
 * r[lane] directly; at VVL > 1 a stride's loads now all come before its
 * stores (as in the native ilp candidates), the stores are the same. */
#ifdef TARGETDP_CHECK
#define TDP_SL_WHERE_ , __func__, __FILE__, __LINE__
#define TDP_SL_WHERE_PARAMS_ , const char *func, const char *file, int line
#define TDP_SL_INDEX_(nsites, ncomp, isite, icomp)                                     \
  tdpIndexChecked_((long) (nsites), (long) (ncomp), (long) (isite), (long) (icomp), func, \
                   file, line)
#else
#define TDP_SL_WHERE_
#define TDP_SL_WHERE_PARAMS_
#define TDP_SL_INDEX_(nsites, ncomp, isite, icomp) tdpSlIndex_(nsites, ncomp, (size_t) (isite), icomp)
#endif
/* TDP_INDEX, with component 0 of a one-component field (a plain array) at
 * isite in every layout, whatever the compiler sees of AoSoA's arithmetic. */
static TDP_HD_ inline size_t tdpSlIndex_(size_t nsites, size_t ncomp, size_t isite, size_t icomp) {
  return ncomp == 1 && icomp == 0 ? isite : tdpIndex_(nsites, ncomp, isite, icomp);
}
/* C++ (and CUDA) overloads one name; C picks the type's function. */
#ifdef __cplusplus
#define TDP_SL_NAME_(Name) tdpStreamLanes_
#define TDP_SL_FN_(field) tdpStreamLanes_
#else
#define TDP_SL_NAME_(Name) tdpStreamLanes##Name##_
#define TDP_SL_FN_(field) \
  __extension__ _Generic((field), double *: tdpStreamLanesDouble_, float *: tdpStreamLanesFloat_)
#endif
#define TDP_STREAM_LANES(field, nsites, ncomp, site, icomp, r)                              \
  TDP_SL_FN_(field)((field), (size_t) (nsites), (size_t) (ncomp), (long) (site),             \
                    (size_t) (icomp), (r), TDP_SL_LOOP_ TDP_SL_WHERE_)

#ifdef __CUDACC__
/* The loop's lane count and the offset between lanes (blockDim in
 * TDP_TLP, 1 in box loops). */
#define TDP_SL_LOOP_ tdp_nlane_, tdp_lstride_
#define TDP_SL_DEFINE_(Name, T, sfx)                                                       \
  static __device__ __forceinline__ void TDP_SL_NAME_(Name)(                               \
      T *field, size_t nsites, size_t ncomp, long site, size_t icomp, const T *r, int nlane, \
      int lstride TDP_SL_WHERE_PARAMS_) {                                                  \
    _Pragma("unroll") for (int l = 0; l < (VVL); l++) if (l < nlane)                       \
      field[TDP_SL_INDEX_(nsites, ncomp, site + (long) l * lstride, icomp)] = r[l];         \
  }
#else
/* The loop's lane count and whether the loop fences (TDP_TLP: 1). */
#if VVL == 1
#define TDP_SL_LOOP_ 1, 0
#else
#define TDP_SL_LOOP_ (int) TDP_NLANE_, (int) tdp_fence_
#endif
/* Whether lanes site .. site + VVL - 1 of a component are contiguous. */
static inline int tdpSlContiguous_(size_t ncomp, long site) {
#if defined(TARGETDP_SOA)
  (void) ncomp, (void) site;
  return 1;
#elif defined(TARGETDP_AOS)
  (void) site;
  return ncomp == 1;
#else
  return ncomp == 1 || (size_t) site % (SAL) + (VVL) <= (SAL);
#endif
}
#if TDP_HAVE_STREAM_STORE
#include <stdint.h>
/* One vector of W bytes from r to the W-aligned p, streamed. */
#ifdef __AVX512F__
#define TDP_SL_W_ 64
#define TDP_SL_VEC_(sfx, p, r) _mm512_stream_##sfx((p), _mm512_loadu_##sfx(r))
#else
#define TDP_SL_W_ 32
#define TDP_SL_VEC_(sfx, p, r) _mm256_stream_##sfx((p), _mm256_loadu_##sfx(r))
#endif
#define TDP_SL_VEC32_(sfx, p, r) _mm256_stream_##sfx((p), _mm256_loadu_##sfx(r))
/* A full stride at a W-aligned p, streamed. The width w is a constant of
 * the type and VVL (0: a stride is not a multiple of 32 bytes), so the
 * tests fold; what is left per stride is the alignment test of p (one
 * test and a branch that always goes the same way in a loop over an
 * aligned field). */
#define TDP_SL_STREAM_(T, sfx)                                                               \
  const size_t bytes = (VVL) * sizeof(T);                                                    \
  const size_t w = bytes % TDP_SL_W_ == 0 ? TDP_SL_W_ : bytes % 32 == 0 ? 32 : 0;             \
  if (w && fenced && nlane == (VVL) && ((uintptr_t) p & (w - 1)) == 0) {                     \
    if (w == TDP_SL_W_)                                                                      \
      for (size_t l = 0; l < (VVL); l += TDP_SL_W_ / sizeof(T)) TDP_SL_VEC_(sfx, p + l, r + l); \
    else                                                                                     \
      for (size_t l = 0; l < (VVL); l += 32 / sizeof(T)) TDP_SL_VEC32_(sfx, p + l, r + l);    \
    return;                                                                                  \
  }
#else
#define TDP_SL_STREAM_(T, sfx) (void) fenced;
#endif
#ifndef TARGETDP_CHECK
/* Contiguous lanes: streamed, or one plain vector store; other lanes one
 * by one. */
#define TDP_SL_DEFINE_(Name, T, sfx)                                                         \
  static inline void TDP_SL_NAME_(Name)(T *field, size_t nsites, size_t ncomp, long site,    \
                                        size_t icomp, const T *r, int nlane, int fenced) {    \
    if (tdpSlContiguous_(ncomp, site)) {                                                     \
      T *p = field + tdpSlIndex_(nsites, ncomp, (size_t) site, icomp);                       \
      TDP_SL_STREAM_(T, sfx)                                                                 \
      for (int l = 0; l < nlane; l++) p[l] = r[l];                                           \
      return;                                                                                \
    }                                                                                        \
    for (int l = 0; l < nlane; l++) field[TDP_SL_INDEX_(nsites, ncomp, site + l, icomp)] = r[l]; \
  }
#else /* checked: every lane through the checked index, plain stores */
#define TDP_SL_DEFINE_(Name, T, sfx)                                                         \
  static inline void TDP_SL_NAME_(Name)(T *field, size_t nsites, size_t ncomp, long site,    \
                                        size_t icomp, const T *r, int nlane,                  \
                                        int fenced TDP_SL_WHERE_PARAMS_) {                    \
    (void) fenced;                                                                           \
    for (int l = 0; l < nlane; l++) field[TDP_SL_INDEX_(nsites, ncomp, site + l, icomp)] = r[l]; \
  }
#endif
/* The end of TDP_TLP's once-loop, after a thread's last stride: fences
 * the thread's streaming stores (fence: the loop says it may hold some).
 * Returns 0: the loop ends. */
static inline int tdpTlpEnd_(long fence) {
#if TDP_HAVE_STREAM_STORE
  if (fence) _mm_sfence();
#else
  (void) fence;
#endif
  return 0;
}
#endif /* __CUDACC__ */
TDP_SL_DEFINE_(Double, double, pd)
TDP_SL_DEFINE_(Float, float, ps)

/* TDP_ILP_STAGED(vecIndex, T, dest, value): an ILP loop "dest = value" whose
 * lanes compute all their values, and so issue all their loads, before any
 * lane stores, e.g. STREAM's Nstream a[i] += b[i] + s * c[i]:
 *
 *   TDP_TLP(base, n) {
 *     TDP_ILP_STAGED(v, double, a[base + v], a[base + v] + (b[base + v] + s * c[base + v]));
 *   }
 *
 * T is the type the values are staged in (dest's). The lanes must be
 * independent, as in any TDP_ILP loop (no lane reads what another writes).
 * CUDA: the lanes' values go to a local T[VVL] (registers), then the
 * stores: in one lane loop "a[base + v] += ..." each lane's load of a waits
 * for the previous lane's store, which nvcc cannot prove is elsewhere
 * (Nstream 0.98 of native at 2 lanes on the H100, 0.997 staged). C: one
 * TDP_ILP loop, dest = value: vectorised, each operand is one vector load
 * before the one vector store anyway. A local array filled by one ILP loop
 * and stored by another is what the CUDA form is, but clang 14 keeps it in
 * memory (its ILP loop stays a one-trip loop, so the array is never
 * promoted to registers): two extra stores and loads per vector, and
 * Nstream at 0.958 of the native loop on the Sapphire Rapids host. value
 * may hold commas (the rest of the arguments). */
#ifdef __CUDACC__
#define TDP_ILP_STAGED(vecIndex, T, dest, ...)                                \
  do {                                                                        \
    T tdp_staged_[VVL];                                                       \
    TDP_ILP(vecIndex) tdp_staged_[TDP_LANE(vecIndex)] = (T) (__VA_ARGS__);    \
    TDP_ILP(vecIndex) (dest) = tdp_staged_[TDP_LANE(vecIndex)];               \
  } while (0)
#else
#define TDP_ILP_STAGED(vecIndex, T, dest, ...) \
  TDP_ILP(vecIndex) (dest) = (T) (__VA_ARGS__)
#endif

#endif /* TARGETDP_LANES_H */
