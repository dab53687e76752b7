/*
 * test_box_reduce.c -- the box reductions (TDP_TLP_2D/3D_SUM, _REDUCE with
 * TDP_RMIN/TDP_RMAX, TDP_LAUNCH_BOX_REDUCE) and the shell passes
 * (TDP_TLP_2D/3D_SHELL, TDP_LAUNCH_SHELL) and the one-pass edge forms
 * (TDP_TLP_2D/3D_EDGE) against serial references, and TDP_INLINE helpers
 * in a lane loop.
 *
 * Sums: of small integers (exact in any order), with the coordinates the
 * loop gives folded in, and a conditional body that stores and reduces
 * under an if (the body clang 14 and 16 summed wrongly in "omp for simd":
 * issue 25). Min and max of distinct values. Shells: every site within nh
 * of a face of the box visited exactly once, none other touched, the
 * coordinates agreeing with the site index; boxes with lo > 0, thin boxes
 * (no interior), empty boxes, rows that are and are not multiples of VVL,
 * lattices of several CUDA blocks.
 */

#include "test_util.h"

/* A helper the lane loop calls: always inlined. */
static TDP_HOST_DEVICE TDP_INLINE double weigh(double v, long x, long y, long z) {
  return v * (1 + ((x + 2 * y + 3 * z) & 3));
}

/* sums[0]: sum of weigh(f) over the box; sums[1]: the number of sites;
 * sums[2]: the sum of f over the sites where f > 0, each such site also
 * stored in g (the conditional body). */
TDP_KERNEL void kSum2(targetBox box, const double *f, double *g, double *t_sums) {
  const long nsites = targetBoxLatticeSites(&box);
  double a = 0.0, n = 0.0, p = 0.0;
  TDP_TLP_2D_SUM(box, x, y0, base, a, n, p) {
    TDP_ILP_REDUCE(v) {
      const double val = f[TDP_INDEX(nsites, 1, base + v, 0)];
      a += weigh(val, x, y0 + v, 0);
      n += 1.0;
      if (val > 0) {
        g[TDP_INDEX(nsites, 1, base + v, 0)] = val;
        p += val;
      }
    }
  }
  targetBlockAddDouble(t_sums, a);
  targetBlockAddDouble(t_sums + 1, n);
  targetBlockAddDouble(t_sums + 2, p);
}

TDP_KERNEL void kSum3(targetBox box, const double *f, double *g, double *t_sums) {
  const long nsites = targetBoxLatticeSites(&box);
  double a = 0.0, n = 0.0, p = 0.0;
  TDP_TLP_3D_SUM(box, x, y, z0, base, a, n, p) {
    TDP_ILP_REDUCE(v) {
      const double val = f[TDP_INDEX(nsites, 1, base + v, 0)];
      a += weigh(val, x, y, z0 + v);
      n += 1.0;
      if (val > 0) {
        g[TDP_INDEX(nsites, 1, base + v, 0)] = val;
        p += val;
      }
    }
  }
  targetBlockAddDouble(t_sums, a);
  targetBlockAddDouble(t_sums + 1, n);
  targetBlockAddDouble(t_sums + 2, p);
}

/* The min and max of f over the box (start: an element of the data, the
 * rule of TDP_RMIN/TDP_RMAX). */
TDP_KERNEL void kMinMax2(targetBox box, const double *f, double start, double *t_mm) {
  const long nsites = targetBoxLatticeSites(&box);
  double mn = start, mx = start;
  TDP_TLP_2D_REDUCE(box, x, y0, base, TDP_RMIN(mn), TDP_RMAX(mx)) {
    TDP_ILP_REDUCE(v) {
      const double val = f[TDP_INDEX(nsites, 1, base + v, 0)];
      mn = val < mn ? val : mn;
      mx = val > mx ? val : mx;
    }
  }
  targetBlockMinDouble(t_mm, mn);
  targetBlockMaxDouble(t_mm + 1, mx);
}

TDP_KERNEL void kMinMax3(targetBox box, const double *f, double start, double *t_mm) {
  const long nsites = targetBoxLatticeSites(&box);
  double mn = start, mx = start;
  TDP_TLP_3D_MIN(box, x, y, z0, base, mn) {
    TDP_ILP_REDUCE(v) {
      const double val = f[TDP_INDEX(nsites, 1, base + v, 0)];
      mn = val < mn ? val : mn;
    }
  }
  TDP_TLP_3D_MAX(box, x, y, z0, base, mx) {
    TDP_ILP_REDUCE(v) {
      const double val = f[TDP_INDEX(nsites, 1, base + v, 0)];
      mx = val > mx ? val : mx;
    }
  }
  targetBlockMinDouble(t_mm, mn);
  targetBlockMaxDouble(t_mm + 1, mx);
}

