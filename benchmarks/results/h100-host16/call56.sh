#!/usr/bin/env bash
# call56: is call55's 16-thread gap at --mb 64 the fields' placement? The layer puts a field of
# 8 MiB or more on a 2 MiB boundary; align.patch (applied here) lets -DTDP_BISECT_ALIGN_=64 place
# every field at posix_memalign(64), as the natives' nativeMalloc does. main ("l2m") against that
# ("a64"), gcc 13 and clang 14, 16 threads, --mb 64, 20 repetitions, OMP_WAIT_POLICY unset, 4
# interleaved rounds; every implementation validated by bench_corpus.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
patch -p1 -s < benchmarks/results/h100-host16/align.patch || { echo "patch failed"; exit 1; }
for c in gcc clang; do
  ( make -s -j4 BUILD=build/c56-$c-l2m CONFIG=$c-openmp CC=$c corpus-build > $OUT/build-$c-l2m.log 2>&1 || echo "build $c l2m FAILED" ) &
  ( make -s -j4 BUILD=build/c56-$c-a64 CONFIG=$c-openmp CC="$c -DTDP_BISECT_ALIGN_=64" corpus-build > $OUT/build-$c-a64.log 2>&1 || echo "build $c a64 FAILED" ) &
done; wait
E="OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in 1 2 3 4 5; do for c in gcc clang; do for v in l2m a64; do
  [ $(( $(date +%s) - t0 )) -gt 300 ] && break 4
  env $E timeout 120 build/c56-$c-$v/bench_corpus --shape masked,gather,su3mv,norm,jacobi2d --mb 64 --reps 20 --csv $OUT/p-$c-$v.csv > /dev/null 2>$OUT/err.log || { echo "$c $v $r FAILED"; head -5 $OUT/err.log; }
done; done; done; echo "runs: $(( $(date +%s) - t0 )) s, last round $r"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os
from collections import defaultdict
O=os.environ['OUT']
print('16 threads, --mb 64, port / best native: per round, median of per-rep ratios and best/best; median over rounds [min-max]')
for sh in ('masked','gather','su3mv','norm','jacobi2d'):
    for c in ('gcc','clang'):
      for v in ('l2m','a64'):
        p=O+'/p-%s-%s.csv'%(c,v)
        if not os.path.exists(p): continue
        rows=[r for r in csv.DictReader(open(p)) if r['shape']==sh]
        med=[float(r['ratio_native']) for r in rows if r['impl']=='port']
        ports=[float(r['best_s']) for r in rows if r['impl']=='port']
        nat=defaultdict(list)
        for r in rows:
            if r['kind']=='native': nat[r['impl']].append(float(r['best_s']))
        nb=[min(x) for x in zip(*nat.values())]
        bb=[n/p for p,n in zip(ports,nb)]
        if med: print('%-8s %-5s %-4s med %.3f [%.3f-%.3f]  best %.3f [%.3f-%.3f] n=%d' % (sh, c, v, statistics.median(med), min(med), max(med), statistics.median(bb), min(bb), max(bb), len(med)))
PY
cat $OUT/summary.txt; rm -f $OUT/err.log
tar czf $OUT/c56.tgz -C $OUT $(cd $OUT && ls *.csv summary.txt) && rm -f $OUT/*.csv
