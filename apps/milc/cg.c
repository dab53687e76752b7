#include <math.h>
#include <stdio.h>

#include "cg.h"
#include "common/timer.h"

void milcCgWorkCreate(milcCgWork *w, const milcLattice *L, size_t esize) {
  w->r = milcFieldAlloc(L, MILC_NV, esize);
  w->p = milcFieldAlloc(L, MILC_NV, esize);
  w->q = milcFieldAlloc(L, MILC_NV, esize);
  w->t = milcFieldAlloc(L, MILC_NV, esize);
  w->s = milcFieldAlloc(L, MILC_NV, esize);
}

void milcCgWorkFree(milcCgWork *w) {
  targetFree(w->r);
  targetFree(w->p);
  targetFree(w->q);
  targetFree(w->t);
  targetFree(w->s);
}

static double total(const milcOps *o, const double *v) {
  double s = 0.0;
  for (int k = 0; k < MILC_K_NKIND; k++) s += v[k];
  (void) o;
  return s;
}

#define MILC_EACH_REAL_FILE "cg_impl.h"
#include "each_real.h"