/* Shells: a visit count per site and the coordinates of the visit. */
static TDP_HOST_DEVICE inline long code3(long a, long b, long c) {
  return (a * 4096 + b) * 4096 + c;
}
TDP_KERNEL void kShell2(targetBox box, long nh, int *count, long *code) {
  TDP_TLP_2D_SHELL(box, nh, x, y0, base) {
    TDP_ILP(v) {
      targetAtomicAddInt(count + base + v, 1);
      code[base + v] = code3(0, x, y0 + v);
    }
  }
}
TDP_KERNEL void kShell3(targetBox box, long nh, int *count, long *code) {
  TDP_TLP_3D_SHELL(box, nh, x, y, z0, base) {
    TDP_ILP(v) {
      targetAtomicAddInt(count + base + v, 1);
      code[base + v] = code3(x, y, z0 + v);
    }
  }
}

/* The edge forms: every site of the box once, 1 added where the loop says
 * edge (the shell of depth nh), 2 where it says interior. */
TDP_KERNEL void kEdge2(targetBox box, long nh, int *count, long *code) {
  TDP_TLP_2D_EDGE(box, nh, x, y0, base, edge) {
    if (edge) {
      TDP_ILP(v) {
        targetAtomicAddInt(count + base + v, 1);
        code[base + v] = code3(0, x, y0 + v);
      }
    } else {
      TDP_ILP(v) {
        targetAtomicAddInt(count + base + v, 2);
        code[base + v] = code3(0, x, y0 + v);
      }
    }
  }
}
/* A TDP_KERNEL_STENCIL kernel: TDP_LAUNCH_STENCIL runs it too (on CUDA
 * one site per thread where no march length is forced). */
TDP_KERNEL_STENCIL void kEdge3(targetBox box, long nh, int *count, long *code) {
  TDP_TLP_3D_EDGE(box, nh, x, y, z0, base, edge) {
    if (edge) {
      TDP_ILP(v) {
        targetAtomicAddInt(count + base + v, 1);
        code[base + v] = code3(x, y, z0 + v);
      }
    } else {
      TDP_ILP(v) {
        targetAtomicAddInt(count + base + v, 2);
        code[base + v] = code3(x, y, z0 + v);
      }
    }
  }
}

/* Coordinates of site s of the box's lattice, 3 entries (2-D: c[0] = 0). */
static void coords(const targetBox *b, long s, long c[3]) {
  c[0] = c[1] = c[2] = 0;
  for (int d = b->ndim - 1; d >= 0; d--) {
    c[3 - b->ndim + d] = s % b->extent[d];
    s /= b->extent[d];
  }
}
static int in_box(const targetBox *b, const long c[3]) {
  int in = 1;
  for (int d = 0; d < b->ndim; d++) {
    const long x = c[3 - b->ndim + d];
    in &= x >= b->lo[d] && x < b->hi[d];
  }
  return in;
}
static int in_shell(const targetBox *b, long nh, const long c[3]) {
  if (!in_box(b, c)) return 0;
  for (int d = 0; d < b->ndim; d++) {
    const long x = c[3 - b->ndim + d];
    if (x - b->lo[d] < nh || b->hi[d] - x <= nh) return 1;
  }
  return 0;
}

