/*
 * targetDP_devcomm.c -- the device communicator (targetDP_devcomm.h,
 * docs/devcomm.md): NCCL on the target buffers where the build found it
 * (TDP_HAVE_NCCL, CUDA only), MPI through the host otherwise. Written on
 * the public targetDP API (streams, copies) as the halo module is; the
 * one build switch is whether NCCL is there.
 *
 * Why: a CG iteration at 24^4 per GPU is 0.21 ms on one H100, and each
 * global sum read by the host (copy, synchronise, MPI_Allreduce, launch
 * again) left the GPU idle for tens of microseconds; an LB step on two
 * GPUs waited 0.38 ms for an exchange whose faces moved in 0.08 ms, the
 * host synchronising after each phase (issue 29). Queued on the stream,
 * the sums and the faces follow the kernels with no host in between.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TDP_LIBRARY_ 1 /* a library source: no -fopenmp mark (targetDP.h) */
#include "targetDP_devcomm.h"

#if defined(TDP_HAVE_NCCL) && defined(__CUDACC__)
#include <nccl.h>
#define DC_NCCL 1
#else
#define DC_NCCL 0
#endif

/* TARGETDP_DEVSUM=ipc (small sums by one kernel over CUDA IPC-mapped
 * slots, flags by epoch) was withdrawn: on 2 H100s (2026-11-26,
 * apps/lb/results/h100x2-e0de452) rank 1 read stale partials after the
 * path's own set-up test had passed. It is refused with that reason. */

/* TARGETDP_DEVSUM=flags (issue 29): a sum of up to FS_WORDS 8-byte words
 * among the ranks of one node without NCCL. Each rank's kernel writes its
 * partial into its slot in every rank's buffer (CUDA IPC; an MPI shared
 * window on the C backend), a stream-ordered flag per peer says it is
 * there (targetStreamWriteFlag, fenced after the kernel), the stream waits
 * for every peer's flag (targetStreamWaitFlag: no SM, no host) and a
 * kernel adds the slots in rank order: the same bits on every rank. The
 * slots alternate by the parity of the sum's sequence number, and no
 * "free" flag is needed: a rank writes parity p for sum k only after it
 * has seen every peer's flag of sum k-1, which each peer raised after its
 * kernel of sum k-2 had read parity p (one stream per communicator's sums,
 * in order). Unlike the withdrawn ipc path (one kernel spinning on flags
 * in memory: stale reads), every read is by a kernel launched after the
 * wait. A 576-byte NCCL allreduce took ~16 us on 2 H100s (issue 29's
 * breakdown: reduce 32 us an iteration for two sums). */
#define FS_WORDS 256
#define FS_MAXRANKS 16

/* A message of the MPI path's group, sent when the group ends. */
typedef struct {
  int send;
  void *buf;
  size_t bytes;
  int peer;
} dcOp;

struct targetDevComm_ {
  MPI_Comm comm; /* a duplicate of the caller's: its own tag space */
  int rank, nranks;
  targetDevCommPath_t path;
  int refs;
  int host_target; /* C backend: target memory is host memory */
#if DC_NCCL
  ncclComm_t nccl;
#endif
  targetStream_t dflt; /* NCCL: stands for TARGET_STREAM_DEFAULT (a blocking stream) */
  int in_group;
  dcOp *ops;
  int nops, maxops;
  long *nsent, *nrecvd; /* MPI path: messages so far to and from each rank (the tags) */
  void *host;           /* MPI path on a GPU: the host copy of a sum */
  size_t nhost;
  char desc[200];
  char err[320];
  targetDevComm *next; /* the live communicators, shared by congruent groups */
  /* TARGETDP_DEVSUM=flags: our buffer (slots, then a flag per rank), every
   * rank's as we see it, the sums so far */
  int fs_on, fs_shared, fs_node_made;
  uint32_t fs_seq;
  char *fs_base;
  char *fs_peer[FS_MAXRANKS];
  MPI_Comm fs_node;
  MPI_Win fs_win;
};

static size_t fs_bytes(int nranks) {
  return 2 * (size_t) nranks * FS_WORDS * 8 + ((size_t) nranks * sizeof(uint32_t) + 7) / 8 * 8;
}
static char *fs_slot(char *base, int nranks, int par, int r) {
  return base + ((size_t) par * nranks + r) * FS_WORDS * 8;
}
static uint32_t *fs_flag(char *base, int nranks, int r) {
  return (uint32_t *) (base + 2 * (size_t) nranks * FS_WORDS * 8) + r;
}

