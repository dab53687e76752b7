#!/usr/bin/env bash
# call46: which page offsets for the layer's fields? Builds (targetDP_C.c diagnosis knobs):
#   k1   every field of 64 KiB or more at the same page offset (main's congruence)
#   k2   two colours: consecutive fields half a page (2048 B) apart, every other one congruent
#   k8   eight colours, bit-reversed 512 B steps (call45's B)
#   nat  no stagger, 64-byte posix_memalign (glibc's own placement, as the natives' arrays)
# clang 14 and gcc 13, the whole corpus, one thread, CPU time, --mb 64, interleaved rounds.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
declare -A fl=([k1]="-DTDP_FIELD_COLOURS_=1" [k2]="-DTDP_FIELD_COLOURS_=2" [k8]="" [nat]="-DTDP_FIELD_NATURAL_")
B=()
for v in k1 k2 k8 nat; do for c in clang gcc; do
  B+=($v-$c)
  ( make -s -j2 BUILD=build/c46-$v-$c CONFIG=$c-openmp CC="$c ${fl[$v]}" corpus-build > $OUT/build-$v-$c.log 2>&1 || echo "build $v $c FAILED" ) &
done; done; wait
E="OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in 1 2 3 4 5 6; do for b in "${B[@]}"; do
  [ $(( $(date +%s) - t0 )) -gt 440 ] && break 2
  env $E timeout 120 build/c46-$b/bench_corpus --shape all --mb 64 --reps 10 --cpu-time --csv $OUT/m64-$b.csv > $OUT/m64-$b-$r.log 2>&1 || echo "m64 $b $r FAILED"
done; done; echo "mb64: $(( $(date +%s) - t0 )) s, round $r"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os, collections
O=os.environ['OUT']
d=collections.defaultdict(list)
for v in ('k1','k2','k8','nat'):
    for c in ('clang','gcc'):
        p=O+'/m64-'+v+'-'+c+'.csv'
        if not os.path.exists(p): continue
        for r in csv.DictReader(open(p)):
            if r['impl']=='port': d[(r['shape'], c, v)].append((float(r['ratio_native']), float(r['ratio_serial'])))
print('port / best native, median over rounds [min-max]; port / serial')
for k in sorted(d):
    v=[x[0] for x in d[k]]; w=[x[1] for x in d[k]]
    print('%-9s %-5s %-3s %.3f [%.3f-%.3f] ser %.2f n=%d' % (k[0], k[1], k[2], statistics.median(v), min(v), max(v), statistics.median(w), len(v)))
PY
cat $OUT/summary.txt
tar czf $OUT/call46.tgz -C $OUT $(cd $OUT && ls *.csv *.log summary.txt) && rm -f $OUT/*.csv $OUT/*.log
