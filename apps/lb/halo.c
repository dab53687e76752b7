#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "halo.h"
#include "kernels.h"
#include "targetDP.h"

#if defined(LB_CUDA_AWARE_MPI) && defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h> /* MPIX_Query_cuda_support */
#endif

/* Does the MPI library accept target (device) pointers? On the C backend
 * target memory is host memory, so always. On CUDA only if the build asked
 * for it (LB_CUDA_AWARE_MPI) and, where OpenMPI can tell at run time, the
 * library says yes; otherwise fall back to host staging rather than crash
 * inside MPI. */
static int mpi_takes_device_ptrs(const decompInfo *dc) {
#if !TDP_GPU
  (void) dc;
  return 1;
#elif !defined(LB_CUDA_AWARE_MPI)
  (void) dc;
  return 0;
#else
  int ok = 1;
  const char *how = "assumed (LB_CUDA_AWARE_MPI; the library cannot be asked)";
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  ok = MPIX_Query_cuda_support();
  how = ok ? "confirmed by MPIX_Query_cuda_support" : "NOT supported by this MPI at run time";
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  ok = 0;
  how = "NOT compiled into this MPI library";
#endif
  if (dc->rank == 0)
    printf("# halo: CUDA-aware MPI %s; %s\n", how,
           ok ? "passing device pointers to MPI" : "staging through host buffers");
  return ok;
#endif
}

int lbHaloCreate(lbHalo *h, const lbGeom *g, const decompInfo *dc) {
  memset(h, 0, sizeof(*h));
  h->device_ptrs = mpi_takes_device_ptrs(dc);
  for (int d = 0; d < 3; d++) {
    h->np[d] = lbPlaneSites(g, d);
    size_t nbytes = (size_t) 2 * LB_NCROSS * h->np[d] * sizeof(double);
    targetCalloc(&h->t_send[d], nbytes);
    targetCalloc(&h->t_recv[d], nbytes);
    if (!h->device_ptrs) {
      h->h_send[d] = (double *) calloc(1, nbytes);
      h->h_recv[d] = (double *) calloc(1, nbytes);
      if (!h->h_send[d] || !h->h_recv[d]) {
        fprintf(stderr, "lb: no host memory for halo buffers\n");
        return -1;
      }
    }
    if (dc->dims[d] > 1) {
      h->bytes += (dc->nbr_lo[d] != MPI_PROC_NULL) * 0.5 * nbytes;
      h->bytes += (dc->nbr_hi[d] != MPI_PROC_NULL) * 0.5 * nbytes;
    }
  }
  return 0;
}

void lbHaloFree(lbHalo *h) {
  for (int d = 0; d < 3; d++) {
    targetFree(h->t_send[d]);
    targetFree(h->t_recv[d]);
    free(h->h_send[d]);
    free(h->h_recv[d]);
  }
  memset(h, 0, sizeof(*h));
}

static void exchange_axis(lbHalo *h, const lbGeom *g, const decompInfo *dc, int d,
                          double *t_f) {
  if (dc->dims[d] == 1) {
    if (dc->periodic[d]) lbHaloSelf(g, d, t_f);
    return; /* otherwise both ends are walls */
  }
  const int lo = dc->nbr_lo[d], hi = dc->nbr_hi[d];
  const int half = LB_NCROSS * h->np[d]; /* doubles per face */
  const size_t nbytes = (size_t) 2 * half * sizeof(double);
  lbHaloPack(g, d, t_f, h->t_send[d]);
  double *send = h->t_send[d], *recv = h->t_recv[d];
  if (h->device_ptrs) {
    targetSynchronize(); /* MPI does not wait for the pack kernel */
  } else {
    copyFromTarget(h->h_send[d], h->t_send[d], nbytes);
    send = h->h_send[d];
    recv = h->h_recv[d];
  }
  /* Tags name the direction of travel, so that with two ranks along d
   * (lo == hi) the two messages between the same pair stay apart. */
  MPI_Request req[4];
  MPI_Irecv(recv, half, MPI_DOUBLE, lo, 2 * d, dc->comm, &req[0]);          /* moving up */
  MPI_Irecv(recv + half, half, MPI_DOUBLE, hi, 2 * d + 1, dc->comm, &req[1]); /* moving down */
  MPI_Isend(send + half, half, MPI_DOUBLE, hi, 2 * d, dc->comm, &req[2]);
  MPI_Isend(send, half, MPI_DOUBLE, lo, 2 * d + 1, dc->comm, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  if (!h->device_ptrs) copyToTarget(h->t_recv[d], h->h_recv[d], nbytes);
  lbHaloUnpack(g, d, t_f, h->t_recv[d], lo != MPI_PROC_NULL, hi != MPI_PROC_NULL);
}

void lbHaloExchange(lbHalo *h, const lbGeom *g, const decompInfo *dc, double *t_f) {
  for (int d = 0; d < 3; d++) exchange_axis(h, g, dc, d, t_f);
  for (int d = 0; d < 3; d++) {
    if (dc->periodic[d]) continue;
    if (dc->coords[d] == 0) lbWallReflect(g, d, 0, t_f);
    if (dc->coords[d] == dc->dims[d] - 1) lbWallReflect(g, d, 1, t_f);
  }
}
