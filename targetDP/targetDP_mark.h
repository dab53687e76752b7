/*
 * targetDP_mark.h -- the configuration's name and its marks: TARGETDP_CONFIG
 * (compared by targetInit() with the library's), the link-time
 * configuration mark below, and the OpenMP mark at the end. Every translation
 * unit that includes targetDP.h defines one symbol in a section named after
 * its configuration (TDP_CONFIG_TAG_), so that objects compiled in
 * different configurations do not link into one program. Included by
 * targetDP.h (never on its own) right after the configuration and layout,
 * which are all it uses.
 *
 * Objects compiled in different configurations must not be linked into one
 * program: their macros disagree on layout, VVL and launch shape, and the
 * result runs wrong without any error. Every translation unit that includes
 * targetDP.h defines the one symbol below in a .gnu.linkonce section named
 * after its configuration. The linker keeps one section of each name, so
 * objects of one configuration share one definition; objects of two
 * configurations give two definitions and the link fails, naming both:
 *   b.o:(.gnu.linkonce.d.targetDP_config_c_SOA_VVL1_SAL1_TPB128_unchecked+0x0):
 *   multiple definition of `tdp_objects_built_with_different_targetDP_configurations';
 *   a.o:(.gnu.linkonce.d.targetDP_config_c_AOSOA_VVL4_SAL4_TPB128_unchecked+0x0):
 *   first defined here
 * The library's backend object carries its own, so a program and a library
 * built differently fail the same way (targetInit still checks at run time,
 * e.g. for a shared library or a linker without linkonce sections).
 * gcc -flto: the linker plugin ignores section names, so even objects of
 * one configuration collide; build with -DTDP_NO_CONFIG_MARK there. */
#ifndef TARGETDP_H
#error "targetDP_mark.h is part of targetDP.h: include targetDP.h"
#endif
#ifndef TARGETDP_MARK_H
#define TARGETDP_MARK_H

/* One string naming the build, compared by targetInit() with the library's. */
#ifdef TARGETDP_CHECK
#define TDP_CHECK_NAME_ " checked"
#else
#define TDP_CHECK_NAME_ ""
#endif
/* A profiling build times every launch: caller and library must agree. */
#ifdef TARGETDP_PROFILE
#define TDP_PROFILE_NAME_ " profile"
#else
#define TDP_PROFILE_NAME_ ""
#endif
#define TARGETDP_CONFIG                                                    \
  "backend=" TARGETDP_BACKEND " layout=" TARGETDP_LAYOUT                   \
  " VVL=" TDP_STR(VVL) " SAL=" TDP_STR(SAL) " TPB=" TDP_STR(TARGET_TPB)   \
  TDP_CHECK_NAME_ TDP_PROFILE_NAME_

#ifdef TARGETDP_CHECK
#define TDP_CHECK_TAG_ "checked"
#else
#define TDP_CHECK_TAG_ "unchecked"
#endif
#define TDP_CONFIG_TAG_                                                      \
  "targetDP_config_" TARGETDP_BACKEND "_" TARGETDP_LAYOUT "_VVL" TDP_STR(VVL)   \
  "_SAL" TDP_STR(SAL) "_TPB" TDP_STR(TARGET_TPB) "_" TDP_CHECK_TAG_
#if defined(__ELF__) && defined(__GNUC__) && !defined(TDP_NO_CONFIG_MARK)
#ifdef __cplusplus
extern "C" {
#endif
extern int tdp_objects_built_with_different_targetDP_configurations;
__attribute__((section(".gnu.linkonce.d." TDP_CONFIG_TAG_), used))
int tdp_objects_built_with_different_targetDP_configurations = 1;
#ifdef __cplusplus
}
#endif
#endif

/* A program compiled with OpenMP defines this (weak: every such object
 * may); the OpenMP library's backend refers to it, so linking that library
 * into a program compiled without -fopenmp names what is missing beside
 * the bare GOMP_* undefined references (issue 28). */
#if defined(_OPENMP) && defined(__GNUC__) && !defined(TDP_LIBRARY_) && !defined(__CUDACC__)
#ifdef __cplusplus
extern "C" {
#endif
__attribute__((weak)) int targetDP_library_uses_OpenMP__compile_and_link_the_program_with_fopenmp = 1;
#ifdef __cplusplus
}
#endif
#endif

#endif /* TARGETDP_MARK_H */
