/* Shared benchmark helpers: see bench.h. */
#define _POSIX_C_SOURCE 200809L /* posix_memalign; the value nvcc's headers also set */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench.h"
#include "common/cli.h"
#include "common/timer.h"

#ifndef BENCH_CONFIG /* the make preset, passed in by benchmarks/build.mk */
#define BENCH_CONFIG "unknown"
#endif

const char *const benchImplName[2] = {"native", "targetDP"};
const char *const streamName[STREAM_NKERNEL] = {"Copy", "Mul", "Add", "Triad", "Dot",
                                                "Nstream", "Sum", "DotPlain", "Dot2"};
const int streamNArrays[STREAM_NKERNEL] = {2, 2, 3, 3, 2, 4, 1, 2, 2};
int streamNativeChoice[STREAM_NKERNEL];
int streamLanes[STREAM_NKERNEL];

/* ---------------------------------------------------------------------- */

benchOptions benchParse(int argc, char **argv, const char *bench, const char *const *known,
                        long default_size, const char *usage) {
  static const char *const common[] = {BENCH_COMMON_OPTIONS};
  const int ncommon = (int) (sizeof(common) / sizeof(common[0]));
  int nknown = 0;
  while (known && known[nknown]) nknown++;
  const char **all = (const char **) malloc((nknown + ncommon + 1) * sizeof(const char *));
  for (int i = 0; i < nknown; i++) all[i] = known[i];
  for (int i = 0; i < ncommon; i++) all[nknown + i] = common[i];
  all[nknown + ncommon] = NULL;
  if (cliCheck(argc, argv, all) != 0) {
    fputs(usage, stderr);
    exit(2);
  }
  free(all);
  if (cliFlag(argc, argv, "--help")) {
    fputs(usage, stdout);
    exit(0);
  }

  benchOptions o;
  o.bench = bench;
  /* int site indices, and room for the GPU's last grid stride past n */
  o.size = cliLong(argc, argv, "--size", default_size, 1, 1L << 30);
  /* in-place kernels double their values each call: 1000 stays finite */
  o.reps = (int) cliLong(argc, argv, "--reps", 20, 1, 1000);
  o.csv = cliString(argc, argv, "--csv", NULL);
  o.is_float = cliFlag(argc, argv, "--float");
  o.inject_error = cliFlag(argc, argv, "--inject-error");
  return o;
}

/* ---------------------------------------------------------------------- */
/* Native memory: what hand-written code would call, bypassing the layer. */

#ifdef __CUDACC__
static void cuda_check(cudaError_t err, const char *what) {
  if (err != cudaSuccess) {
    fprintf(stderr, "benchmark: %s failed: %s\n", what, cudaGetErrorString(err));
    exit(1);
  }
}

void *nativeMalloc(size_t nbytes) {
  void *p = NULL;
  cuda_check(cudaMalloc(&p, nbytes), "cudaMalloc");
  return p;
}
void nativeFree(void *p) { cuda_check(cudaFree(p), "cudaFree"); }
void nativeZero(void *p, size_t nbytes) { cuda_check(cudaMemset(p, 0, nbytes), "cudaMemset"); }
void nativeSynchronize(void) {
  cuda_check(cudaGetLastError(), "kernel launch");
  cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}
