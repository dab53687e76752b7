#!/usr/bin/env bash
# call45: the fields' offsets in their pages, A/B on the device host. A = main (every field of
# 8 MiB or more on a 2 MiB boundary: any two congruent), B = the fix (64 + 512 * colour bytes into
# a page). The whole corpus, clang 14 and gcc 13, one thread, CPU time, --mb 64 (in the 300 MiB
# L3) and --mb 512, interleaved rounds; every implementation validated by bench_corpus.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
mkdir -p /tmp/A && tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C /tmp/A && cp .deps/targetDP_C.main.c /tmp/A/targetDP_C.c
cmp -s targetDP_C.c /tmp/A/targetDP_C.c && { echo "A and B are the same"; exit 1; }
for t in A B; do for c in clang gcc; do
  d=$PWD; [ $t = A ] && d=/tmp/A
  ( cd $d && make -s -j4 BUILD=$d/build/c45-$c CONFIG=$c-openmp CC=$c corpus-build > $OUT/build-$t-$c.log 2>&1 && echo "built $t $c" || echo "build $t $c FAILED" ) &
done; done; wait
ln -sfn /tmp/A/build/c45-clang build/A-clang; ln -sfn /tmp/A/build/c45-gcc build/A-gcc
ln -sfn $PWD/build/c45-clang build/B-clang; ln -sfn $PWD/build/c45-gcc build/B-gcc
E="OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1"
t0=$(date +%s)
for r in 1 2 3 4 5 6 7; do for b in A-clang B-clang A-gcc B-gcc; do
  [ $(( $(date +%s) - t0 )) -gt 380 ] && break 2
  env $E timeout 120 build/$b/bench_corpus --shape all --mb 64 --reps 10 --cpu-time --csv $OUT/m64-$b.csv > $OUT/m64-$b-$r.log 2>&1 || echo "m64 $b $r FAILED"
done; done; echo "mb64: $(( $(date +%s) - t0 )) s, $r rounds"
for r in 1 2; do for b in A-clang B-clang A-gcc B-gcc; do
  [ $(( $(date +%s) - t0 )) -gt 500 ] && break 2
  env $E timeout 120 build/$b/bench_corpus --shape heat3d,stencil27,d3q19,jacobi2d --mb 512 --reps 4 --cpu-time --csv $OUT/m512-$b.csv > $OUT/m512-$b-$r.log 2>&1 || echo "m512 $b $r FAILED"
done; done; echo "mb512: $(( $(date +%s) - t0 )) s"
python3 - > $OUT/summary.txt <<'PY'
import csv, statistics, os, collections
O=os.environ['OUT']
for f in ('m64','m512'):
    print('==', f, 'port / best native and port / serial: median over rounds [min-max]')
    d=collections.defaultdict(list)
    for b in ('A-clang','B-clang','A-gcc','B-gcc'):
        p=O+'/'+f+'-'+b+'.csv'
        if not os.path.exists(p): continue
        for r in csv.DictReader(open(p)):
            if r['impl']=='port': d[(r['shape'], b)].append((float(r['ratio_native']), float(r['ratio_serial'])))
    for k in sorted(d):
        v=[x[0] for x in d[k]]; w=[x[1] for x in d[k]]
        print('%-10s %-8s x native %.3f [%.3f-%.3f]  x serial %.3f [%.3f-%.3f]  n=%d' % (k[0], k[1], statistics.median(v), min(v), max(v), statistics.median(w), min(w), max(w), len(v)))
PY
cat $OUT/summary.txt
tar czf $OUT/call45.tgz -C $OUT $(cd $OUT && ls *.csv *.log summary.txt) && rm -f $OUT/*.csv $OUT/*.log
