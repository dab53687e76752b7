/* CG for one storage type MILC_REAL, named R(name): included by cg.h once
 * per precision. No include guard. */

/* x (even sites) is the start vector on entry, the solution on exit. */
void R(milcCgSolve)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_x, const MILC_REAL *t_b,
                    const milcCgParams *cp, milcCgWork *w, milcCgResult *res);
/* q = M_ee x (x's even halo is filled; t: odd scratch); returns Re <x, M x>. */
double R(milcApplyM)(milcOps *o, const MILC_REAL *t_U, MILC_REAL *t_x, MILC_REAL *t_q,
                     MILC_REAL *t_t, double mass);
