#!/usr/bin/env bash
# call58: the whole corpus on all 16 host threads at --mb 512 (outside the L3's 300 MiB), with
# bench_corpus's thread wake-up (844728c, reverted since), gcc 13 and clang 14, 6 repetitions, OMP_WAIT_POLICY
# unset, interleaved rounds; every implementation validated by bench_corpus. clang carried as
# .deps/clang less libicu72, which the device does not need.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; CORPUS_CLANG_DEBS=.deps/clangs corpus_clang || exit 1
for c in gcc clang; do
  ( make -s -j8 BUILD=build/c58-$c CONFIG=$c-openmp CC=$c corpus-build > $OUT/build-$c.log 2>&1 || echo "build $c FAILED" ) &
done; wait
E="OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in 1 2 3 4 5; do for c in gcc clang; do
  [ $(( $(date +%s) - t0 )) -gt 380 ] && break 3
  env $E timeout 200 build/c58-$c/bench_corpus --shape all --mb 512 --reps 6 --csv $OUT/b-$c.csv > /dev/null 2>$OUT/err.log || { echo "$c $r FAILED"; head -5 $OUT/err.log; }
  echo "$c round $r done at $(( $(date +%s) - t0 )) s"
done; done; echo "runs: $(( $(date +%s) - t0 )) s"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os
O=os.environ['OUT']
print('16 threads, --mb 512, port / best native (ratio_native) and port / serial: median over rounds [min-max]')
for c in ('gcc','clang'):
    p=O+'/b-%s.csv'%c
    if not os.path.exists(p): continue
    rows=list(csv.DictReader(open(p)))
    meds=[]
    for sh in ('jacobi2d','heat3d','stencil27','d2q9','d3q19','masked','gather','su3mv','norm'):
        x=[float(r['ratio_native']) for r in rows if r['shape']==sh and r['impl']=='port']
        y=[float(r['ratio_serial']) for r in rows if r['shape']==sh and r['impl']=='port']
        if x:
            meds.append(statistics.median(x))
            print('%-5s %-9s %.3f [%.3f-%.3f] serial %.2f n=%d' % (c, sh, statistics.median(x), min(x), max(x), statistics.median(y), len(x)))
    if meds: print('%-5s worst %.3f median %.3f' % (c, min(meds), statistics.median(meds)))
PY
cat $OUT/summary.txt; rm -f $OUT/err.log
tar czf $OUT/c58.tgz -C $OUT $(cd $OUT && ls *.csv summary.txt) && rm -f $OUT/*.csv
