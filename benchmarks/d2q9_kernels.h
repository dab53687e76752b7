/*
 * The D2Q9 step of bench_d2q9 (d2q9.c), in one precision: the collision,
 * the serial original, its targetDP port by the README recipe and the split
 * form, and the run that times and validates them. C99 has no templates:
 * d2q9.c includes this once per type, with REAL the element type and
 * R(name) adding the type's suffix (as stream.c does stream_kernels.h).
 * Every constant of the arithmetic is a REAL (K(x)), so the float version
 * computes in float throughout. No include guard.
 */
#define K(x) ((REAL) (x))

/* The collision of one site: f in, f out (the serial original's). */
static TDP_HOST_DEVICE inline void R(collide)(REAL f[NQ], REAL omega) {
  const REAL w[NQ] = {K(4.0 / 9), K(1.0 / 9), K(1.0 / 9), K(1.0 / 9), K(1.0 / 9),
                      K(1.0 / 36), K(1.0 / 36), K(1.0 / 36), K(1.0 / 36)};
  const REAL ex[NQ] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  const REAL ey[NQ] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  REAL rho = 0, ux = 0, uy = 0;
  for (int p = 0; p < NQ; p++) {
    rho += f[p];
    ux += ex[p] * f[p];
    uy += ey[p] * f[p];
  }
  ux /= rho;
  uy /= rho;
  const REAL usq = K(1.5) * (ux * ux + uy * uy);
  for (int p = 0; p < NQ; p++) {
    const REAL cu = K(3.0) * (ex[p] * ux + ey[p] * uy);
    const REAL feq = w[p] * rho * (K(1.0) + cu + K(0.5) * cu * cu - usq);
    f[p] += omega * (feq - f[p]);
  }
}

/* ---------------------------------------------------------------------- */
/* The serial original: f[p][s], one site at a time. */
static void R(serial_step)(REAL *fn, const REAL *f, long nall, long s0, long s1, int nx) {
  for (long s = s0; s < s1; s++) {
    REAL q[NQ];
    for (int p = 0; p < NQ; p++) q[p] = f[p * nall + s - (cx[p] + cy[p] * nx)];
    R(collide)(q, K(OMEGA));
    for (int p = 0; p < NQ; p++) fn[p * nall + s] = q[p];
  }
}

/* ---------------------------------------------------------------------- */
/* The targetDP port by the README recipe: the per-site code as it was,
 * whole, inside one TDP_ILP body (site base + v), every access through
 * TDP_INDEX. gcc vectorises that body across the lanes only under
 * ILP=ivdep: "omp simd" privatises q (passed to collide) as an omp simd
 * array and the loop stays scalar (docs/performance.md). */
TDP_KERNEL void R(tdp_step)(REAL *fn, const REAL *f, int nall, int s0, int nrange) {
  (void) nall; /* not every layout's TDP_INDEX reads it */
  TDP_TLP(base, nrange) {
    TDP_ILP(v) {
      REAL q[NQ];
      for (int p = 0; p < NQ; p++) q[p] = f[TDP_INDEX(nall, NQ, s0 + base + v - t_off[p], p)];
      R(collide)(q, K(OMEGA));
      for (int p = 0; p < NQ; p++) fn[TDP_INDEX(nall, NQ, s0 + base + v, p)] = q[p];
    }
  }
}

/* The same split into three lane loops around per-lane arrays q[p][lane]
 * (the shape of the apps' kernels): measured against the recipe, because
 * it vectorises worse (docs/performance.md, "the default CPU idiom"). */
TDP_KERNEL void R(tdp_step_split)(REAL *fn, const REAL *f, int nall, int s0, int nrange) {
  (void) nall;
  TDP_TLP(base, nrange) {
    REAL q[NQ][VVL];
    for (int p = 0; p < NQ; p++) {
      TDP_ILP(v) q[p][TDP_LANE(v)] = f[TDP_INDEX(nall, NQ, s0 + base + v - t_off[p], p)];
    }
    TDP_ILP(v) {
      REAL g[NQ];
      for (int p = 0; p < NQ; p++) g[p] = q[p][TDP_LANE(v)];
      R(collide)(g, K(OMEGA));
      for (int p = 0; p < NQ; p++) q[p][TDP_LANE(v)] = g[p];
    }
    for (int p = 0; p < NQ; p++) {
      TDP_ILP(v) fn[TDP_INDEX(nall, NQ, s0 + base + v, p)] = q[p][TDP_LANE(v)];
    }
  }
}

/* ---------------------------------------------------------------------- */
/* Time the three versions, interleaved, and validate the ports against the
 * serial original (relative rtol) before printing any rate. Returns 1 when
 * a result was wrong. */
