/*
 * edge_row_width.c -- the stencil-with-walls loop (TDP_TLP_3D_EDGE), the
 * shape of the corpus's heat3d port, beside the native "omp simd" row loop
 * of the same update. Compiled, not run, by tests/suites/compilers.sh with
 * clang -Rpass=loop-vectorize: every vectorised segment of the edge row
 * must be as wide as clang's own loop and interleaved TDP_EDGE_IC_ (4)
 * times. "omp simd simdlen(8)" made it 8 wide interleaved 4, and clang's
 * heat3d port ran at 0.87-0.94 of its native on one thread (issue 28,
 * targetDP_C.h, benchmarks/results/h100-edgewidth/).
 */
#include "targetDP.h"

static TDP_DEVICE TDP_INLINE void site(double *unew, const double *u, long s, long sx, long sy,
                                       long nsites) {
  size_t is = TDP_INDEX(nsites, 1, s, 0);
  double lap = u[TDP_INDEX(nsites, 1, s - sx, 0)] + u[TDP_INDEX(nsites, 1, s + sx, 0)]
             + u[TDP_INDEX(nsites, 1, s - sy, 0)] + u[TDP_INDEX(nsites, 1, s + sy, 0)]
             + u[TDP_INDEX(nsites, 1, s - 1, 0)] + u[TDP_INDEX(nsites, 1, s + 1, 0)]
             - 6.0 * u[is];
  unew[is] = u[is] + 0.1 * lap;
  (void) nsites;
}

TDP_KERNEL_STENCIL void edge_kernel(targetBox box, double *unew, const double *u) {
  const long nsites = targetBoxLatticeSites(&box), sy = box.extent[2],
             sx = box.extent[1] * box.extent[2];
  TDP_TLP_3D_EDGE(box, 1, x, y, z0, base, edge) { /* EDGE_ROW */
    if (edge) {
      TDP_ILP(v) unew[TDP_INDEX(nsites, 1, base + v, 0)] = u[TDP_INDEX(nsites, 1, base + v, 0)];
    } else {
      TDP_ILP(v) site(unew, u, base + v, sx, sy, nsites);
    }
  }
}

void native_rows(int nx, int ny, int nz, double *restrict unew, const double *restrict u) {
  const long sy = nz, sx = (long) ny * nz;
  for (int x = 1; x < nx - 1; x++)
    for (int y = 1; y < ny - 1; y++) {
      const long b = x * sx + y * sy;
#pragma omp simd /* NATIVE_ROW */
      for (int z = 1; z < nz - 1; z++) {
        const long s = b + z;
        unew[s] = u[s] + 0.1 * (u[s - sx] + u[s + sx] + u[s - sy] + u[s + sy] + u[s - 1] +
                                u[s + 1] - 6.0 * u[s]);
      }
    }
}
