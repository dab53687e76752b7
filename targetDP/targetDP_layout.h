/*
 * targetDP_layout.h -- the layout functions behind TDP_INDEX, TDP_INDEX2,
 * TDP_VINDEX, TDP_VINDEX2, TDP_NSITES_ALLOC and TDP_FIELD_SIZE (targetDP.h,
 * "Layout", which has the macros and why each layout is laid out so):
 * inline functions, so each argument is evaluated once, and the same
 * vector code as the arithmetic written out. Also TARGETDP_LAYOUT, the
 * layout's name, and TDP_VINDEX_DIRECT_ (1 where TDP_VINDEX has its own
 * arithmetic). Included by targetDP.h (never on its own) after the
 * configuration, which is all it uses (with TDP_HD_ of targetDP_macros.h).
 */
#ifndef TARGETDP_H
#error "targetDP_layout.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_LAYOUT_H
#define TARGETDP_LAYOUT_H

#if defined(TARGETDP_AOS)
#define TARGETDP_LAYOUT "AOS"
static TDP_HD_ inline size_t tdpIndex_(size_t nsites, size_t ncomp, size_t isite, size_t icomp) {
  (void) nsites;
  return isite * ncomp + icomp;
}
static TDP_HD_ inline size_t tdpNsitesAlloc_(size_t nsites) { return nsites; }
#elif defined(TARGETDP_SOA)
#define TARGETDP_LAYOUT "SOA"
static TDP_HD_ inline size_t tdpIndex_(size_t nsites, size_t ncomp, size_t isite, size_t icomp) {
  (void) ncomp;
  return icomp * nsites + isite;
}
static TDP_HD_ inline size_t tdpNsitesAlloc_(size_t nsites) { return nsites; }
#else
#define TARGETDP_LAYOUT "AOSOA"
static TDP_HD_ inline size_t tdpIndex_(size_t nsites, size_t ncomp, size_t isite, size_t icomp) {
  (void) nsites;
  return (isite / (SAL)) * ncomp * (SAL) + icomp * (SAL) + isite % (SAL);
}
static TDP_HD_ inline size_t tdpNsitesAlloc_(size_t nsites) {
  return ((nsites + (SAL) - 1) / (SAL)) * (SAL);
}
#endif

static TDP_HD_ inline size_t tdpIndex2_(size_t nsites, size_t n1, size_t n2, size_t isite,
                                        size_t i1, size_t i2) {
  return tdpIndex_(nsites, n1 * n2, isite, i1 * n2 + i2);
}

/* TDP_VINDEX: under AoSoA the lanes of a stride lie in one short array
 * (SAL a multiple of VVL). Not on CUDA at VVL > 1: there a thread's lanes
 * are a block apart (vecIndex = lane * blockDim, see TDP_ILP), not in one
 * short array; not in the checked build (TDP_INDEX checks each access). */
#if defined(TARGETDP_AOSOA) && (SAL) % (VVL) == 0 && !defined(TARGETDP_CHECK) && \
    !(defined(__CUDACC__) && VVL > 1)
static TDP_HD_ inline size_t tdpVIndex_(size_t nsites, size_t ncomp, size_t base, size_t icomp,
                                        size_t vec) {
  (void) nsites;
  return (base / (SAL)) * ncomp * (SAL) + icomp * (SAL) + base % (SAL) + vec;
}
static TDP_HD_ inline size_t tdpVIndex2_(size_t nsites, size_t n1, size_t n2, size_t base,
                                         size_t i1, size_t i2, size_t vec) {
  return tdpVIndex_(nsites, n1 * n2, base, i1 * n2 + i2, vec);
}
#define TDP_VINDEX_DIRECT_ 1
#else
#define TDP_VINDEX_DIRECT_ 0
#endif

static TDP_HD_ inline size_t tdpFieldSize_(size_t nsites, size_t ncomp) {
  return tdpNsitesAlloc_(nsites) * ncomp;
}

#endif /* TARGETDP_LAYOUT_H */
