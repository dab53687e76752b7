/* heat_serial.c -- the 2-D heat equation, explicit Euler in time, 5-point
 * Laplacian, on an NX x NY grid whose boundary stays at 0; the start is
 * sin(pi x) sin(pi y). Plain serial C: the "before" of heat_targetDP.c
 * (diff the two files to see the port).
 *   heat_serial [NX NY NSTEPS [OUT]]   OUT: the final field, one value a line */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void step(double *unew, const double *u, int nx, int ny, double alpha) {
  for (int i = 0; i < nx; i++) {
    for (int j = 0; j < ny; j++) {
      int s = i * ny + j;
      if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        unew[s] = u[s];
      } else {
        double lap = u[s + ny] + u[s - ny] + u[s + 1] + u[s - 1] - 4.0 * u[s];
        unew[s] = u[s] + alpha * lap;
      }
    }
  }
}

int main(int argc, char **argv) {
  int nx = argc > 1 ? atoi(argv[1]) : 200, ny = argc > 2 ? atoi(argv[2]) : 150;
  int nsteps = argc > 3 ? atoi(argv[3]) : 500;
  const double alpha = 0.2, pi = 3.14159265358979323846; /* stable for alpha <= 0.25 */
  size_t nbytes = (size_t) nx * ny * sizeof(double);
  double *u = (double *) malloc(nbytes), *unew = (double *) malloc(nbytes);
  if (nx < 3 || ny < 3 || nsteps < 0 || !u || !unew) {
    fprintf(stderr, "heat_serial: need NX, NY >= 3 and NSTEPS >= 0\n");
    return 1;
  }

  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++)
      u[i * ny + j] = sin(pi * i / (nx - 1)) * sin(pi * j / (ny - 1));

  for (int n = 0; n < nsteps; n++) {
    step(unew, u, nx, ny, alpha);
    double *t = u;
    u = unew;
    unew = t;
  }

  double sum = 0.0;
  for (int s = 0; s < nx * ny; s++) sum += u[s];
  printf("heat_serial: %d x %d, %d steps: sum %.15e\n", nx, ny, nsteps, sum);
  if (argc > 4) {
    FILE *out = fopen(argv[4], "w");
    if (!out) { perror(argv[4]); return 1; }
    for (int s = 0; s < nx * ny; s++) fprintf(out, "%.17g\n", u[s]);
    fclose(out);
  }
  free(u);
  free(unew);
  return 0;
}
