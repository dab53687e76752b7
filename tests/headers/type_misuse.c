/* Typed host helpers given arrays of another element type (issue 25 item
 * 4): each CASE is one misuse that must not compile, as C (gcc, clang),
 * C++17 (g++, clang++) and CUDA C++ (nvcc); tests/suites/headers.sh
 * compiles each on its own, without -Werror: a warning is not a refusal
 * (on main, targetScanInclusiveInt on a double array compiled without a
 * word and returned garbage, and the typed wrappers only warned in C).
 * CASE 0 is the file with every call right, including the forms that stay
 * legal: const sources, void * (a typeless buffer, in C), arrays. */
#include "targetDP.h"

double *td;
float *tf;
int *ti;
long *tl;
long long *tll;
char *tc;
tdpDoubleComplex *tz;
tdpFloatComplex *tzf;
void *tv;
const double *cd;

int misuse(void) {
  int sites[2] = {0, 1}, extents[3] = {4, 4, 4};
  long ext[3] = {4, 4, 4}, lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
  size_t count = 0;
  double rd = 0.0;
  float rf = 0.0f;
  long long rll = 0;
  long rl = 0;
  int ri = 0;
  tdpDoubleComplex rz;
  (void) rf;
  (void) rl;
  (void) ri;
  (void) count;
  (void) sites;
  (void) extents;
  (void) ext;
  (void) lo;
  (void) hi;
  (void) rz;
  (void) rd;
  (void) rll;
#if CASE == 1 /* the first probe */
  return targetScanInclusiveInt(ti, td, 8);
#elif CASE == 2 /* ... and its second */
  return targetScanExclusiveLong(tl, tf, 8);
#elif CASE == 3
  return targetScanInclusiveDouble(td, tl, 8);
#elif CASE == 4
  return targetLongSum(&rl, ti, 8);
#elif CASE == 5 /* a result of the wrong width: 8 bytes written into an int */
  return targetIntSum(&ri, ti, 8);
#elif CASE == 6
  return targetDoubleSum(&rd, tf, 8);
#elif CASE == 7
  return targetFloatMax(&rd, tf, 8);
#elif CASE == 8
  return targetSetConstant(tf, 1.0, 8);
#elif CASE == 9
  return targetZeroInt(td, 8);
#elif CASE == 10
  return copyToTargetSitesFloat(td, tf, 8, 1, sites, 2);
#elif CASE == 11
  return copyFromTargetMasked(tf, td, 8, 1, tc);
#elif CASE == 12
  return copyToTarget3DHaloLong(tll, tl, extents, 1, 1);
#elif CASE == 13
  return targetAoS2SoAFloat(tf, td, 4, 2);
#elif CASE == 14
  return targetPackBoxInt(ti, tf, 3, ext, lo, hi, 1, TARGET_STREAM_DEFAULT);
#elif CASE == 15
  return targetCompactIndices(ti, &count, tc, 8);
#elif CASE == 16
  return targetDoubleComplexSum(&rd, tz, 8);
#elif CASE == 17
  return targetSetConstantFloatComplex(tz, rz, 8);
#elif CASE == 18
  return copyFromTargetSites(tf, td, 8, 1, sites, 2);
#elif CASE == 19
  return targetIntMin(&rll, td, 8);
#else
  int rc = targetScanInclusiveInt(ti, ti, 8) + targetScanExclusiveLong(tl, tl, 8) +
           targetScanInclusiveDouble(td, cd, 8) + targetLongSum(&rl, tl, 8) +
           targetIntSum(&rll, ti, 8) + targetDoubleSum(&rd, cd, 8) +
           targetFloatMax(&rf, tf, 8) + targetSetConstant(td, 1.0, 8) + targetZeroInt(ti, 8) +
           copyToTargetSitesFloat(tf, tf, 8, 1, sites, 2) +
           copyFromTargetMasked(td, td, 8, 1, tc) +
           copyToTarget3DHaloLong(tl, tl, extents, 1, 1) + targetAoS2SoAFloat(tf, tf, 4, 2) +
           targetPackBoxInt(ti, ti, 3, ext, lo, hi, 1, TARGET_STREAM_DEFAULT) +
           targetCompactIndices(tl, &count, tc, 8) + targetDoubleComplexSum(&rz, tz, 8) +
           targetSetConstantDoubleComplex(tz, rz, 8) + copyFromTargetSites(td, cd, 8, 1, sites, 2) +
           targetIntMin(&rll, ti, 8) + targetFloatComplexSum((tdpFloatComplex *) tv, tzf, 8);
#ifndef __cplusplus
  /* C: a typeless buffer (void *) stays legal, as it converts in C */
  rc += targetScanInclusiveLong(tv, tv, 8) + targetZeroDouble(tv, 8) + targetDoubleSum(&rd, tv, 8);
#endif
  return rc + ri + (int) rf + (int) rd + (int) rll + (int) rl;
#endif
}
