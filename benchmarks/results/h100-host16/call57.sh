#!/usr/bin/env bash
# call57: bench_corpus wakes the host threads before every timed step (corpus.c wake_threads,
# untimed); CORPUS_NO_WAKE=1 leaves that out, as before. The same binaries both ways, the whole
# corpus, gcc 13 and clang 14, 16 threads, --mb 64, 10 repetitions, OMP_WAIT_POLICY unset, 5
# interleaved rounds; every implementation validated by bench_corpus. (The wake-up was in
# corpus.c at 844728c only; reverted in 1f4a986, README.md here says why.)
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
for c in gcc clang; do
  ( make -s -j8 BUILD=build/c57-$c CONFIG=$c-openmp CC=$c corpus-build > $OUT/build-$c.log 2>&1 || echo "build $c FAILED" ) &
done; wait
E="OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in 1 2 3 4 5; do for c in gcc clang; do for w in 0 1; do
  [ $(( $(date +%s) - t0 )) -gt 330 ] && break 4
  env $E CORPUS_NO_WAKE=$w timeout 150 build/c57-$c/bench_corpus --shape all --mb 64 --reps 10 --csv $OUT/w-$c-nowake$w.csv > /dev/null 2>$OUT/err.log || { echo "$c nowake$w $r FAILED"; head -5 $OUT/err.log; }
done; done; done; echo "runs: $(( $(date +%s) - t0 )) s, last round $r"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os
O=os.environ['OUT']
print('16 threads, --mb 64, port / best native (ratio_native): median over rounds [min-max]; nowake1 = as before')
for c in ('gcc','clang'):
  for w in ('1','0'):
    p=O+'/w-%s-nowake%s.csv'%(c,w)
    if not os.path.exists(p): continue
    rows=list(csv.DictReader(open(p)))
    meds=[]
    for sh in ('jacobi2d','heat3d','stencil27','d2q9','d3q19','masked','gather','su3mv','norm'):
        x=[float(r['ratio_native']) for r in rows if r['shape']==sh and r['impl']=='port']
        if x:
            meds.append(statistics.median(x))
            print('%-5s nowake%s %-9s %.3f [%.3f-%.3f] n=%d' % (c, w, sh, statistics.median(x), min(x), max(x), len(x)))
    if meds: print('%-5s nowake%s worst %.3f median %.3f' % (c, w, min(meds), statistics.median(meds)))
PY
cat $OUT/summary.txt; rm -f $OUT/err.log
tar czf $OUT/c57.tgz -C $OUT $(cd $OUT && ls *.csv summary.txt) && rm -f $OUT/*.csv