int nativeSMs(void) {
  static int nb = 0;
  if (nb == 0) {
    int dev = 0, sms = 0;
    cuda_check(cudaGetDevice(&dev), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev),
               "cudaDeviceGetAttribute");
    nb = sms;
  }
  return nb;
}
static void native_to_host(void *dst, const void *src, size_t nbytes) {
  cuda_check(cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
}
#else
void *nativeMalloc(size_t nbytes) {
  void *p = NULL;
  if (posix_memalign(&p, 64, nbytes) != 0) {
    fprintf(stderr, "benchmark: out of memory allocating %zu bytes\n", nbytes);
    exit(1);
  }
  return p;
}
void nativeFree(void *p) { free(p); }
void nativeZero(void *p, size_t nbytes) { memset(p, 0, nbytes); }
void nativeSynchronize(void) {}
int nativeSMs(void) { return 0; }
static void native_to_host(void *dst, const void *src, size_t nbytes) {
  memcpy(dst, src, nbytes);
}
#endif

void benchToHost(int impl, void *dst, const void *src, size_t nbytes) {
  if (impl == BENCH_TDP) copyFromTarget(dst, src, nbytes);
  else native_to_host(dst, src, nbytes);
}

void benchCorrupt(void *t_arr, size_t index, int is_float) {
  size_t esize = is_float ? sizeof(float) : sizeof(double);
  char *p = (char *) t_arr + index * esize;
  double d;
  float f;
  if (is_float) {
    copyFromTarget(&f, p, esize);
    f = 3.0f * f + 1.0f;
    copyToTarget(p, &f, esize);
  } else {
    copyFromTarget(&d, p, esize);
    d = 3.0 * d + 1.0;
    copyToTarget(p, &d, esize);
  }
}

/* ---------------------------------------------------------------------- */
/* Validation */

static long nwrong = 0;

int benchWrong(const char *what, long index, double got, double want) {
#ifdef _OPENMP
#pragma omp critical(benchWrong)
#endif
  {
    if (++nwrong <= 10 && index >= 0)
      fprintf(stderr, "VALIDATION FAILED: %s: element %ld is %.17g, expected %.17g\n", what,
              index, got, want);
    else if (nwrong <= 10)
      fprintf(stderr, "VALIDATION FAILED: %s is %.17g, expected %.17g\n", what, got, want);
  }
  return 1;
}

long benchErrors(void) { return nwrong; }

long benchCheckStream(const char *what, const void *host, long n, int is_float, double coef,
                      double rtol) {
  long bad = 0;
  BENCH_HOST_PARALLEL_FOR(reduction(+:bad))
  for (long i = 0; i < n; i++) {
    double got = is_float ? (double) ((const float *) host)[i] : ((const double *) host)[i];
    double want = coef * streamWeight(i);
    if (!benchClose(got, want, rtol)) bad += benchWrong(what, i, got, want);
  }
  return bad;
}

/* ---------------------------------------------------------------------- */
/* Results */

benchStats benchSummarise(const benchTiming *k, int reps) {
  benchStats s;
  timerStats(k->t + 1, reps, &s.best_s, &s.median_s);
  s.best_gbs = k->bytes / s.best_s * 1e-9;
  s.median_gbs = k->bytes / s.median_s * 1e-9;
  s.ratio = NAN;
  if (k->t_ref) {
    /* bench_stream swaps arrays and order every repetition: the ratio of
     * each consecutive pair's summed times cancels both effects. */
    double *r = (double *) malloc(reps * sizeof(double)), unused;
    int np = 0;
    for (int i = 1; i + 1 <= reps; i += 2)
      r[np++] = (k->t_ref[i] + k->t_ref[i + 1]) / (k->t[i] + k->t[i + 1]);
    if (np == 0) r[np++] = k->t_ref[1] / k->t[1];
    timerStats(r, np, &unused, &s.ratio);
    free(r);
  }
  return s;
}

int benchHostThreads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* The GPU's name, or the CPU's model name, without commas (a CSV field). */
const char *benchDeviceName(void) {
  static char name[256] = "";
  if (name[0]) return name;
  snprintf(name, sizeof(name), "unknown");
#ifdef __CUDACC__
  int dev = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
    snprintf(name, sizeof(name), "%s", prop.name);
#else
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof(line), f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) == 0 && colon) {
      snprintf(name, sizeof(name), "%s", colon + 2);
      name[strcspn(name, "\n")] = '\0';
      break;
    }
  }
  if (f) fclose(f);
#endif
  for (char *c = name; *c; c++)
    if (*c == ',' || *c == '"') *c = ' ';
  return name;
}

void benchPrintConfig(FILE *f, const benchOptions *o) {
  (void) o;
  fprintf(f, "# %s (preset %s)\n# device: %s", targetConfigString(), BENCH_CONFIG,
          benchDeviceName());
#ifndef __CUDACC__
  fprintf(f, ", %d threads", benchHostThreads());
#endif
  fprintf(f, "\n");
}

void benchCsvRow(const benchOptions *o, const char *precision, const benchTiming *k,
                 const benchStats *s, double pct_triad) {
  if (!o->csv) return;
  FILE *f = fopen(o->csv, "a");
  if (!f) {
    fprintf(stderr, "%s: cannot append to %s\n", o->bench, o->csv);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  if (ftell(f) == 0)
    fprintf(f, "bench,backend,config,device,layout,vvl,sal,tpb,threads,precision,size,reps,"
               "kernel,impl,bytes,best_s,median_s,best_GBs,median_GBs,ratio,pct_triad,commit,"
               "native_variant\n");
#ifdef __CUDACC__
  const char *threads = "";
#else
  char threads[16];
  snprintf(threads, sizeof(threads), "%d", benchHostThreads());
#endif
  char ratio[32] = "";
  if (!isnan(s->ratio)) snprintf(ratio, sizeof(ratio), "%.4f", s->ratio);
  const char *commit = getenv("BENCH_COMMIT");
  fprintf(f, "%s,%s,%s,%s,%s,%d,%d,%d,%s,%s,%ld,%d,%s,%s,%.0f,%.6e,%.6e,%.2f,%.2f,%s,%.1f,%s,%s\n",
          o->bench, TARGETDP_BACKEND, BENCH_CONFIG, benchDeviceName(), TARGETDP_LAYOUT, VVL,
          SAL, TARGET_TPB, threads, precision, k->size, o->reps, k->kernel, benchImplName[k->impl],
          k->bytes, s->best_s, s->median_s, s->best_gbs, s->median_gbs, ratio, pct_triad,
          commit ? commit : "", k->variant ? k->variant : "");
  fclose(f);
}
