#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pario.h"

/* Agree across ranks: did any fail? */
static int any(MPI_Comm comm, int flag) {
  int r = 0;
  MPI_Allreduce(&flag, &r, 1, MPI_INT, MPI_MAX, comm);
  return r;
}

int lbPOpenWrite(lbPFile *f, MPI_Comm comm, const char *path, char *err, size_t len) {
  memset(f, 0, sizeof(*f));
  f->comm = comm;
  MPI_Comm_rank(comm, &f->rank);
  snprintf(f->path, sizeof(f->path), "%s", path);
  snprintf(f->tmp, sizeof(f->tmp), "%s.tmp", path);
  int rc = MPI_File_open(comm, f->tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &f->fh);
  if (any(comm, rc != MPI_SUCCESS)) {
    char why[MPI_MAX_ERROR_STRING] = "";
    int n = 0;
    if (rc == MPI_SUCCESS) MPI_File_close(&f->fh);
    else MPI_Error_string(rc, why, &n);
    snprintf(err, len, "cannot create '%s'%s%s (does the output directory exist?)", f->tmp,
             n ? ": " : "", why);
    return -1;
  }
  /* A stale, longer .tmp from a crashed run must not leave a tail. */
  f->failed = MPI_File_set_size(f->fh, 0) != MPI_SUCCESS;
  return 0;
}

void lbPWriteAt(lbPFile *f, MPI_Offset off, const void *buf, int nbytes) {
  if (f->rank != 0) return;
  MPI_Status st;
  if (MPI_File_write_at(f->fh, off, buf, nbytes, MPI_BYTE, &st) != MPI_SUCCESS) f->failed = 1;
}

static int block_type(const int gsize[3], const int lsize[3], const int start[3], int recbytes,
                      MPI_Datatype *rec, MPI_Datatype *block) {
  int g[3], l[3], s[3];
  memcpy(g, gsize, sizeof(g));
  memcpy(l, lsize, sizeof(l));
  memcpy(s, start, sizeof(s));
  MPI_Type_contiguous(recbytes, MPI_BYTE, rec);
  MPI_Type_commit(rec);
  MPI_Type_create_subarray(3, g, l, s, MPI_ORDER_C, *rec, block);
  return MPI_Type_commit(block);
}

void lbPWriteBlock(lbPFile *f, MPI_Offset disp, const int gsize[3], const int lsize[3],
                   const int start[3], int recbytes, const void *buf) {
  MPI_Datatype rec, block;
  block_type(gsize, lsize, start, recbytes, &rec, &block);
  MPI_Status st;
  char native[] = "native";
  int rc = MPI_File_set_view(f->fh, disp, rec, block, native, MPI_INFO_NULL);
  if (rc == MPI_SUCCESS)
    rc = MPI_File_write_all(f->fh, buf, lsize[0] * lsize[1] * lsize[2], rec, &st);
  if (rc != MPI_SUCCESS) f->failed = 1;
  /* Back to plain bytes from offset 0, for the next header. */
  MPI_File_set_view(f->fh, 0, MPI_BYTE, MPI_BYTE, native, MPI_INFO_NULL);
  MPI_Type_free(&block);
  MPI_Type_free(&rec);
}

int lbPCommit(lbPFile *f, char *err, size_t len) {
  if (MPI_File_sync(f->fh) != MPI_SUCCESS) f->failed = 1;
  if (MPI_File_close(&f->fh) != MPI_SUCCESS) f->failed = 1;
  int failed = any(f->comm, f->failed), renamed = 0;
  if (f->rank == 0) {
    if (failed) remove(f->tmp);
    else renamed = rename(f->tmp, f->path) == 0;
  }
  MPI_Bcast(&renamed, 1, MPI_INT, 0, f->comm);
  if (!renamed) {
    snprintf(err, len, "writing '%s' failed (disk full or not writable?)", f->path);
    return -1;
  }
  return 0;
}

int lbPReadBlock(MPI_File fh, MPI_Offset disp, const int gsize[3], const int lsize[3],
                 const int start[3], int recbytes, void *buf) {
  MPI_Datatype rec, block;
  block_type(gsize, lsize, start, recbytes, &rec, &block);
  MPI_Status st;
  char native[] = "native";
  int rc = MPI_File_set_view(fh, disp, rec, block, native, MPI_INFO_NULL);
  if (rc == MPI_SUCCESS) rc = MPI_File_read_all(fh, buf, lsize[0] * lsize[1] * lsize[2], rec, &st);
  MPI_Type_free(&block);
  MPI_Type_free(&rec);
  return rc == MPI_SUCCESS ? 0 : -1;
}