typedef struct {
  void *dst[FS_MAXRANKS];
} fsDests_;

/* Our partial (8-byte words, moved as bits) into our slot of every rank */
TDP_KERNEL static void kFsPut(const int64_t *src, fsDests_ d, int nranks, long count) {
  TDP_TLP_NOSTRIDE(k, (long) nranks * count) {
    const int r = (int) (k / count);
    const long i = k - r * count;
    ((int64_t *) d.dst[r])[i] = src[i];
  }
}

/* The sum of the slots, rank 0 first: doubles added in that order, 64-bit
 * integers as unsigned (wrapping, as NCCL's int64 sum does) */
TDP_KERNEL static void kFsSum(void *buf, const char *slots, int nranks, long count, int is_double) {
  TDP_TLP_NOSTRIDE(i, count) {
    if (is_double) {
      double t = 0.0;
      for (int r = 0; r < nranks; r++) t += ((const double *) (slots + (size_t) r * FS_WORDS * 8))[i];
      ((double *) buf)[i] = t;
    } else {
      uint64_t t = 0;
      for (int r = 0; r < nranks; r++) t += ((const uint64_t *) (slots + (size_t) r * FS_WORDS * 8))[i];
      ((uint64_t *) buf)[i] = t;
    }
  }
}

static void fs_free(targetDevComm *dc) {
  for (int r = 0; r < dc->nranks && r < FS_MAXRANKS; r++) {
    if (!dc->fs_peer[r] || r == dc->rank) continue;
    if (dc->fs_shared) tdpTrackShared_(dc->fs_peer[r], 0, 0);
    else targetIpcCloseHandle(dc->fs_peer[r]);
    dc->fs_peer[r] = NULL;
  }
  if (dc->fs_shared) {
    tdpTrackShared_(dc->fs_base, 0, 0);
    MPI_Win_free(&dc->fs_win);
  } else if (dc->fs_base) {
    targetFree(dc->fs_base);
  }
  dc->fs_base = NULL;
  dc->fs_shared = 0;
  if (dc->fs_node_made) MPI_Comm_free(&dc->fs_node);
  dc->fs_node_made = 0;
}

static targetDevComm *registry = NULL;

const char *targetDevCommError(const targetDevComm *dc) { return dc ? dc->err : "no device communicator"; }
targetDevCommPath_t targetDevCommPath(const targetDevComm *dc) { return dc->path; }
const char *targetDevCommDescribe(const targetDevComm *dc) { return dc->desc; }
int targetDevCommCanMessage(const targetDevComm *dc) {
  return dc && (dc->path == TARGET_DEVCOMM_NCCL || dc->host_target);
}

static int fail(targetDevComm *dc, const char *fmt, const char *a, const char *b) {
  snprintf(dc->err, sizeof(dc->err), fmt, a, b);
  return -1;
}

/* Every rank learns the reason of the lowest rank that failed (ok == 0),
 * in why; returns 1 when every rank is ok. The halo module uses it too. */
static void copy_cut(char *dst, size_t len, const char *src) { /* strlcpy */
  size_t n = strlen(src);
  if (n >= len) n = len - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}
int tdpAgreeWhy_(MPI_Comm comm, int rank, int nranks, int ok, char *why, size_t len) {
  int first = ok ? nranks : rank, lowest = nranks;
  MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, comm);
  if (lowest == nranks) return 1;
  char buf[240];
  copy_cut(buf, sizeof(buf), why);
  MPI_Bcast(buf, (int) sizeof(buf), MPI_CHAR, lowest, comm);
  buf[sizeof(buf) - 1] = '\0';
  copy_cut(why, len, buf);
  return 0;
}
#define agree tdpAgreeWhy_

#if DC_NCCL
static const char *nccl_msg(ncclComm_t c, ncclResult_t r, char *buf, size_t len) {
  const char *last = c ? ncclGetLastError(c) : NULL;
  snprintf(buf, len, "%s%s%s", ncclGetErrorString(r), last && *last ? ": " : "",
           last && *last ? last : "");
  return buf;
}

/* No two ranks of a node on one GPU (NCCL refuses that, and on some
 * ranks only): checked here with MPI first. */
