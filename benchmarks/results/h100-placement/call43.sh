#!/usr/bin/env bash
# call43: is clang's heat3d gap the layer's field alignment? The layer puts every large field on a
# 2 MiB boundary, so two fields are congruent mod 4 KiB (4K aliasing of a store and the later loads
# of the other field; same L1/L2 sets). Builds: clang 14 and gcc 13, each as main (2 MiB) and with
# -DTDP_BISECT_ALIGN_=64 (posix_memalign 64, as the natives' nativeMalloc). heat3d carries the
# bisection variants native -> port (v-*, port-nf: the port on native fields, v-tf: the native on
# target fields). One thread, CPU time, interleaved rounds; every impl validated by bench_corpus.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
clang --version | head -1; gcc --version | head -1; lscpu | grep -E "Model name|L1d|L2|L3"
declare -A cc=([c]="clang" [c64]="clang -DTDP_BISECT_ALIGN_=64" [g]="gcc" [g64]="gcc -DTDP_BISECT_ALIGN_=64")
declare -A cf=([c]=clang-openmp [c64]=clang-openmp [g]=gcc-openmp [g64]=gcc-openmp)
for b in c c64 g g64; do
  make -s -j4 BUILD=build/b43-$b CONFIG=${cf[$b]} CC="${cc[$b]}" corpus-build > $OUT/build-$b.log 2>&1 || echo "build $b FAILED" &
done; wait
E="OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
for b in c c64; do env $E HEAT_ADDR=1 build/b43-$b/bench_corpus --shape heat3d --mb 64 --reps 1 2>&1 | grep -E "addr (port|omp|serial) " | sed "s/^/$b /"; done
t0=$(date +%s)
for r in 1 2 3 4 5; do for b in c c64 g g64; do
  env $E timeout 120 build/b43-$b/bench_corpus --shape heat3d --mb 64 --reps 20 --cpu-time --csv $OUT/h64-$b.csv > $OUT/h64-$b-$r.log 2>&1 || echo "h64 $b $r FAILED"
done; done; echo "heat3d mb64: $(( $(date +%s) - t0 )) s"
for r in 1 2; do for b in c c64 g g64; do
  env $E timeout 120 build/b43-$b/bench_corpus --shape heat3d --mb 512 --reps 5 --cpu-time --csv $OUT/h512-$b.csv > $OUT/h512-$b-$r.log 2>&1 || echo "h512 $b $r FAILED"
done; done; echo "heat3d mb512: $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do for b in c c64 g g64; do
  [ $(( $(date +%s) - t0 )) -gt 420 ] && break 2
  env $E timeout 120 build/b43-$b/bench_corpus --shape all --mb 64 --reps 5 --cpu-time --csv $OUT/all-$b.csv > $OUT/all-$b-$r.log 2>&1 || echo "all $b $r FAILED"
done; done; echo "all: $(( $(date +%s) - t0 )) s"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os, collections
O=os.environ['OUT']
for f in ('h64','h512','all'):
    d=collections.defaultdict(list)
    for b in ('c','c64','g','g64'):
        p=O+'/'+f+'-'+b+'.csv'
        if not os.path.exists(p): continue
        for r in csv.DictReader(open(p)): d[(r['shape'], r['impl'], b)].append(float(r['median_s']))
    print('==', f)
    for k in sorted(d): print('%-10s %-14s %-4s median_s %.4e  rounds %s' % (k + (statistics.median(d[k]), ' '.join('%.3e'%x for x in d[k]))))
PY
grep -E '^heat3d +(port|omp|serial|v-|port-nf) ' $OUT/summary.txt | cut -c1-60
