#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chkformat.h"
#include "common/fileio.h"
#include "model.h"

/* splitmix64's finaliser: a bijection that spreads every input bit. */
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t lbChkTerm(uint64_t i, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof(bits));
  return mix64(bits ^ mix64(i + 0x9e3779b97f4a7c15ull));
}

uint64_t lbChkHeaderSum(const lbChkHeader *h) {
  lbChkHeader c = *h;
  c.checksum = 0;
  uint64_t w[sizeof(c) / 8], sum = 0;
  memcpy(w, &c, sizeof(c));
  for (size_t k = 0; k < sizeof(c) / 8; k++) sum += mix64(w[k] + 0x632be59bd9b4e019ull * (k + 1));
  return sum;
}

uint64_t lbChkCount(const lbChkHeader *h) {
  return (uint64_t) h->size[0] * (uint64_t) h->size[1] * (uint64_t) h->size[2] * NVEL;
}

int lbChkCheckHeader(const lbChkHeader *h, long long file_bytes, const char *path, char *err,
                     size_t len) {
  if (memcmp(h->magic, LB_CHK_MAGIC, 8) != 0) {
    snprintf(err, len, "'%s' is not an lb checkpoint (bad magic)", path);
    return -1;
  }
  if (h->endian != LB_CHK_ENDIAN) {
    snprintf(err, len, "checkpoint '%s' was written with the other byte order", path);
    return -1;
  }
  if (h->version < LB_CHK_VERSION_OLDEST || h->version > LB_CHK_VERSION || h->nvel != NVEL) {
    snprintf(err, len, "checkpoint '%s' is version %u with %d velocities; this program reads "
                       "versions %d to %d with %d", path, h->version, h->nvel,
             LB_CHK_VERSION_OLDEST, LB_CHK_VERSION, NVEL);
    return -1;
  }
  if (h->version >= 3 && (!(h->rho > 0.0) || !isfinite(h->rho) || h->lbcase < 0 || h->lbcase > 2)) {
    snprintf(err, len, "checkpoint '%s' is corrupt: impossible rho or case in the header", path);
    return -1;
  }
  for (int d = 0; d < 3; d++) {
    if (h->size[d] < 1 || h->size[d] > 4096 || h->step < 0 || h->walls[d] < 0 || h->walls[d] > 1) {
      snprintf(err, len, "checkpoint '%s' is corrupt: impossible grid or step in the header", path);
      return -1;
    }
  }
  long long want = (long long) sizeof(lbChkHeader) + (long long) lbChkCount(h) * 8;
  if (file_bytes >= 0 && file_bytes != want) {
    snprintf(err, len, "checkpoint '%s' is corrupt: %lld bytes, the header implies %lld%s", path,
             file_bytes, want, file_bytes < want ? " (truncated)" : "");
    return -1;
  }
  return 0;
}

int lbChkReadFile(const char *path, lbChkHeader *h, double **data, char *err, size_t len) {
  *data = NULL;
  if (fioCheckRegular(path, "checkpoint", err, len)) return -1;
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    snprintf(err, len, "cannot open checkpoint '%s': %s", path, strerror(errno));
    return -1;
  }
  fseek(fp, 0, SEEK_END);
  long long bytes = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  int rc = -1;
  if (fread(h, sizeof(*h), 1, fp) != 1) {
    snprintf(err, len, "checkpoint '%s' is corrupt: shorter than its header", path);
  } else if (lbChkCheckHeader(h, bytes, path, err, len) == 0) {
    uint64_t n = lbChkCount(h), sum = lbChkHeaderSum(h);
    *data = (double *) malloc(n * sizeof(double));
    if (!*data) {
      snprintf(err, len, "no memory to read checkpoint '%s'", path);
    } else if (fread(*data, sizeof(double), n, fp) != n) {
      snprintf(err, len, "checkpoint '%s': read error", path);
    } else {
      for (uint64_t i = 0; i < n; i++) sum += lbChkTerm(i, (*data)[i]);
      if (sum != h->checksum) {
        snprintf(err, len, "checkpoint '%s' is corrupt: checksum %016llx, contents give %016llx",
                 path, (unsigned long long) h->checksum, (unsigned long long) sum);
      } else {
        rc = 0;
      }
    }
  }
  fclose(fp);
  if (rc) {
    free(*data);
    *data = NULL;
  }
  return rc;
}
