#!/usr/bin/env bash
# call44: call43 again with per-repetition ratios against "omp" (the v-* variants are proto now, on
# native fields except -tf; port-nf: the port on native fields). Builds clang 14 (c), clang 14 with
# the layer's allocations at 64-byte alignment (c64), gcc 13 (g). One thread, CPU time.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
declare -A cc=([c]="clang" [c64]="clang -DTDP_BISECT_ALIGN_=64" [g]="gcc")
declare -A cf=([c]=clang-openmp [c64]=clang-openmp [g]=gcc-openmp)
for b in c c64 g; do
  make -s -j5 BUILD=build/b43-$b CONFIG=${cf[$b]} CC="${cc[$b]}" corpus-build > $OUT/build-$b.log 2>&1 || echo "build $b FAILED" &
done; wait
E="OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in 1 2 3 4 5 6 7; do for b in c c64 g; do
  env $E timeout 120 build/b43-$b/bench_corpus --shape heat3d --mb 64 --reps 30 --cpu-time --csv $OUT/h64-$b.csv > $OUT/h64-$b-$r.log 2>&1 || echo "h64 $b $r FAILED"
done; done; echo "heat3d mb64: $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do for b in c c64 g; do
  [ $(( $(date +%s) - t0 )) -gt 450 ] && break 2
  env $E timeout 120 build/b43-$b/bench_corpus --shape heat3d --mb 512 --reps 6 --cpu-time --csv $OUT/h512-$b.csv > $OUT/h512-$b-$r.log 2>&1 || echo "h512 $b $r FAILED"
done; done; echo "heat3d mb512: $(( $(date +%s) - t0 )) s"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os, collections
O=os.environ['OUT']
for f in ('h64','h512'):
    print('==', f, 'impl / omp (median of per-rep ratios), median over rounds [min-max]; x serial')
    for b in ('c','c64','g'):
        p=O+'/'+f+'-'+b+'.csv'
        if not os.path.exists(p): continue
        d=collections.defaultdict(list); e=collections.defaultdict(list)
        for r in csv.DictReader(open(p)):
            d[r['impl']].append(float(r['ratio_native'])); e[r['impl']].append(float(r['ratio_serial']))
        for k in d:
            v=d[k]; print('%-4s %-14s %.3f [%.3f-%.3f]  x serial %.3f  n=%d' % (b, k, statistics.median(v), min(v), max(v), statistics.median(e[k]), len(v)))
PY
cat $OUT/summary.txt
tar czf $OUT/call44.tgz -C $OUT $(cd $OUT && ls *.csv *.log summary.txt) && rm -f $OUT/*.csv $OUT/*.log
