#!/usr/bin/env bash
# call50: the width of clang's edge rows (TDP_TLP_3D_EDGE; heat3d, stencil27 ports). main: "omp simd
# simdlen(8)" (VF 8, IC 4 by -Rpass); against "clang loop vectorize(assume_safety)
# vectorize_width(W) interleave_count(I)" (-DTDP_EDGE_VW_=W -DTDP_EDGE_IC_=I): 4x2, 8x1, 4x4,
# and clang's own width (-DTDP_EDGE_SIMDLEN_=0). gcc 13 beside for reference. One thread, CPU time,
# --mb 16, 64, 256, interleaved rounds; every implementation validated by bench_corpus.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
clang --version | head -1; gcc --version | head -1
declare -A F=([s8]="" [w4i2]="-DTDP_EDGE_VW_=4 -DTDP_EDGE_IC_=2" [w8i1]="-DTDP_EDGE_VW_=8 -DTDP_EDGE_IC_=1"
              [w4i4]="-DTDP_EDGE_VW_=4 -DTDP_EDGE_IC_=4" [own]="-DTDP_EDGE_SIMDLEN_=0")
V="s8 w4i2 w8i1 w4i4 own"
for v in $V; do
  ( make -s -j3 BUILD=build/c50-$v CONFIG=clang-openmp CC="clang ${F[$v]}" corpus-build > $OUT/build-$v.log 2>&1 || echo "build $v FAILED" ) &
done
( make -s -j3 BUILD=build/c50-gcc CONFIG=gcc-openmp CC=gcc corpus-build > $OUT/build-gcc.log 2>&1 || echo "build gcc FAILED" ) &
wait
E="OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in 1 2 3 4 5 6 7; do for mb in 16 64 256; do for v in $V gcc; do
  [ $(( $(date +%s) - t0 )) -gt 430 ] && break 4
  reps=8; [ $mb = 256 ] && reps=4
  env $E timeout 120 build/c50-$v/bench_corpus --shape heat3d,stencil27 --mb $mb --reps $reps --cpu-time --csv $OUT/w-$v-$mb.csv > /dev/null 2>$OUT/err.log || { echo "$v $mb $r FAILED"; head -5 $OUT/err.log; }
done; done; done; echo "runs: $(( $(date +%s) - t0 )) s, last round $r"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os
O=os.environ['OUT']
print('port / best native (ratio_native): median over rounds [min-max] n')
for sh in ('heat3d','stencil27'):
  for mb in ('16','64','256'):
    for v in ('s8','w4i2','w8i1','w4i4','own','gcc'):
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
tar czf $OUT/c50.tgz -C $OUT $(cd $OUT && ls *.csv summary.txt) && rm -f $OUT/*.csv