static int gpus_distinct(targetDevComm *dc, char *why, size_t len) {
  MPI_Comm node;
  MPI_Comm_split_type(dc->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int n = 1, me = 0, dev = targetDeviceId(), ok = 1;
  MPI_Comm_size(node, &n);
  MPI_Comm_rank(node, &me);
  int *all = (int *) malloc(sizeof(int) * n);
  if (!all) {
    MPI_Comm_free(&node);
    snprintf(why, len, "no host memory");
    return 0;
  }
  MPI_Allgather(&dev, 1, MPI_INT, all, 1, MPI_INT, node);
  for (int i = 0; i < n && ok; i++)
    if (i != me && all[i] == dev) {
      snprintf(why, len, "ranks of a node share GPU %d (NCCL needs one GPU per rank)", dev);
      ok = 0;
    }
  free(all);
  MPI_Comm_free(&node);
  return ok;
}

/* NCCL's communicator and a test sum of every rank's number, as a double
 * and as a 64-bit integer (which also connects the ring before the first
 * timed use). 1 on success; why says what failed. */
static int nccl_setup(targetDevComm *dc, char *why, size_t len) {
  ncclUniqueId id;
  memset(&id, 0, sizeof(id));
  int ok = 1;
  char msg[160];
  if (dc->rank == 0) {
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) {
      snprintf(why, len, "ncclGetUniqueId: %s", nccl_msg(NULL, r, msg, sizeof(msg)));
      ok = 0;
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, dc->comm);
  if (!ok) return agree(dc->comm, dc->rank, dc->nranks, dc->rank ? 1 : 0, why, len);
  MPI_Bcast(&id, (int) sizeof(id), MPI_BYTE, 0, dc->comm);
  ncclResult_t r = ncclCommInitRank(&dc->nccl, dc->nranks, id, dc->rank);
  if (r != ncclSuccess) {
    snprintf(why, len, "ncclCommInitRank on rank %d: %s", dc->rank, nccl_msg(NULL, r, msg, sizeof(msg)));
    dc->nccl = NULL;
    ok = 0;
  }
  if (!agree(dc->comm, dc->rank, dc->nranks, ok, why, len)) return 0;
  /* the test sum */
  double *t = NULL;
  targetStream_t s = NULL;
  double h[2] = {(double) (dc->rank + 1), 0.0};
  long long hl = dc->rank + 1;
  memcpy(&h[1], &hl, sizeof(hl));
  void *native = NULL;
  if (targetMalloc(&t, 2 * sizeof(double)) != TARGET_SUCCESS ||
      targetStreamCreate(&s) != TARGET_SUCCESS ||
      copyToTarget(t, h, sizeof(h)) != TARGET_SUCCESS ||
      tdpStreamNative_(s, &native, __FILE__, __LINE__) != TARGET_SUCCESS) {
    snprintf(why, len, "test sum on rank %d: %s", dc->rank, targetLastErrorString());
    ok = 0;
  }
  if (ok) {
    r = ncclGroupStart();
    if (r == ncclSuccess) r = ncclAllReduce(t, t, 1, ncclDouble, ncclSum, dc->nccl, (cudaStream_t) native);
    if (r == ncclSuccess) r = ncclAllReduce(t + 1, t + 1, 1, ncclInt64, ncclSum, dc->nccl, (cudaStream_t) native);
    ncclResult_t r2 = ncclGroupEnd();
    if (r == ncclSuccess) r = r2;
    if (r != ncclSuccess) {
      snprintf(why, len, "test sum on rank %d: ncclAllReduce: %s", dc->rank, nccl_msg(dc->nccl, r, msg, sizeof(msg)));
      ok = 0;
    }
  }
  if (ok && (targetStreamSynchronize(s) != TARGET_SUCCESS || copyFromTarget(h, t, sizeof(h)) != TARGET_SUCCESS)) {
    snprintf(why, len, "test sum on rank %d: %s", dc->rank, targetLastErrorString());
    ok = 0;
  }
  if (ok) {
    const long long want = (long long) dc->nranks * (dc->nranks + 1) / 2;
    memcpy(&hl, &h[1], sizeof(hl));
    if (h[0] != (double) want || hl != want) {
      snprintf(why, len, "test sum on rank %d: %g and %lld, not %lld", dc->rank, h[0], hl, want);
      ok = 0;
    }
  }
  if (s) targetStreamDestroy(s);
  targetFree(t);
  return agree(dc->comm, dc->rank, dc->nranks, ok, why, len);
}
#endif


static void destroy(targetDevComm *dc) {
  if (dc->fs_node_made) { /* every rank, or none: collective, as the set-up */
    targetSynchronize();
    MPI_Barrier(dc->comm);
    fs_free(dc);
  }
#if DC_NCCL
  if (dc->nccl) ncclCommDestroy(dc->nccl);
  dc->nccl = NULL;
#endif
  if (dc->dflt) targetStreamDestroy(dc->dflt);
  free(dc->ops);
  free(dc->nsent);
  free(dc->nrecvd);
  free(dc->host);
  if (dc->comm != MPI_COMM_NULL) MPI_Comm_free(&dc->comm);
  free(dc);
}

static int fs_sum(targetDevComm *dc, void *t_buf, long count, tdpType type, targetStream_t stream);

/* TARGETDP_DEVSUM=flags: the buffers and their mappings, then a test sum
 * (of the ranks' numbers, checked). Collective; returns 1 when set up on
 * every rank, else 0 with the lowest failing rank's reason in why. */
static int fs_setup(targetDevComm *dc, char *why, size_t len) {
  const int n = dc->nranks;
  int ok = 1;
  MPI_Comm_split_type(dc->comm, MPI_COMM_TYPE_SHARED, dc->rank, MPI_INFO_NULL, &dc->fs_node);
  dc->fs_node_made = 1;
  int node_size = 0;
  MPI_Comm_size(dc->fs_node, &node_size);
  if (n > FS_MAXRANKS) {
    snprintf(why, len, "TARGETDP_DEVSUM=flags: %d ranks, at most %d", n, FS_MAXRANKS);
    ok = 0;
  } else if (node_size != n) {
    snprintf(why, len, "TARGETDP_DEVSUM=flags: the ranks are on more than one node");
    ok = 0;
  } else if (!targetStreamFlagsAvailable() || (!dc->host_target && !targetIpcAvailable())) {
    snprintf(why, len, "TARGETDP_DEVSUM=flags: no stream flags (cuStreamWaitValue32) or CUDA IPC");
    ok = 0;
  }
  if (!agree(dc->comm, dc->rank, n, ok, why, len)) return 0;
  const size_t bytes = fs_bytes(n);
  if (dc->host_target) { /* node ranks in our order (key = rank): window r is rank r's */
    char *mine = NULL;
    ok = MPI_Win_allocate_shared((MPI_Aint) bytes, 8, MPI_INFO_NULL, dc->fs_node, &mine,
                                 &dc->fs_win) == MPI_SUCCESS;
    if (ok) {
      dc->fs_shared = 1;
      memset(mine, 0, bytes);
      dc->fs_base = mine;
      tdpTrackShared_(mine, bytes, 1);
      for (int r = 0; r < n && ok; r++) {
        if (r == dc->rank) continue;
        MPI_Aint sz = 0;
        int disp = 0;
        char *b = NULL;
        ok = MPI_Win_shared_query(dc->fs_win, r, &sz, &disp, &b) == MPI_SUCCESS && b &&
             (size_t) sz >= bytes;
        if (ok) {
          dc->fs_peer[r] = b;
          tdpTrackShared_(b, bytes, 1);
        }
      }
    }
    if (!ok) snprintf(why, len, "TARGETDP_DEVSUM=flags: the shared window failed");
  } else {
    ok = targetMalloc(&dc->fs_base, bytes) == TARGET_SUCCESS &&
         targetZero((double *) dc->fs_base, bytes / 8) == TARGET_SUCCESS &&
         targetSynchronize() == TARGET_SUCCESS;
    targetIpcHandle_t h, *all = (targetIpcHandle_t *) calloc((size_t) n, sizeof(h));
    memset(&h, 0, sizeof(h));
    ok = ok && all && targetIpcGetHandle(&h, dc->fs_base) == TARGET_SUCCESS;
    if (all) MPI_Allgather(&h, (int) sizeof(h), MPI_BYTE, all, (int) sizeof(h), MPI_BYTE, dc->comm);
    for (int r = 0; r < n && ok; r++)
      if (r != dc->rank) ok = targetIpcOpenHandle(&dc->fs_peer[r], &all[r]) == TARGET_SUCCESS;
    free(all);
    if (!ok) snprintf(why, len, "TARGETDP_DEVSUM=flags: %s", targetLastErrorString());
  }
  if (!agree(dc->comm, dc->rank, n, ok, why, len)) return 0;
  /* the test sum: every rank's number, and its double, twice (both parities) */
  dc->fs_on = 1;
  for (int k = 0; k < 2 && ok; k++) {
    int64_t v[2];
    double w = 0.0;
    memcpy(&v[1], &w, 8);
    v[0] = dc->rank + 1;
    w = 0.5 * dc->rank;
    memcpy(&v[1], &w, 8);
    int64_t *t = NULL;
    ok = targetMalloc(&t, sizeof(v)) == TARGET_SUCCESS && copyToTarget(t, v, sizeof(v)) == TARGET_SUCCESS &&
         fs_sum(dc, t, 1, TDP_TYPE_LONG, TARGET_STREAM_DEFAULT) == 0 &&
         fs_sum(dc, t + 1, 1, TDP_TYPE_DOUBLE, TARGET_STREAM_DEFAULT) == 0 &&
         targetSynchronize() == TARGET_SUCCESS && copyFromTarget(v, t, sizeof(v)) == TARGET_SUCCESS;
    targetFree(t);
    memcpy(&w, &v[1], 8);
    if (!ok) {
      snprintf(why, len, "TARGETDP_DEVSUM=flags: rank %d: the test sum failed: %.120s", dc->rank,
               dc->err[0] ? dc->err : targetLastErrorString());
    } else if (v[0] != (int64_t) n * (n + 1) / 2 || w != 0.25 * n * (n - 1)) {
      snprintf(why, len, "TARGETDP_DEVSUM=flags: rank %d: the test sum gave %lld and %g, not %lld and %g",
               dc->rank, (long long) v[0], w, (long long) n * (n + 1) / 2, 0.25 * n * (n - 1));
      ok = 0;
    }
  }
  if (!agree(dc->comm, dc->rank, n, ok, why, len)) {
    dc->fs_on = 0;
    return 0;
  }
  return 1;
}

int targetDevCommCreate(MPI_Comm comm, targetDevComm **out, char *err, size_t errlen) {
  if (!out) {
    snprintf(err, errlen, "targetDevCommCreate: NULL result pointer");
    return -1;
  }
  *out = NULL;
  int rank = 0, nranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  /* a live one of the same ranks in the same order: shared */
  targetDevComm *found = NULL;
  for (targetDevComm *r = registry; r && !found; r = r->next) {
    int res = MPI_UNEQUAL;
    MPI_Comm_compare(comm, r->comm, &res);
    if (res == MPI_IDENT || res == MPI_CONGRUENT) found = r;
  }
  int have = found != NULL, all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, comm);
  if (all) {
    found->refs++;
    *out = found;
    return 0;
  }
  const char *env = getenv("TARGETDP_DEVCOMM");
  int want_nccl = 0, force_nccl = 0, bad_env = 0;
  if (!env || !*env || strcmp(env, "auto") == 0) want_nccl = 1;
  else if (strcmp(env, "nccl") == 0) want_nccl = force_nccl = 1;
  else if (strcmp(env, "mpi") != 0) bad_env = 1;
  char why[200] = "";
  if (bad_env) snprintf(why, sizeof(why), "TARGETDP_DEVCOMM=%s: must be auto, mpi or nccl", env);
  targetDevComm *dc = bad_env ? NULL : (targetDevComm *) calloc(1, sizeof(targetDevComm));
  if (!bad_env && !dc) snprintf(why, sizeof(why), "no host memory");
  if (!agree(comm, rank, nranks, dc != NULL, why, sizeof(why))) {
    free(dc);
    snprintf(err, errlen, "%s", why);
    return -1;
  }
  MPI_Comm_dup(comm, &dc->comm);
  dc->rank = rank;
  dc->nranks = nranks;
  dc->refs = 1;
  dc->host_target = targetDeviceId() < 0;
  dc->path = TARGET_DEVCOMM_MPI;
  dc->nsent = (long *) calloc((size_t) nranks, sizeof(long));
  dc->nrecvd = (long *) calloc((size_t) nranks, sizeof(long));
  int ok = dc->nsent && dc->nrecvd;
  if (!ok) snprintf(why, sizeof(why), "no host memory");
  if (!agree(dc->comm, rank, nranks, ok, why, sizeof(why))) {
    destroy(dc);
    snprintf(err, errlen, "%s", why);
    return -1;
  }
  /* Why not NCCL (the same on every rank: build, backend, environment) */
  if (!want_nccl) snprintf(why, sizeof(why), "TARGETDP_DEVCOMM=mpi");
  else if (!DC_NCCL && dc->host_target) snprintf(why, sizeof(why), "C backend: target memory is host memory");
  else if (!DC_NCCL) snprintf(why, sizeof(why), "NCCL not built in (make TARGET=cuda found no nccl.h and libnccl, or NCCL=0)");
  else if (nranks == 1 && !force_nccl) snprintf(why, sizeof(why), "one rank: nothing to send");
#if DC_NCCL
  else {
    ok = gpus_distinct(dc, why, sizeof(why));
    if (agree(dc->comm, rank, nranks, ok, why, sizeof(why)) && nccl_setup(dc, why, sizeof(why))) {
      dc->path = TARGET_DEVCOMM_NCCL;
      int v = 0;
      ncclGetVersion(&v);
      snprintf(dc->desc, sizeof(dc->desc), "nccl %d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
      if (targetStreamCreate(&dc->dflt) != TARGET_SUCCESS) {
        snprintf(why, sizeof(why), "no stream: %s", targetLastErrorString());
        ok = 0;
      }
      if (!agree(dc->comm, rank, nranks, ok, why, sizeof(why))) {
        destroy(dc);
        snprintf(err, errlen, "%s", why);
        return -1;
      }
    } else if (dc->nccl) { /* set up here, failed elsewhere (the test sum) */
      ncclCommAbort(dc->nccl);
      dc->nccl = NULL;
    }
  }
#endif
  if (dc->path != TARGET_DEVCOMM_NCCL) {
    if (force_nccl) {
      snprintf(err, errlen, "TARGETDP_DEVCOMM=nccl: NCCL is not available: %s", why);
      destroy(dc);
      return -1;
    }
    snprintf(dc->desc, sizeof(dc->desc), "mpi (%s)", why);
  }
  /* the sums' path: the communicator's (NCCL or MPI), or flags between
   * the ranks of a node (TARGETDP_DEVSUM=flags, several ranks) */
  const char *ds = getenv("TARGETDP_DEVSUM");
  if (ds && strcmp(ds, "ipc") == 0) {
    snprintf(err, errlen, "TARGETDP_DEVSUM=ipc: withdrawn (the IPC sum kernel gave wrong sums "
                          "on 2 H100s, 2026-11-26); unset it or use nccl or flags");
    destroy(dc);
    return -1;
  } else if (ds && *ds && strcmp(ds, "nccl") != 0 && strcmp(ds, "flags") != 0) {
    snprintf(err, errlen, "TARGETDP_DEVSUM=%s: must be nccl or flags", ds);
    destroy(dc);
    return -1;
  } else if (ds && strcmp(ds, "flags") == 0 && nranks > 1) {
    if (!fs_setup(dc, why, sizeof(why))) {
      snprintf(err, errlen, "%s", why);
      destroy(dc);
      return -1;
    }
    size_t l = strlen(dc->desc);
    snprintf(dc->desc + l, sizeof(dc->desc) - l, "; sums by flags");
  }
  if (rank == 0 && !getenv("TARGETDP_QUIET"))
    fprintf(stderr, "targetDP_devcomm: %d rank%s, path %s\n", nranks, nranks == 1 ? "" : "s",
            dc->desc);
  dc->next = registry;
  registry = dc;
  *out = dc;
  return 0;
}

void targetDevCommFree(targetDevComm *dc) {
  if (!dc || --dc->refs > 0) return;
  for (targetDevComm **p = &registry; *p; p = &(*p)->next)
    if (*p == dc) {
      *p = dc->next;
      break;
    }
  destroy(dc);
}

#if DC_NCCL
/* The native stream for NCCL; the default stream is stood in for by a
 * blocking stream of our own (ordered with it both ways). */
static int nccl_stream(targetDevComm *dc, targetStream_t s, cudaStream_t *native) {
  void *p = NULL;
  if (tdpStreamNative_(s ? s : dc->dflt, &p, __FILE__, __LINE__) != TARGET_SUCCESS)
    return fail(dc, "%s%s", "not a live stream: ", targetLastErrorString());
  *native = (cudaStream_t) p;
  return 0;
}

static int nccl_check(targetDevComm *dc, ncclResult_t r, const char *what) {
  char msg[200];
  if (r == ncclSuccess) {
    ncclResult_t a = ncclSuccess;
    if (ncclCommGetAsyncError(dc->nccl, &a) == ncclSuccess && a != ncclSuccess && a != ncclInProgress)
      r = a;
  }
  if (r == ncclSuccess) return 0;
  return fail(dc, "%s: %s", what, nccl_msg(dc->nccl, r, msg, sizeof(msg)));
}
#endif

int targetDevCommAllreduceSum(targetDevComm *dc, void *t_buf, long count, tdpType type,
                              targetStream_t stream) {
  if (!dc) return -1;
  if (type != TDP_TYPE_DOUBLE && !(type == TDP_TYPE_LONG && sizeof(long) == 8))
    return fail(dc, "%s%s", "targetDevCommAllreduceSum: type must be TDP_TYPE_DOUBLE or TDP_TYPE_LONG (64-bit)", "");
  if (count < 0 || (count > 0 && !t_buf))
    return fail(dc, "%s%s", "targetDevCommAllreduceSum: NULL buffer or negative count", "");
  if (count == 0 || dc->nranks == 1) return 0; /* the sum of one rank is its own */
  if (dc->fs_on && count <= FS_WORDS) return fs_sum(dc, t_buf, count, type, stream);
  const size_t bytes = (size_t) count * 8;
#if DC_NCCL
  if (dc->path == TARGET_DEVCOMM_NCCL) {
    cudaStream_t s;
    if (nccl_stream(dc, stream, &s)) return -1;
    return nccl_check(dc, ncclAllReduce(t_buf, t_buf, (size_t) count,
                                        type == TDP_TYPE_DOUBLE ? ncclDouble : ncclInt64, ncclSum,
                                        dc->nccl, s),
                      "ncclAllReduce");
  }
#endif
  if (targetStreamSynchronize(stream) != TARGET_SUCCESS)
    return fail(dc, "%s%s", "targetDevCommAllreduceSum: the stream failed: ", targetLastErrorString());
  MPI_Datatype mt = type == TDP_TYPE_DOUBLE ? MPI_DOUBLE : MPI_LONG;
  if (dc->host_target) {
    MPI_Allreduce(MPI_IN_PLACE, t_buf, (int) count, mt, MPI_SUM, dc->comm);
    return 0;
  }
  if (dc->nhost < bytes) { /* a GPU without NCCL: through a host copy */
    void *p = realloc(dc->host, bytes);
    if (!p) return fail(dc, "%s%s", "targetDevCommAllreduceSum: no host memory", "");
    dc->host = p;
    dc->nhost = bytes;
  }
  if (copyFromTarget(dc->host, t_buf, bytes) != TARGET_SUCCESS)
    return fail(dc, "%s%s", "targetDevCommAllreduceSum: ", targetLastErrorString());
  MPI_Allreduce(MPI_IN_PLACE, dc->host, (int) count, mt, MPI_SUM, dc->comm);
  if (copyToTarget(t_buf, dc->host, bytes) != TARGET_SUCCESS)
    return fail(dc, "%s%s", "targetDevCommAllreduceSum: ", targetLastErrorString());
  return 0;
}

/* ---------------------------------------------------------------- messages */

int targetDevCommGroupStart(targetDevComm *dc) {
  if (!dc) return -1;
  if (dc->in_group) return fail(dc, "%s%s", "targetDevCommGroupStart: a group is open already", "");
#if DC_NCCL
  if (dc->path == TARGET_DEVCOMM_NCCL && nccl_check(dc, ncclGroupStart(), "ncclGroupStart")) return -1;
#endif
  dc->in_group = 1;
  dc->nops = 0;
  return 0;
}

static int message(targetDevComm *dc, int send, void *buf, size_t bytes, int peer,
                   targetStream_t stream) {
  if (!dc) return -1;
  const char *what = send ? "targetDevCommSend" : "targetDevCommRecv";
  if (peer < 0 || peer >= dc->nranks) {
    char p[32];
    snprintf(p, sizeof(p), "%d", peer);
    return fail(dc, "%s: peer %s is not a rank of the communicator", what, p);
  }
  if (bytes > 0 && !buf) return fail(dc, "%s: NULL buffer%s", what, "");
  if (!targetDevCommCanMessage(dc))
    return fail(dc, "%s: not available on %s (messages need NCCL on a GPU)", what, dc->desc);
  const int single = !dc->in_group;
  if (single && targetDevCommGroupStart(dc)) return -1;
  int rc = 0;
#if DC_NCCL
  if (dc->path == TARGET_DEVCOMM_NCCL) {
    cudaStream_t s;
    rc = nccl_stream(dc, stream, &s);
    if (!rc && bytes > 0)
      rc = nccl_check(dc, send ? ncclSend(buf, bytes, ncclUint8, peer, dc->nccl, s)
                               : ncclRecv(buf, bytes, ncclUint8, peer, dc->nccl, s),
                      send ? "ncclSend" : "ncclRecv");
  }
#endif
  if (dc->path == TARGET_DEVCOMM_MPI && bytes > 0) {
    (void) stream; /* the C backend: the stream's work is done when queued */
    if (dc->nops == dc->maxops) {
      int n = dc->maxops ? 2 * dc->maxops : 16;
      dcOp *p = (dcOp *) realloc(dc->ops, (size_t) n * sizeof(dcOp));
      if (!p) rc = fail(dc, "%s: no host memory%s", what, "");
      else {
        dc->ops = p;
        dc->maxops = n;
      }
    }
    if (!rc) dc->ops[dc->nops++] = (dcOp){send, buf, bytes, peer};
  }
  if (single) {
    int rc2 = targetDevCommGroupEnd(dc);
    if (!rc) rc = rc2;
  }
  return rc;
}

int targetDevCommSend(targetDevComm *dc, const void *t_buf, size_t bytes, int peer,
                      targetStream_t stream) {
  return message(dc, 1, (void *) t_buf, bytes, peer, stream);
}
int targetDevCommRecv(targetDevComm *dc, void *t_buf, size_t bytes, int peer,
                      targetStream_t stream) {
  return message(dc, 0, t_buf, bytes, peer, stream);
}

/* The MPI path: every message of the group posted, then all waited for.
 * The k-th message from a rank to another carries tag k (mod 32000), so
 * they match in the order queued, as NCCL's do. */
int targetDevCommGroupEnd(targetDevComm *dc) {
  if (!dc) return -1;
  if (!dc->in_group) return fail(dc, "%s%s", "targetDevCommGroupEnd: no group is open", "");
  dc->in_group = 0;
#if DC_NCCL
  if (dc->path == TARGET_DEVCOMM_NCCL) return nccl_check(dc, ncclGroupEnd(), "ncclGroupEnd");
#endif
  if (dc->nops == 0) return 0;
  MPI_Request *req = (MPI_Request *) malloc((size_t) dc->nops * sizeof(MPI_Request));
  if (!req) return fail(dc, "%s%s", "targetDevCommGroupEnd: no host memory", "");
  int rc = 0;
  for (int i = 0; i < dc->nops && !rc; i++) {
    dcOp *o = &dc->ops[i];
    if (o->bytes > (size_t) INT32_MAX) {
      rc = fail(dc, "%s%s", "targetDevCommGroupEnd: a message over 2^31 bytes on the MPI path", "");
      for (int j = i; j < dc->nops; j++) req[j] = MPI_REQUEST_NULL;
      break;
    }
    if (o->send)
      MPI_Isend(o->buf, (int) o->bytes, MPI_BYTE, o->peer, (int) (dc->nsent[o->peer]++ % 32000),
                dc->comm, &req[i]);
    else
      MPI_Irecv(o->buf, (int) o->bytes, MPI_BYTE, o->peer, (int) (dc->nrecvd[o->peer]++ % 32000),
                dc->comm, &req[i]);
  }
  MPI_Waitall(dc->nops, req, MPI_STATUSES_IGNORE);
  free(req);
  dc->nops = 0;
  return rc;
}

/* A sum by flags (TARGETDP_DEVSUM=flags, above): put, signal, wait, add,
 * all queued on stream. */
static int fs_sum(targetDevComm *dc, void *t_buf, long count, tdpType type, targetStream_t stream) {
  const int n = dc->nranks, par = (int) (++dc->fs_seq & 1u);
  fsDests_ d;
  memset(&d, 0, sizeof(d));
  for (int r = 0; r < n; r++) d.dst[r] = fs_slot(r == dc->rank ? dc->fs_base : dc->fs_peer[r], n, par, dc->rank);
  TDP_LAUNCH_STREAM(kFsPut, (long) n * count, stream, (const int64_t *) t_buf, d, n, count);
  if (targetLastError() != TARGET_SUCCESS)
    return fail(dc, "%s%s", "sum by flags: ", targetLastErrorString());
  for (int r = 0; r < n; r++)
    if (r != dc->rank && targetStreamWriteFlag(fs_flag(dc->fs_peer[r], n, dc->rank), dc->fs_seq, stream))
      return fail(dc, "%s%s", "sum by flags: ", targetLastErrorString());
  for (int r = 0; r < n; r++)
    if (r != dc->rank && targetStreamWaitFlag(fs_flag(dc->fs_base, n, r), dc->fs_seq, stream))
      return fail(dc, "%s%s", "sum by flags: ", targetLastErrorString());
  TDP_LAUNCH_STREAM(kFsSum, count, stream, t_buf, (const char *) fs_slot(dc->fs_base, n, par, 0), n, count,
                    type == TDP_TYPE_DOUBLE);
  if (targetLastError() != TARGET_SUCCESS)
    return fail(dc, "%s%s", "sum by flags: ", targetLastErrorString());
  return 0;
}
