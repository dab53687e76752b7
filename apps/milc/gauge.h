/* Gauge fields and sources, made on the host in the build's layout.
 *
 * Every random number belongs to one global site: a counter-based
 * generator (splitmix64) is seeded from (seed, stream, global index), so a
 * field is the same for any decomposition and any rank count, and no
 * sequential stream has to be shared or skipped ahead. */
#ifndef MILC_GAUGE_H
#define MILC_GAUGE_H

#include <stdint.h>

#include "lattice.h"

typedef enum { MILC_STREAM_LINKS = 1, MILC_STREAM_GAUGE_TRANSFORM, MILC_STREAM_SOURCE } milcStream;

typedef struct {
  uint64_t s;
} milcRng;

void milcRngInit(milcRng *r, uint64_t seed, milcStream stream, uint64_t index);
double milcRngUniform(milcRng *r); /* in (0, 1) */
double milcRngGauss(milcRng *r);   /* standard normal */

/* A random SU(3) matrix: Gaussian complex entries, rows orthonormalised
 * (Gram-Schmidt), the third row the conjugate cross product of the first
 * two, so that det = 1 to rounding. */
void milcRandomSU3(uint64_t seed, milcStream stream, uint64_t index, double u[18]);
/* |det u - 1| and max |u u^dagger - 1| */
double milcSU3DetError(const double u[18]);
double milcSU3UnitarityError(const double u[18]);

/* Links of every interior site (h_U: milcFieldBytes(L, MILC_NL) bytes, the
 * build's layout): unit matrices, or random SU(3) from seed. The halo is
 * filled on the target (milcHaloFill) after the upload. */
void milcGaugeUnit(const milcLattice *L, double *h_U);
void milcGaugeRandom(const milcLattice *L, double *h_U, uint64_t seed);

/* A random gauge transformation g(x) from seed:
 *   U_mu(x) -> g(x) U_mu(x) g(x + mu)^dagger,  v(x) -> g(x) v(x)
 * (interior sites; v on the sites of parity p). */
void milcGaugeTransformLinks(const milcLattice *L, double *h_U, uint64_t seed);
void milcGaugeTransformVector(const milcLattice *L, double *h_v, int p, uint64_t seed);

/* Gaussian random colour vector on the interior sites of parity p. */
void milcSourceRandom(const milcLattice *L, double *h_v, int p, uint64_t seed);

#endif