static int R(d2q9_run)(const benchOptions *o, const char *precision, double rtol) {
  const int nx = (int) o->size, ny = (int) o->size;
  /* one spare site at each end: the pulls of the first and last sites */
  const long nall = (long) nx * (ny + 2) + 2, s0 = nx + 1, s1 = (long) nx * (ny + 1) + 1;
  const int nrange = (int) (s1 - s0), nt = o->reps + 1;
  int off[NQ];
  for (int p = 0; p < NQ; p++) off[p] = cx[p] + cy[p] * nx;
  copyConstToTarget(t_off, off, sizeof(off));

  /* serial: two SoA arrays; targetDP: two fields in the build's layout */
  REAL *sa = (REAL *) malloc(NQ * nall * sizeof(REAL));
  REAL *sb = (REAL *) malloc(NQ * nall * sizeof(REAL));
  size_t tbytes = TDP_FIELD_SIZE(nall, NQ) * sizeof(REAL);
  REAL *h = (REAL *) calloc(TDP_FIELD_SIZE(nall, NQ), sizeof(REAL));
  REAL *ta = NULL, *tb = NULL, *tc = NULL, *td = NULL; /* recipe: ta/tb, split: tc/td */
  targetMalloc(&ta, tbytes);
  targetMalloc(&tb, tbytes);
  targetMalloc(&tc, tbytes);
  targetMalloc(&td, tbytes);
  for (long s = 0; s < nall; s++)
    for (int p = 0; p < NQ; p++) {
      sa[p * nall + s] = sb[p * nall + s] = (REAL) f_init(s, p);
      h[TDP_INDEX(nall, NQ, s, p)] = (REAL) f_init(s, p);
    }
  copyToTarget(ta, h, tbytes);
  copyToTarget(tb, h, tbytes);
  copyToTarget(tc, h, tbytes);
  copyToTarget(td, h, tbytes);

  double *ts = (double *) malloc(nt * sizeof(double)), *tt = (double *) malloc(nt * sizeof(double));
  double *tq = (double *) malloc(nt * sizeof(double));
  for (int it = 0; it < nt; it++) {
    for (int j = 0; j < 3; j++) { /* the three versions in a rotating order */
      double t0 = timerNow();
      const int which = (j + it) % 3;
      if (which == 0) {
        R(serial_step)(sb, sa, nall, s0, s1, nx);
        ts[it] = timerNow() - t0;
      } else if (which == 1) {
        TDP_LAUNCH(R(tdp_step), nrange, tb, ta, (int) nall, (int) s0, nrange);
        targetSynchronize();
        tt[it] = timerNow() - t0;
      } else {
        TDP_LAUNCH(R(tdp_step_split), nrange, td, tc, (int) nall, (int) s0, nrange);
        targetSynchronize();
        tq[it] = timerNow() - t0;
      }
    }
    REAL *x = sa; sa = sb; sb = x;
    x = ta; ta = tb; tb = x;
    x = tc; tc = td; td = x;
  }
  /* after the same number of steps all hold the same state */
  for (int k = 0; k < 2; k++) {
    copyFromTarget(h, k == 0 ? ta : tc, tbytes);
    if (o->inject_error) h[TDP_INDEX(nall, NQ, s1 - 1, NQ - 1)] += K(1.0);
    const char *what = k == 0 ? "d2q9 targetDP" : "d2q9 targetDP split";
    BENCH_HOST_PARALLEL_FOR(schedule(static))
    for (long s = 0; s < nall; s++)
      for (int p = 0; p < NQ; p++) {
        double got = h[TDP_INDEX(nall, NQ, s, p)], want = sa[p * nall + s];
        if (!benchClose(got, want, rtol)) benchWrong(what, s * NQ + p, got, want);
      }
  }
  int wrong = benchErrors() != 0;
  if (wrong) {
    fprintf(stderr, "d2q9: %ld wrong results: no rate reported\n", benchErrors());
  } else {
    double bs, ms, bt, mt, bq, mq;
    timerStats(ts + 1, o->reps, &bs, &ms);
    timerStats(tt + 1, o->reps, &bt, &mt);
    timerStats(tq + 1, o->reps, &bq, &mq);
    const double bytes = 2.0 * NQ * sizeof(REAL) * nrange;
    benchPrintConfig(stdout, o);
    printf("# d2q9 %s: %d x %d sites, %d steps each after 1 warm-up, interleaved; validated (%g)\n",
           precision, nx, ny, o->reps, rtol);
    printf("%-10s %12s %12s %12s\n", "version", "best MLUPS", "median MLUPS", "median GB/s");
    printf("%-10s %12.1f %12.1f %12.2f\n", "serial", nrange / bs * 1e-6, nrange / ms * 1e-6,
           bytes / ms * 1e-9);
    printf("%-10s %12.1f %12.1f %12.2f\n", "targetDP", nrange / bt * 1e-6, nrange / mt * 1e-6,
           bytes / mt * 1e-9);
    printf("%-10s %12.1f %12.1f %12.2f\n", "split", nrange / bq * 1e-6, nrange / mq * 1e-6,
           bytes / mq * 1e-9);
    printf("# split / serial (median times): %.3f\n", ms / mq);
    printf("# targetDP / serial (median times): %.3f\n", ms / mt);
    benchTiming k = {"D2Q9", BENCH_TDP, nrange, bytes, tt, ts, NULL};
    benchStats st = benchSummarise(&k, o->reps);
    benchCsvRow(o, precision, &k, &st, NAN);
  }
  targetFree(ta);
  targetFree(tb);
  targetFree(tc);
  targetFree(td);
  free(tq);
  free(sa);
  free(sb);
  free(h);
  free(ts);
  free(tt);
  return wrong;
}

#undef K
