#!/usr/bin/env bash
# call51: call50 again with more rounds and the candidates only. clang 14's edge rows
# (TDP_TLP_3D_EDGE; heat3d, stencil27 ports): main "omp simd simdlen(8)" (s8) against
# "clang loop vectorize(assume_safety) [vectorize_width(W)] interleave_count(I)":
# w4i4 (-DTDP_EDGE_VW_=4 -DTDP_EDGE_IC_=4), i4 (clang's own width, -DTDP_EDGE_IC_=4), w8i2.
# One thread, CPU time, --mb 16, 64, 256, interleaved rounds; every implementation validated.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
clang --version | head -1
declare -A F=([s8]="" [w4i4]="-DTDP_EDGE_VW_=4 -DTDP_EDGE_IC_=4" [i4]="-DTDP_EDGE_IC_=4"
              [w8i2]="-DTDP_EDGE_VW_=8 -DTDP_EDGE_IC_=2")
V="s8 w4i4 i4 w8i2"
for v in $V; do
  ( make -s -j4 BUILD=build/c51-$v CONFIG=clang-openmp CC="clang ${F[$v]}" corpus-build > $OUT/build-$v.log 2>&1 || echo "build $v FAILED" ) &
done; wait
for v in $V; do echo "$v: $(clang ${F[$v]} -std=c99 -O3 -march=native -fopenmp -I. -ItargetDP -DTARGETDP_SOA -DVVL=8 -DSAL=8 -DTARGET_TPB=128 -DTDP_NO_LEGACY_NAMES -c benchmarks/corpus/heat3d.c -o /dev/null -Rpass=loop-vectorize 2>&1 | grep -E 'heat3d.c:(77|97|109):' | sed 's/.*heat3d.c://; s/ \[.*//' | sort | uniq -c | tr '\n' ';')"; done
E="OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in 1 2 3 4 5 6 7 8 9; do for mb in 16 64 256; do for v in $V; do
  [ $(( $(date +%s) - t0 )) -gt 440 ] && break 4
  reps=8; [ $mb = 256 ] && reps=4
  env $E timeout 120 build/c51-$v/bench_corpus --shape heat3d,stencil27 --mb $mb --reps $reps --cpu-time --csv $OUT/w-$v-$mb.csv > /dev/null 2>$OUT/err.log || { echo "$v $mb $r FAILED"; head -5 $OUT/err.log; }
done; done; done; echo "runs: $(( $(date +%s) - t0 )) s, last round $r"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os
O=os.environ['OUT']
print('port / best native (ratio_native): median over rounds [min-max] n')
for sh in ('heat3d','stencil27'):
  for mb in ('16','64','256'):
    for v in ('s8','w4i4','i4','w8i2'):
        p=O+'/w-%s-%s.csv'%(v,mb)
        if not os.path.exists(p): continue
        rows=[r for r in csv.DictReader(open(p)) if r['shape']==sh]
        out=[]
        for impl in ('port','port-edge-box','serial'):
            x=[float(r['ratio_native']) for r in rows if r['impl']==impl]
            if x: out.append('%s %.3f [%.3f-%.3f] n=%d' % (impl, statistics.median(x), min(x), max(x), len(x)))
        print('%-9s %3s %-5s %s' % (sh, mb, v, ' | '.join(out)))
PY
cat $OUT/summary.txt; rm -f $OUT/err.log
tar czf $OUT/c51.tgz -C $OUT $(cd $OUT && ls *.csv summary.txt build-*.log) && rm -f $OUT/*.csv $OUT/build-*.log
