/* Small helpers for apps that must not lose data when a write fails: the
 * free space to name in the message, checks that a file given as input is
 * a regular file and that a file to be written can be, before anything
 * opens it (opening a FIFO blocks until the other end appears; a directory
 * or a device is never a checkpoint), and checked writes. Plain C, no MPI:
 * the caller decides across ranks (common/pario.h does, for MPI-IO). */
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

/* For a file the program will write (directly or through "path.tmp"
 * and a rename): 0 if path is absent and its directory exists and is
 * writable, or path is a regular file this process may write; otherwise
 * -1, and err says why, naming path: "cannot create 'x.csv': it is a FIFO,
 * not a regular file (...)", "...: Is a directory", "...: No such file or
 * directory", "...: Read-only file system". stat and access only: never
 * blocks, creates nothing. what: a word for the message ("summary"). */
int fioCheckOutput(const char *path, const char *what, char *err, size_t len);

/* 1 if a and b name the same file: the same inode when both exist, else
 * the same canonical directory and name ("./x" and "x" are one file). */
int fioSameFile(const char *a, const char *b);

/* Appends row (one or more whole lines) to the CSV file path, writing
 * header first when the file is empty or new; stat before the open (no
 * FIFO, no directory), one unbuffered checked write, a failed one cut off
 * again, the close checked. 0, or -1 with err naming the file, the reason
 * and the free space. */
int fioAppendRow(const char *path, const char *header, const char *row, char *err, size_t len);

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
