#!/usr/bin/env bash
# call55: the 1-D shapes on all 16 host threads, more repetitions than the corpus run (20 a run,
# against 4), at --mb 64 and 512, OMP_WAIT_POLICY unset (libgomp / libomp defaults) and passive,
# gcc 13 and clang 14, 4 interleaved rounds; every implementation validated by bench_corpus.
# Is the corpus run's 16-thread gap of masked and gather (0.63-0.85 of the native, both
# compilers, at 861d2dd) there in every round and size?
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
clang --version | head -1; gcc --version | head -1
( make -s -j8 BUILD=build/c55-clang CONFIG=clang-openmp CC=clang corpus-build > $OUT/build-clang.log 2>&1 || echo "build clang FAILED" ) &
( make -s -j8 BUILD=build/c55-gcc CONFIG=gcc-openmp CC=gcc corpus-build > $OUT/build-gcc.log 2>&1 || echo "build gcc FAILED" ) &
wait
t0=$(date +%s)
for r in 1 2 3 4; do for mb in 64 512; do for c in gcc clang; do for pol in default passive; do
  [ $(( $(date +%s) - t0 )) -gt 400 ] && break 5
  E="OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
  [ $pol = passive ] && E="$E OMP_WAIT_POLICY=passive"
  env $E timeout 120 build/c55-$c/bench_corpus --shape masked,gather,su3mv,norm,jacobi2d --mb $mb --reps 20 --csv $OUT/h-$c-$pol-$mb.csv > /dev/null 2>$OUT/err.log || { echo "$c $pol $mb $r FAILED"; head -5 $OUT/err.log; }
done; done; done; done; echo "runs: $(( $(date +%s) - t0 )) s, last round $r"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os
from collections import defaultdict
O=os.environ['OUT']
print('16 threads, port / best native: per round, median of per-rep ratios (ratio_native) and best/best; median over rounds [min-max]')
for sh in ('masked','gather','su3mv','norm','jacobi2d'):
  for mb in ('64','512'):
    for c in ('gcc','clang'):
      for pol in ('default','passive'):
        p=O+'/h-%s-%s-%s.csv'%(c,pol,mb)
        if not os.path.exists(p): continue
        rows=list(csv.DictReader(open(p)))
        rows=[r for r in rows if r['shape']==sh]
        med=[float(r['ratio_native']) for r in rows if r['impl']=='port']
        ports=[float(r['best_s']) for r in rows if r['impl']=='port']
        nat=defaultdict(list)
        for r in rows:
            if r['kind']=='native': nat[r['impl']].append(float(r['best_s']))
        nb=[min(x) for x in zip(*nat.values())]
        bb=[n/p for p,n in zip(ports,nb)]
        if med: print('%-8s %3s %-5s %-7s med %.3f [%.3f-%.3f]  best %.3f [%.3f-%.3f] n=%d' % (sh, mb, c, pol, statistics.median(med), min(med), max(med), statistics.median(bb), min(bb), max(bb), len(med)))
PY
cat $OUT/summary.txt; rm -f $OUT/err.log
tar czf $OUT/c55.tgz -C $OUT $(cd $OUT && ls *.csv summary.txt) && rm -f $OUT/*.csv
