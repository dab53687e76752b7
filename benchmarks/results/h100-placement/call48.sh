#!/usr/bin/env bash
# call48: the fields' placement at other sizes: k1 (-DTDP_FIELD_COLOURS_=1: every field of 64 KiB
# or more congruent; main's placement where the fields are 8 MiB or more, so not at --mb 16)
# against k8 (4a341a1's default), clang 14 and gcc 13, one thread, CPU time, the
# shapes it moved (heat3d, stencil27, jacobi2d, masked) and d3q19, --mb 16 (in L2 + L3) and
# --mb 256 (most of the 300 MiB L3), interleaved rounds; bench_corpus validates every row.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
declare -A fl=([k1]="-DTDP_FIELD_COLOURS_=1" [k8]="")
B=()
for v in k1 k8; do for c in clang gcc; do
  B+=($v-$c)
  ( make -s -j4 BUILD=build/c48-$v-$c CONFIG=$c-openmp CC="$c ${fl[$v]}" corpus-build > $OUT/build-$v-$c.log 2>&1 || echo "build $v $c FAILED" ) &
done; done; wait
E="OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
S=heat3d,stencil27,jacobi2d,masked,d3q19
t0=$(date +%s)
for mb in 16 256; do for r in 1 2 3 4 5; do for b in "${B[@]}"; do
  [ $(( $(date +%s) - t0 )) -gt 480 ] && break 3
  env $E timeout 120 build/c48-$b/bench_corpus --shape $S --mb $mb --reps 10 --cpu-time --csv $OUT/m$mb-$b.csv > /dev/null 2>$OUT/err-$mb-$b-$r.log || { echo "m$mb $b $r FAILED"; cat $OUT/err-$mb-$b-$r.log | head -5; }
done; done; echo "mb$mb: $(( $(date +%s) - t0 )) s"; done
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os, collections
O=os.environ['OUT']
d=collections.defaultdict(list)
for mb in ('16','256'):
    for v in ('k1','k8'):
        for c in ('clang','gcc'):
            p=O+'/m'+mb+'-'+v+'-'+c+'.csv'
            if not os.path.exists(p): continue
            for r in csv.DictReader(open(p)):
                if r['impl']=='port': d[(mb, r['shape'], c, v)].append((float(r['ratio_native']), float(r['ratio_serial'])))
print('--mb, shape, compiler, placement: port / best native, median over rounds [min-max]; port / serial')
for k in sorted(d):
    v=[x[0] for x in d[k]]; w=[x[1] for x in d[k]]
    print('%-4s %-9s %-5s %-3s %.3f [%.3f-%.3f] ser %.2f n=%d' % (k[0], k[1], k[2], k[3], statistics.median(v), min(v), max(v), statistics.median(w), len(v)))
PY
cat $OUT/summary.txt
rm -f $OUT/err-*.log $OUT/build-*.log
