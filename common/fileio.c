#define _POSIX_C_SOURCE 200809L /* fileno, ftruncate under -std=c99 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fileio.h"

char *fioFreeSpace(const char *path, char *buf, size_t len) {
  char dir[1024];
  snprintf(dir, sizeof(dir), "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, sizeof(dir), ".");
  else if (slash == dir) dir[1] = '\0';
  else *slash = '\0';
  struct statvfs s;
  if (statvfs(dir, &s) != 0) {
    snprintf(buf, len, "free space unknown: statvfs('%s'): %s", dir, strerror(errno));
  } else {
    const double mib = (double) s.f_bavail * (double) s.f_frsize / (1024.0 * 1024.0);
    snprintf(buf, len, "%.1f MiB free on the file system of '%s'", mib, dir);
  }
  return buf;
}

static const char *kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

int fioCheckRegular(const char *path, const char *what, char *err, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0) {
    snprintf(err, len, "cannot read %s '%s': %s", what, path, strerror(errno));
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    snprintf(err, len, "%s '%s' is %s, not a regular file; refusing to open it", what, path,
             kind(st.st_mode));
    return -1;
  }
  return 0;
}

int fioWriteFlush(FILE *fp, const void *buf, size_t n) {
  errno = 0;
  const size_t done = fwrite(buf, 1, n, fp);
  if (done == n && fflush(fp) == 0) return 0;
  if (errno == 0) errno = EIO;
  return -1;
}

int fioTruncate(FILE *fp, long bytes) {
  clearerr(fp);
  if (bytes < 0) return -1;
  if (ftruncate(fileno(fp), (off_t) bytes) != 0) return -1;
  return fseek(fp, bytes, SEEK_SET);
}
