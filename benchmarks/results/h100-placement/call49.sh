#!/usr/bin/env bash
# call49: heat3d at --mb 256 (clang 14, gcc 13; main + bisect44.patch's variants), with and without
# TARGETDP_HUGEPAGE=1 (the layer's fields on transparent huge pages: each 2 MiB physically
# contiguous, so their L2 / L3 sets follow the virtual addresses). Does the same kernel on two
# pairs of fields (port, port-edge-box) still differ, and does the port reach its native?
# One thread, CPU time, interleaved rounds; every implementation validated by bench_corpus.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
patch -p1 -s < benchmarks/results/h100-placement/bisect44.patch || { echo "patch failed"; exit 1; }
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag
for c in clang gcc; do
  ( make -s -j8 BUILD=build/c49-$c CONFIG=$c-openmp CC=$c corpus-build > $OUT/build-$c.log 2>&1 || echo "build $c FAILED" ) &
done; wait
E="OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in 1 2 3 4 5; do for c in clang gcc; do for hp in 0 1; do
  [ $(( $(date +%s) - t0 )) -gt 400 ] && break 3
  env $E TARGETDP_HUGEPAGE=$hp timeout 120 build/c49-$c/bench_corpus --shape heat3d --mb 256 --reps 6 --cpu-time --csv $OUT/h256-$c-hp$hp.csv > /dev/null 2>$OUT/err.log || { echo "$c hp$hp $r FAILED"; head -5 $OUT/err.log; }
  [ $r = 1 ] && grep AnonHugePages /proc/meminfo
done; done; done; echo "runs: $(( $(date +%s) - t0 )) s, round $r"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os
O=os.environ['OUT']
print('heat3d --mb 256, impl / omp: median over rounds [min-max]')
for c in ('clang','gcc'):
    for hp in ('0','1'):
        p=O+'/h256-%s-hp%s.csv'%(c,hp)
        if not os.path.exists(p): continue
        rows=list(csv.DictReader(open(p)))
        for impl in ('serial','port','port-edge-box','port-nf','v-tf','v-nr','v-nrg8','v-nrg8-tf','omp'):
            v=[float(r['ratio_native']) for r in rows if r['impl']==impl]
            if v: print('%-5s hp%s %-14s %.3f [%.3f-%.3f] n=%d' % (c, hp, impl, statistics.median(v), min(v), max(v), len(v)))
PY
cat $OUT/summary.txt; rm -f $OUT/err.log $OUT/build-*.log
