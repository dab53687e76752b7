#!/usr/bin/env bash
# call54: a probe. Under clang, the 1-D TDP_TLP as one "clang loop vectorize(assume_safety)" loop
# over the sites of 2048-site chunks (-DTDP_TLP_SITES_, the knob of tlpsites.patch, applied to 6edd2f6 for this call only; TDP_ILP one
# lane, as the box rows' sites form), against main's VVL strides with an 8-wide ILP loop. masked's
# port pays 16 run-time alias checks per 8-site stride under main (MergedLoadStoreMotion drops the
# access group of its merged store); per chunk in the sites form. Does su3mv still halve there?
# clang 14, one thread, CPU time, --mb 64, interleaved rounds; every implementation validated.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
clang --version | head -1
declare -A F=([base]="" [sites]="-DTDP_TLP_SITES_")
V="base sites"
for v in $V; do
  ( make -s -j8 BUILD=build/c54-$v CONFIG=clang-openmp CC="clang ${F[$v]}" corpus-build > $OUT/build-$v.log 2>&1 || echo "build $v FAILED" ) &
done; wait
E="OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in $(seq 1 9); do for mb in 16 64; do for v in $V; do
  [ $(( $(date +%s) - t0 )) -gt 200 ] && break 4
  env $E timeout 120 build/c54-$v/bench_corpus --shape su3mv,masked,gather,norm --mb $mb --reps 6 --cpu-time --csv $OUT/t-$v-$mb.csv > /dev/null 2>$OUT/err.log || { echo "$v $mb $r FAILED"; head -5 $OUT/err.log; }
done; done; done; echo "runs: $(( $(date +%s) - t0 )) s, last round $r"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os
O=os.environ['OUT']
print('port / best native and port / serial: median over rounds [min-max] n')
for sh in ('su3mv','masked','gather','norm'):
  for mb in ('16','64'):
    for v in ('base','sites'):
        p=O+'/t-%s-%s.csv'%(v,mb)
        if not os.path.exists(p): continue
        rows=[r for r in csv.DictReader(open(p)) if r['shape']==sh and r['impl']=='port']
        n=[float(r['ratio_native']) for r in rows]; s=[float(r['ratio_serial']) for r in rows]
        if n: print('%-7s %3s %-6s native %.3f [%.3f-%.3f] | serial %.3f [%.3f-%.3f] n=%d' % (sh, mb, v, statistics.median(n), min(n), max(n), statistics.median(s), min(s), max(s), len(n)))
PY
cat $OUT/summary.txt; rm -f $OUT/err.log
tar czf $OUT/c54.tgz -C $OUT $(cd $OUT && ls *.csv summary.txt) && rm -f $OUT/*.csv