static void check_reduce(const targetBox *box) {
  const int nd = box->ndim;
  const long nsites = targetBoxLatticeSites(box);
  const size_t nf = TDP_FIELD_SIZE(nsites, 1);
  double *f = (double *) tuMalloc(nf * sizeof(double));
  double *g = (double *) tuMalloc(nf * sizeof(double));
  for (size_t i = 0; i < nf; i++) f[i] = g[i] = 0.0;
  /* small integers (exact sums), every value distinct in its sign's half
   * for min and max: f = +-(1 + s) */
  for (long s = 0; s < nsites; s++)
    f[TDP_INDEX(nsites, 1, s, 0)] = (s * 7919 % 5 < 2) ? -(1.0 + s) : 1.0 + s;
  double want[3] = {0, 0, 0}, wmin = f[TDP_INDEX(nsites, 1, 0, 0)], wmax = wmin;
  for (long s = 0; s < nsites; s++) {
    long c[3];
    coords(box, s, c);
    if (!in_box(box, c)) continue;
    const double val = f[TDP_INDEX(nsites, 1, s, 0)];
    want[0] += weigh(val, c[0], c[1], c[2]);
    want[1] += 1.0;
    if (val > 0) want[2] += val;
    wmin = val < wmin ? val : wmin;
    wmax = val > wmax ? val : wmax;
  }
  if (nd == 2) { /* kSum2 weighs (x, y, 0) with x, y the lattice's coordinates 0 and 1 */
    want[0] = 0;
    for (long s = 0; s < nsites; s++) {
      long c[3];
      coords(box, s, c);
      if (in_box(box, c)) want[0] += weigh(f[TDP_INDEX(nsites, 1, s, 0)], c[1], c[2], 0);
    }
  }
  double *t_f = NULL, *t_g = NULL, *t_r = NULL;
  assert_int_equal(targetMalloc(&t_f, nf * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_g, nf * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(targetMalloc(&t_r, 5 * sizeof(double)), TARGET_SUCCESS);
  assert_int_equal(copyToTarget(t_f, f, nf * sizeof(double)), TARGET_SUCCESS);
  const double start = f[TDP_INDEX(nsites, 1, 0, 0)];
  double r[5] = {0, 0, 0, start, start};
  assert_int_equal(copyToTarget(t_r, r, sizeof(r)), TARGET_SUCCESS);
  targetBox b = *box;
  if (nd == 2) {
    TDP_LAUNCH_BOX_REDUCE(kSum2, b, t_f, t_g, t_r);
    TDP_LAUNCH_BOX_REDUCE(kMinMax2, b, t_f, start, t_r + 3);
  } else {
    TDP_LAUNCH_BOX_REDUCE(kSum3, b, t_f, t_g, t_r);
    TDP_LAUNCH_BOX_REDUCE(kMinMax3, b, t_f, start, t_r + 3);
  }
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(r, t_r, sizeof(r)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(g, t_g, nf * sizeof(double)), TARGET_SUCCESS);
  if (r[0] != want[0] || r[1] != want[1] || r[2] != want[2] || r[3] != wmin || r[4] != wmax)
    fail_msg("%s: sums %g %g %g min %g max %g, want %g %g %g min %g max %g", tu_context, r[0],
             r[1], r[2], r[3], r[4], want[0], want[1], want[2], wmin, wmax);
  tuCheck cg;
  tuCheckInit(&cg);
  for (long s = 0; s < nsites; s++) {
    long c[3];
    coords(box, s, c);
    const double val = f[TDP_INDEX(nsites, 1, s, 0)];
    tuCheckEq(&cg, s, g[TDP_INDEX(nsites, 1, s, 0)], in_box(box, c) && val > 0 ? val : 0.0);
  }
  tuCheckDone(&cg, "conditional stores", nsites);
  assert_int_equal(targetFree(t_f), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_g), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_r), TARGET_SUCCESS);
  free(f);
  free(g);
}

/* The shell of depth nh visited three ways: TDP_TLP_2D/3D_SHELL
 * (TDP_LAUNCH_SHELL: each shell site once, no other site) and the edge
 * form TDP_TLP_2D/3D_EDGE over the box (each site of the box once, its edge
 * flag that of the shell), launched by TDP_LAUNCH_BOX or (3-D) by
 * TDP_LAUNCH_BOX_MARCH (on CUDA its threads march through x) or
 * TDP_LAUNCH_STENCIL (one site a thread). Every way the coordinates must agree with the site
 * index and no site outside be touched. */
typedef enum { VISIT_SHELL, VISIT_EDGE, VISIT_EDGE_MARCH, VISIT_EDGE_STENCIL } visitForm;

