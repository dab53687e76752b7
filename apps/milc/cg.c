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

/* The stop code of a CG iteration (2 breakdown, 1 done, 0 on) as every
 * rank has it: the ranks' global sums are exact, so they agree; a rank
 * that does not is a fault, stopped here rather than left waiting in the
 * next sum. */
static int agreedStop(milcOps *o, int code, long iteration) {
  int rank = 0, nranks = 1;
  MPI_Comm_rank(o->comm, &rank);
  MPI_Comm_size(o->comm, &nranks);
  if (nranks == 1) return code;
  int hi = code, lo = code;
  MPI_Allreduce(&code, &hi, 1, MPI_INT, MPI_MAX, o->comm);
  MPI_Allreduce(&code, &lo, 1, MPI_INT, MPI_MIN, o->comm);
  if (lo != hi) {
    fprintf(stderr, "milc: error: rank %d: the ranks disagree whether CG stops at iteration %ld "
                    "(this rank: %d, another: %d): the global sums differ between ranks\n",
            rank, iteration, code, code == lo ? hi : lo);
    MPI_Abort(o->comm, 1);
  }
  return hi;
}

#define MILC_EACH_REAL_FILE "cg_impl.h"
#include "each_real.h"
