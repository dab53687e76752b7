/* Small helpers for apps that must not lose data when a write fails: the
 * free space to name in the message, and a check that a file given as
 * input is a regular file before anything opens it (opening a FIFO for
 * reading blocks until a writer appears; a directory or a device is never
 * a checkpoint). Plain C, no MPI: the caller decides across ranks. */
#ifndef COMMON_FILEIO_H
#define COMMON_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes "N.N MiB free on the file system of 'DIR'" (DIR: the directory
 * holding path) or "free space unknown: <reason>" into buf. Returns buf. */
char *fioFreeSpace(const char *path, char *buf, size_t len);

/* 0 if path names a regular file (stat, which never blocks); otherwise -1
 * and err says why: missing, unreadable, or what it is instead (a FIFO,
 * a directory, a device, a socket). what: a word for the message
 * ("restart checkpoint"). */
int fioCheckRegular(const char *path, const char *what, char *err, size_t len);

/* Writes n bytes with fwrite and flushes; 0, or -1 with errno set (a
 * short count with errno 0 becomes EIO). Give it an unbuffered stream
 * (setvbuf _IONBF) when a failed write must leave nothing behind in the
 * buffer for a later flush to append. */
int fioWriteFlush(FILE *fp, const void *buf, size_t n);

/* Cuts the file back to its first `bytes` bytes (after a failed append:
 * no torn last line) and moves the stream to its new end; for unbuffered
 * streams (see above). 0 or -1. */
int fioTruncate(FILE *fp, long bytes);

#ifdef __cplusplus
}
#endif
#endif
