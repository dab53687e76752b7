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

/* The 7-point update of site s; sx, sy the strides of x and y. */
static TDP_DEVICE TDP_INLINE double update(const double *u, long s, long sx, long sy) {
  double sum = u[s - sx] + u[s + sx];
  sum += u[s - sy] + u[s + sy];
  sum += u[s - 1] + u[s + 1];
  return u[s] + 0.1 * (sum - 6.0 * u[s]);
}

TDP_KERNEL_STENCIL void edge_kernel(targetBox box, double *unew, const double *u) {
  const long sy = box.extent[2], sx = box.extent[1] * box.extent[2];
  TDP_TLP_3D_EDGE(box, 1, x, y, z0, base, edge) { /* EDGE_ROW */
    if (edge) {
      TDP_ILP(v) unew[base + v] = u[base + v];
    } else {
      TDP_ILP(v) unew[base + v] = update(u, base + v, sx, sy);
    }
  }
}

void native_rows(int nx, int ny, int nz, double *restrict unew, const double *restrict u) {
  const long sy = nz, sx = (long) ny * nz;
  for (int x = 1; x < nx - 1; x++)
    for (int y = 1; y < ny - 1; y++)
#pragma omp simd /* NATIVE_ROW */
      for (long s = x * sx + y * sy + 1; s < x * sx + y * sy + nz - 1; s++)
        unew[s] = update(u, s, sx, sy);
}
