#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "pario.h"

/* Agree across ranks: did any fail? */
static int any(MPI_Comm comm, int flag) {
  int r = 0;
  MPI_Allreduce(&flag, &r, 1, MPI_INT, MPI_MAX, comm);
  return r;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail(pioFile *f, const char *fmt, ...) {
  if (f->failed) return; /* the first failure is the one worth naming */
  f->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->what, sizeof(f->what), fmt, ap);
  va_end(ap);
}

static const char *mpi_why(int rc, char *buf) {
  int n = 0;
  buf[0] = '\0';
  MPI_Error_string(rc, buf, &n);
  return buf;
}

int pioOpenWrite(pioFile *f, MPI_Comm comm, const char *path, char *err, size_t len) {
  memset(f, 0, sizeof(*f));
  f->comm = comm;
  MPI_Comm_rank(comm, &f->rank);
  snprintf(f->path, sizeof(f->path), "%s", path);
  snprintf(f->tmp, sizeof(f->tmp), "%s.tmp", path);
  /* stat before the open: a FIFO under the temporary name would block
   * MPI_File_open on every rank, a directory fail it without a reason */
  char why0[600] = "";
  if (f->rank == 0) fioCheckOutput(f->tmp, "temporary file", why0, sizeof(why0));
  MPI_Bcast(why0, (int) sizeof(why0), MPI_CHAR, 0, comm);
  if (why0[0]) {
    snprintf(err, len, "%s", why0);
    return -1;
  }
  int rc = MPI_File_open(comm, f->tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &f->fh);
  if (any(comm, rc != MPI_SUCCESS)) {
    char why[MPI_MAX_ERROR_STRING] = "";
    if (rc == MPI_SUCCESS) MPI_File_close(&f->fh);
    else mpi_why(rc, why);
    snprintf(err, len, "cannot create '%s'%s%s (does the output directory exist?)", f->tmp,
             why[0] ? ": " : "", why);
    return -1;
  }
  f->open = 1;
  /* A stale, longer .tmp from a crashed run must not leave a tail. */
  rc = MPI_File_set_size(f->fh, 0);
  if (rc != MPI_SUCCESS) {
    char why[MPI_MAX_ERROR_STRING];
    fail(f, "truncating it failed: %s", mpi_why(rc, why));
  }
  return 0;
}

void pioWriteMine(pioFile *f, MPI_Offset off, const void *buf, int nbytes) {
  if (f->failed) return;
  MPI_Status st;
  char why[MPI_MAX_ERROR_STRING];
  int rc = MPI_File_write_at(f->fh, off, buf, nbytes, MPI_BYTE, &st), done = -1;
  if (rc != MPI_SUCCESS) {
    fail(f, "writing %d bytes at offset %lld failed: %s", nbytes, (long long) off,
         mpi_why(rc, why));
    return;
  }
  /* A full disk can come back as success with fewer bytes written. */
  MPI_Get_count(&st, MPI_BYTE, &done);
  if (done != nbytes)
    fail(f, "short write at offset %lld: %d of %d bytes written", (long long) off, done, nbytes);
}

void pioWriteAt(pioFile *f, MPI_Offset off, const void *buf, int nbytes) {
  if (f->rank == 0) pioWriteMine(f, off, buf, nbytes);
}

/* The subarray type of a block; its record count in *count (a block of a
 * checked lattice fits an int: the callers' sites per rank do). */
static int block_type(int ndim, const int gsize[], const int lsize[], const int start[],
                      int recbytes, MPI_Datatype *rec, MPI_Datatype *block, int *count) {
  int g[4], l[4], s[4];
  *count = 1;
  for (int d = 0; d < ndim && d < 4; d++) {
    g[d] = gsize[d];
    l[d] = lsize[d];
    s[d] = start[d];
    *count *= lsize[d];
  }
  MPI_Type_contiguous(recbytes, MPI_BYTE, rec);
  MPI_Type_commit(rec);
  MPI_Type_create_subarray(ndim, g, l, s, MPI_ORDER_C, *rec, block);
  return MPI_Type_commit(block);
}

