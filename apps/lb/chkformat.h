/* Checkpoint file format (docs/lb.md): a 128-byte header, then the
 * post-collision distributions of the whole grid in a fixed order that does
 * not depend on layout, VVL, backend or decomposition: for x, for y, for z,
 * the 19 doubles f_0..f_18 (little-endian IEEE 754, as every machine we run
 * on). The checksum covers the header and every double, each with its
 * position, so a flipped bit, a truncated file or two swapped values are
 * all caught. This part is plain C without MPI, for the compare tool. */
#ifndef LB_CHKFORMAT_H
#define LB_CHKFORMAT_H

#include <stddef.h>
#include <stdint.h>

#define LB_CHK_MAGIC "LBD3Q19C"
#define LB_CHK_VERSION 3 /* 2: the walls are in the header; 3: rho and the case too */
#define LB_CHK_VERSION_OLDEST 2 /* read, with rho and case unchecked (not recorded) */
#define LB_CHK_ENDIAN 0x01020304u

typedef struct {
  char magic[8];      /* LB_CHK_MAGIC, not NUL-terminated */
  uint32_t version;   /* LB_CHK_VERSION */
  uint32_t endian;    /* LB_CHK_ENDIAN as the writer stored it */
  int32_t nvel;       /* 19 */
  int32_t size[3];    /* global grid */
  int64_t step;       /* steps done */
  double tau;         /* the physics and the verdict of the run that wrote */
  double force[3];    /* it: a restart must use the same (size, tau, force, */
  uint64_t checksum;  /* walls, rho, case); lbChkHeaderSum(header) + sum of lbChkTerm over the data */
  int32_t walls[3];   /* 1: bounce-back walls at both ends of that axis */
  int32_t pad;        /* zero */
  double rho;         /* version 3: the initial density (the Poiseuille verdict's rho) */
  int32_t lbcase;     /* version 3: LB_CASE_* of params.h (the metric and the verdict) */
  int32_t pad2;       /* zero */
  char reserved[16];  /* zero */
} lbChkHeader;

/* The layout above has no padding on any ABI we target; refuse to build
 * if that ever changes (C99-compatible static assertion). */
typedef char lbChkHeaderIs128Bytes[(sizeof(lbChkHeader) == 128) ? 1 : -1];

/* Term of the checksum for the double at position i of the data: terms are
 * added modulo 2^64, so ranks sum their own blocks in any order. */
uint64_t lbChkTerm(uint64_t i, double v);
/* Header's share of the checksum (its checksum field counts as zero). */
uint64_t lbChkHeaderSum(const lbChkHeader *h);
/* Doubles in the data part. */
uint64_t lbChkCount(const lbChkHeader *h);

/* Header sanity (magic, version 2 or 3, byte order, sizes) and, if
 * file_bytes >= 0, that the file is exactly as long as the header says.
 * 0 or -1 + err. (Version 2 has rho and lbcase zero: not recorded.) */
int lbChkCheckHeader(const lbChkHeader *h, long long file_bytes, const char *path, char *err,
                     size_t errlen);

/* Read and verify a whole checkpoint (serial). *data: lbChkCount doubles,
 * malloc'd. Returns 0, or -1 with the reason in err. */
int lbChkReadFile(const char *path, lbChkHeader *h, double **data, char *err, size_t errlen);

#endif
