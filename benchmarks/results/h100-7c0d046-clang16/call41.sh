#!/usr/bin/env bash
# call41: collapsed row loops from 0 (B = the working tree, with rows-from-zero.patch applied) vs A (a copy
# of the tree with .deps/b.patch, i.e. rows-from-zero.patch, reversed), gcc 13 and the carried clang 14,
# one thread (CPU time) 5 rounds + 16 threads 3 rounds,
# shapes with 3-D box loops; every implementation validated by bench_corpus.
set -u
root=$PWD; t0=$(date +%s)
out=$OUT; failed=()
. benchmarks/corpus/lib.sh
corpus_clang || exit 1
echo "clang: $(clang --version | head -1); gcc: $(gcc --version | head -1)"
rm -rf /tmp/trA && mkdir -p /tmp/trA && tar --exclude=./build --exclude=./.git --exclude=./.deps -cf - . | tar -xf - -C /tmp/trA
(cd /tmp/trA && patch -R -p1 < $root/.deps/b.patch) || { echo "reverse patch failed"; exit 1; }
grep -c TDP_ROWS2_ /tmp/trA/targetDP/targetDP_box.h
for t in A B; do
  d=$root; [ $t = A ] && d=/tmp/trA
  (cd $d && make -s -j8 BUILD=build/c41-gcc CONFIG=gcc-openmp CC=gcc corpus-build > $OUT/build-$t-gcc.log 2>&1; echo "build $t gcc rc=$?") &
  (cd $d && make -s -j8 BUILD=build/c41-clang CONFIG=clang-openmp CC=clang corpus-build > $OUT/build-$t-clang.log 2>&1; echo "build $t clang rc=$?") &
done
wait
echo "[$(($(date +%s)-t0)) s] builds"
sh=heat3d,stencil27,d3q19
bin() { if [ $1 = A ]; then echo /tmp/trA/build/c41-$2/bench_corpus; else echo $root/build/c41-$2/bench_corpus; fi; }
for t in A B; do for c in gcc clang; do
  OMP_NUM_THREADS=16 TARGETDP_QUIET=1 $(bin $t $c) --shape all --sites 3001 --reps 2 > $OUT/check-$t-$c.log 2>&1 || echo "check $t $c FAILED"
  OMP_NUM_THREADS=1 TARGETDP_QUIET=1 $(bin $t $c) --shape all --sites 50 --reps 1 > /dev/null 2>&1 || echo "check50 $t $c FAILED"
done; done
for r in 1 2 3 4 5; do
  for c in gcc clang; do
    for t in $([ $((r % 2)) = 1 ] && echo "A B" || echo "B A"); do
      OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1 BENCH_COMMIT=c41-$t \
        $(bin $t $c) --shape $sh --mb 64 --reps 4 --cpu-time --csv $OUT/t1-$t.csv > /dev/null 2>&1 || echo "run $t $c r$r FAILED"
      if [ $r -le 3 ]; then
        OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1 BENCH_COMMIT=c41-$t \
          $(bin $t $c) --shape $sh --mb 64 --reps 4 --csv $OUT/t16-$t.csv > /dev/null 2>&1 || echo "run16 $t $c r$r FAILED"
      fi
    done
  done
  echo "[$(($(date +%s)-t0)) s] round $r"
done
python3 - <<'PY'
import csv, statistics, os
out=os.environ['OUT']
for th in ('t1','t16'):
  for t in 'AB':
    rows=list(csv.DictReader(open(f'{out}/{th}-{t}.csv')))
    cells={}
    for r in rows:
        if r['impl']=='port':
            cells.setdefault((r['compiler'].split()[0],r['shape']),[]).append((float(r['ratio_serial']),float(r['ratio_native'])))
    for k,v in sorted(cells.items()):
        print(th,t,k,len(v),'serial %.3f native %.3f'%(statistics.median(x[0] for x in v),statistics.median(x[1] for x in v)), 'native range %.2f-%.2f'%(min(x[1] for x in v),max(x[1] for x in v)))
PY
