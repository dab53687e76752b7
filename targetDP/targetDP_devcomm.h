/*
 * targetDP_devcomm.h -- the device communicator: global sums of target
 * buffers and point-to-point messages between the ranks' target buffers,
 * queued on streams like kernels, so that a GPU need not wait for its
 * host between the phases of a step (docs/devcomm.md).
 *
 * NCCL when the build found it (make TARGET=cuda, NCCL=auto) and every rank
 * drives its own GPU; otherwise MPI through the host: on the C backend,
 * whose target memory is host memory and whose streams run their work
 * when it is queued, MPI on the buffers themselves; on a GPU without NCCL
 * the sums go through a host copy (the stream is synchronised: correct,
 * not overlapped) and the messages are refused. The path is chosen at
 * targetDevCommCreate, the same on every rank, and said in one line.
 *
 *   targetDevComm *dc;
 *   if (targetDevCommCreate(comm, &dc, err, sizeof err)) MPI_Abort(comm, 1);
 *   ... a kernel leaves this rank's partial sums in t_sum[0..1] on stream ...
 *   targetDevCommAllreduceSum(dc, t_sum, 2, TDP_TYPE_DOUBLE, stream);
 *   ... kernels queued on stream after it read the global sums ...
 *   targetDevCommFree(dc);
 */
#ifndef TARGETDP_DEVCOMM_H
#define TARGETDP_DEVCOMM_H

#include <mpi.h>
#include <stddef.h>

#include "targetDP.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TARGET_DEVCOMM_MPI = 1, /* MPI through the host (the C backend; GPUs without NCCL) */
  TARGET_DEVCOMM_NCCL = 2 /* NCCL on the target buffers, queued on the stream */
} targetDevCommPath_t;

typedef struct targetDevComm_ targetDevComm;

/* Collective over comm. TARGETDP_DEVCOMM=auto (default), mpi or nccl picks
 * the path; auto takes NCCL where it is built in, the target is a GPU,
 * no two ranks of a node share one, and NCCL's set-up and a test sum pass
 * on every rank, else MPI (and says why). A forced nccl that cannot be had
 * fails on every rank with the reason. A communicator congruent to that
 * of a live device communicator (same ranks, same order) shares it: one
 * NCCL communicator per group of ranks, reference-counted. 0, or -1 with
 * a one-line reason in err on every rank. */
int targetDevCommCreate(MPI_Comm comm, targetDevComm **dc, char *err, size_t errlen);
/* Not collective; the last reference frees the NCCL communicator. */
void targetDevCommFree(targetDevComm *dc);

targetDevCommPath_t targetDevCommPath(const targetDevComm *dc);
/* "nccl 2.28.9", or "mpi (why)", for logs. */
const char *targetDevCommDescribe(const targetDevComm *dc);
const char *targetDevCommError(const targetDevComm *dc);

/* t_buf[0..count) = its sum over the ranks, in place, queued on stream
 * (kernels queued on stream after it read the sums). type TDP_TYPE_DOUBLE
 * or TDP_TYPE_LONG (64-bit integers: exact, the same bits on every rank,
 * whatever the order of the sum). Every rank gets the same bits. 0, or -1
 * with targetDevCommError. */
int targetDevCommAllreduceSum(targetDevComm *dc, void *t_buf, long count, tdpType type,
                              targetStream_t stream);

/* Messages between target buffers, queued on stream. Between GroupStart
 * and GroupEnd the sends and receives of a rank progress together (a
 * neighbour exchange: all in one group); messages between two ranks are
 * matched in the order they were queued, as NCCL does. A message outside
 * a group is a group of one. On a GPU without NCCL: -1, not available. */
int targetDevCommGroupStart(targetDevComm *dc);
int targetDevCommSend(targetDevComm *dc, const void *t_buf, size_t bytes, int peer,
                      targetStream_t stream);
int targetDevCommRecv(targetDevComm *dc, void *t_buf, size_t bytes, int peer,
                      targetStream_t stream);
int targetDevCommGroupEnd(targetDevComm *dc);
/* Whether the messages are available (NCCL, or the C backend's MPI). */
int targetDevCommCanMessage(const targetDevComm *dc);
/* Internal (the halo module's and this one's set-up): every rank learns
 * the reason of the lowest rank whose ok is 0, in why; 1 when all are ok. */
int tdpAgreeWhy_(MPI_Comm comm, int rank, int nranks, int ok, char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