void pioWriteBlock(pioFile *f, MPI_Offset disp, int ndim, const int gsize[], const int lsize[],
                   const int start[], int recbytes, const void *buf) {
  /* Every rank takes part in the collective write even after a failure of
   * its own: the others are waiting in it. */
  MPI_Datatype rec, block;
  int count = 0;
  block_type(ndim, gsize, lsize, start, recbytes, &rec, &block, &count);
  MPI_Status st;
  char native[] = "native", why[MPI_MAX_ERROR_STRING];
  int rc = MPI_File_set_view(f->fh, disp, rec, block, native, MPI_INFO_NULL);
  if (rc == MPI_SUCCESS) {
    rc = MPI_File_write_all(f->fh, buf, count, rec, &st);
    int done = -1;
    if (rc == MPI_SUCCESS) MPI_Get_count(&st, rec, &done);
    if (rc != MPI_SUCCESS)
      fail(f, "writing this rank's %lld-byte block failed: %s", (long long) count * recbytes,
           mpi_why(rc, why));
    else if (done != count)
      fail(f, "short write of this rank's block: %d of %d records of %d bytes", done, count,
           recbytes);
  } else {
    fail(f, "setting the file view failed: %s", mpi_why(rc, why));
  }
  /* Back to plain bytes from offset 0, for the next header. */
  MPI_File_set_view(f->fh, 0, MPI_BYTE, MPI_BYTE, native, MPI_INFO_NULL);
  MPI_Type_free(&block);
  MPI_Type_free(&rec);
}

void pioClose(pioFile *f, long long bytes) {
  char why[MPI_MAX_ERROR_STRING];
  if (!f->open) return;
  int rc = MPI_File_sync(f->fh);
  if (rc != MPI_SUCCESS) fail(f, "sync failed: %s", mpi_why(rc, why));
  rc = MPI_File_close(&f->fh);
  f->open = 0;
  if (rc != MPI_SUCCESS) fail(f, "close failed: %s", mpi_why(rc, why));
  if (f->rank == 0) {
    struct stat st;
    if (stat(f->tmp, &st) != 0)
      fail(f, "cannot stat it after closing: %s", strerror(errno));
    else if ((long long) st.st_size != bytes)
      fail(f, "it holds %lld bytes after closing, %lld were to be written", (long long) st.st_size,
           bytes);
  }
}

void pioFail(pioFile *f, const char *what) { fail(f, "%s", what); }

int pioCommit(pioFile *f, const char *kind, char *err, size_t len) {
  if (f->open) fail(f, "not closed before the commit (a bug)");
  const int failed = any(f->comm, f->failed);
  if (!failed && f->rank == 0 && rename(f->tmp, f->path) != 0)
    fail(f, "renaming it to '%s' failed: %s", f->path, strerror(errno));
  /* The first failing rank tells everyone what went wrong. */
  int nranks = 1, first = 0, mine;
  MPI_Comm_size(f->comm, &nranks);
  mine = f->failed ? f->rank : nranks;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, f->comm);
  if (first == nranks) return 0;
  MPI_Bcast(f->what, (int) sizeof(f->what), MPI_CHAR, first, f->comm);
  if (f->rank == 0) remove(f->tmp);
  struct stat st;
  const int old = stat(f->path, &st) == 0;
  char space[1200];
  fioFreeSpace(f->path, space, sizeof(space));
  snprintf(err, len, "writing %s '%s' failed (as '%s'): %s (rank %d); %s; %s", kind, f->path,
           f->tmp, f->what, first,
           old ? "the previous file under that name is unchanged" : "no file under that name",
           space);
  return -1;
}

int pioReadBlock(MPI_File fh, MPI_Offset disp, int ndim, const int gsize[], const int lsize[],
                 const int start[], int recbytes, void *buf) {
  MPI_Datatype rec, block;
  int count = 0;
  block_type(ndim, gsize, lsize, start, recbytes, &rec, &block, &count);
  MPI_Status st;
  char native[] = "native";
  int done = -1;
  int rc = MPI_File_set_view(fh, disp, rec, block, native, MPI_INFO_NULL);
  if (rc == MPI_SUCCESS) rc = MPI_File_read_all(fh, buf, count, rec, &st);
  if (rc == MPI_SUCCESS) MPI_Get_count(&st, rec, &done);
  MPI_Type_free(&block);
  MPI_Type_free(&rec);
  return rc == MPI_SUCCESS && done == count ? 0 : -1;
}