static void check_visits(const targetBox *box, long nh, visitForm form) {
  const long nsites = targetBoxLatticeSites(box);
  int *count = (int *) tuMalloc(nsites * sizeof(int));
  long *code = (long *) tuMalloc(nsites * sizeof(long));
  int *t_count = NULL;
  long *t_code = NULL;
  assert_int_equal(targetCalloc(&t_count, nsites * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_code, nsites * sizeof(long)), TARGET_SUCCESS);
  targetBox b = *box;
  if (form == VISIT_SHELL) {
    if (b.ndim == 2) TDP_LAUNCH_SHELL(kShell2, b, nh, nh, t_count, t_code);
    else TDP_LAUNCH_SHELL(kShell3, b, nh, nh, t_count, t_code);
  } else if (form == VISIT_EDGE) {
    if (b.ndim == 2) TDP_LAUNCH_BOX(kEdge2, b, nh, t_count, t_code);
    else TDP_LAUNCH_BOX(kEdge3, b, nh, t_count, t_code);
  } else if (form == VISIT_EDGE_MARCH) {
    TDP_LAUNCH_BOX_MARCH(kEdge3, b, nh, t_count, t_code);
  } else {
    TDP_LAUNCH_STENCIL(kEdge3, b, nh, t_count, t_code);
  }
  assert_int_equal(targetSynchronize(), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(count, t_count, nsites * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(copyFromTarget(code, t_code, nsites * sizeof(long)), TARGET_SUCCESS);
  tuCheck cc, cd;
  tuCheckInit(&cc);
  tuCheckInit(&cd);
  long total = 0;
  for (long s = 0; s < nsites; s++) {
    long c[3];
    coords(box, s, c);
    const int shell = in_shell(box, nh, c);
    /* shell: 1 visit on the shell; edge: 1 (edge) or 2 (interior) in the box */
    const int in = form == VISIT_SHELL ? shell : in_box(box, c);
    const int want = form == VISIT_SHELL ? shell : !in ? 0 : shell ? 1 : 2;
    total += shell;
    tuCheckEq(&cc, s, count[s], want);
    if (in) tuCheckEq(&cd, s, (double) code[s], (double) code3(c[0], c[1], c[2]));
  }
  char what[2][120];
  const char *launch = form == VISIT_SHELL ? "TDP_LAUNCH_SHELL"
                       : form == VISIT_EDGE       ? "TDP_LAUNCH_BOX"
                       : form == VISIT_EDGE_MARCH ? "TDP_LAUNCH_BOX_MARCH"
                                                  : "TDP_LAUNCH_STENCIL";
  snprintf(what[0], sizeof(what[0]), "%s, nh %ld, %s, march length forced to %ld",
           form == VISIT_SHELL ? "shell visit counts" : "edge visits and flags", nh, launch,
           tdpBoxMarchForce_);
  snprintf(what[1], sizeof(what[1]), "%s, nh %ld, %s, march length forced to %ld",
           form == VISIT_SHELL ? "shell coordinates" : "edge coordinates", nh, launch,
           tdpBoxMarchForce_);
  tuCheckDone(&cc, what[0], nsites);
  tuCheckDone(&cd, what[1], nsites);
  if (form == VISIT_SHELL) assert_int_equal(total, tdpShellSites_(box, nh));
  assert_int_equal(targetFree(t_count), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_code), TARGET_SUCCESS);
  free(count);
  free(code);
}

/* The march lengths of the edge form's march launch: the launch's own and
 * forced ones (tdpBoxMarchForce_, CUDA; the C backend ignores them), as in
 * test_box's marching form: 1, 2, 3 (dividing few x extents), 16 and more
 * planes than any box has (one thread walks all of x). */
static const long march_force[] = {0, 1, 2, 3, 16, 1000};

static void check_shell(const targetBox *box, long nh) {
  check_visits(box, nh, VISIT_SHELL);
  check_visits(box, nh, VISIT_EDGE); /* the same shell as the edge of a one-pass loop */
  if (box->ndim != 3) return;
  for (size_t i = 0; i < sizeof(march_force) / sizeof(march_force[0]); i++) {
    tdpBoxMarchForce_ = march_force[i];
    check_visits(box, nh, VISIT_EDGE_MARCH);
    check_visits(box, nh, VISIT_EDGE_STENCIL);
  }
  tdpBoxMarchForce_ = 0;
}

static void box_cases(int nd, const long *ext) {
  targetBox box;
  long lo[3], hi[3];
  for (long nhalo = 0; nhalo <= 2; nhalo++) { /* the lattice, interiors of halo 1 and 2 */
    int fits = 1;
    for (int d = 0; d < nd; d++) fits &= ext[d] >= 2 * nhalo;
    if (!fits) continue;
    assert_int_equal(targetBoxInterior(&box, nd, ext, nhalo), TARGET_SUCCESS);
    tuSetContext("%d-D %ld x %ld x %ld, interior of halo %ld", nd, ext[0], ext[1],
                 nd > 2 ? ext[2] : 1, nhalo);
    check_reduce(&box);
    for (long nh = 0; nh <= 3; nh++) check_shell(&box, nh);
  }
  for (int d = 0; d < nd; d++) { /* an offset box, and a slab one site thick in d */
    lo[d] = ext[d] > 3 ? 2 : 0;
    hi[d] = ext[d] > 4 ? ext[d] - 1 : ext[d];
  }
  assert_int_equal(targetBoxMake(&box, nd, ext, lo, hi), TARGET_SUCCESS);
  tuSetContext("%d-D %ld x %ld x %ld, offset box", nd, ext[0], ext[1], nd > 2 ? ext[2] : 1);
  check_reduce(&box);
  for (long nh = 0; nh <= 2; nh++) check_shell(&box, nh);
  for (int d = 0; d < nd; d++) {
    long l1[3], h1[3];
    for (int e = 0; e < nd; e++) {
      l1[e] = 0;
      h1[e] = ext[e];
    }
    l1[d] = ext[d] / 2;
    h1[d] = l1[d] + 1;
    assert_int_equal(targetBoxMake(&box, nd, ext, l1, h1), TARGET_SUCCESS);
    tuSetContext("%d-D slab in dimension %d", nd, d);
    check_reduce(&box);
    check_shell(&box, 1);
    h1[d] = l1[d]; /* empty */
    assert_int_equal(targetBoxMake(&box, nd, ext, l1, h1), TARGET_SUCCESS);
    tuSetContext("%d-D empty box", nd);
    check_reduce(&box);
    check_shell(&box, 1);
  }
}

static void test_box_reduce_2d(void **state) {
  (void) state;
  const long e1[2] = {5, 7}, e2[2] = {9, 2 * VVL + 3}, e3[2] = {6, 2 * VVL * TARGET_TPB + 3},
             e4[2] = {40, 1};
  box_cases(2, e1);
  box_cases(2, e2);
  box_cases(2, e3); /* rows of several CUDA blocks */
  box_cases(2, e4); /* rows of one site */
}

static void test_box_reduce_3d(void **state) {
  (void) state;
  const long e1[3] = {6, 5, 7}, e2[3] = {9, 8, 4 * VVL + 3}, e3[3] = {5, 40, 300},
             e4[3] = {4, 5, 300 * VVL + 5}, e5[3] = {37, 11, 70};
  box_cases(3, e1);
  box_cases(3, e2);
  box_cases(3, e3); /* a plane of several CUDA blocks */
  box_cases(3, e4); /* rows across the grid's x on CUDA */
  box_cases(3, e5); /* x longer than the march, rows of 70: two tiles of 32 and a bit */
}

static void test_shell_errors(void **state) {
  (void) state;
  targetBox b3, b4;
  const long e3[3] = {4, 5, 6}, e4[4] = {3, 4, 5, 6};
  assert_int_equal(targetBoxAll(&b3, 3, e3), TARGET_SUCCESS);
  assert_int_equal(targetBoxAll(&b4, 4, e4), TARGET_SUCCESS);
  int *t_count = NULL;
  long *t_code = NULL;
  assert_int_equal(targetCalloc(&t_count, 360 * sizeof(int)), TARGET_SUCCESS);
  assert_int_equal(targetCalloc(&t_code, 360 * sizeof(long)), TARGET_SUCCESS);
  targetSetErrorAbort(0);
  TDP_LAUNCH_SHELL(kShell3, b3, -1, -1L, t_count, t_code);
  assert_int_equal(targetLastError(), TARGET_ERROR_INVALID_VALUE);
  tuAssertContains(targetLastErrorString(), "targetDP: TDP_LAUNCH_SHELL failed at ");
  tuAssertContains(targetLastErrorString(), "test_box_reduce.c:");
  tuAssertContains(targetLastErrorString(), "kernel kShell3 not launched: shell depth nh = -1");
  TDP_LAUNCH_SHELL(kShell3, b4, 1, 1L, t_count, t_code);
  assert_int_equal(targetLastError(), TARGET_ERROR_INVALID_VALUE);
  tuAssertContains(targetLastErrorString(), "a shell is of a 2-D or 3-D box, not 4-D");
  targetSetErrorAbort(1);
  /* nothing ran */
  int count[120];
  assert_int_equal(copyFromTarget(count, t_count, sizeof(count)), TARGET_SUCCESS);
  for (int s = 0; s < 120; s++) assert_int_equal(count[s], 0);
  assert_int_equal(targetFree(t_count), TARGET_SUCCESS);
  assert_int_equal(targetFree(t_code), TARGET_SUCCESS);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_box_reduce_2d),
      cmocka_unit_test(test_box_reduce_3d),
      cmocka_unit_test(test_shell_errors),
  };
  return cmocka_run_group_tests(tests, tuSetup, tuTeardown);
}
