#!/usr/bin/env bash
# call42: clang 14's heat3d port / native at three row lengths (one thread, CPU time): does the gap
# follow the rows (a per-row cost) or not?
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
make -s -j16 BUILD=build/c42 CONFIG=clang-openmp CC=clang corpus-build > $OUT/build.log 2>&1 || { echo build failed; exit 1; }
make -s -j16 BUILD=build/c42g CONFIG=gcc-openmp CC=gcc corpus-build > $OUT/buildg.log 2>&1 || { echo build failed; exit 1; }
for r in 1 2 3; do for mb in 2 8 64 512; do for b in c42 c42g; do
  OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1 build/$b/bench_corpus --shape heat3d,stencil27 --mb $mb --reps 4 --cpu-time --csv $OUT/rl.csv > /dev/null 2>&1 || echo "run $b $mb FAILED"
done; done; done
python3 - <<'PY'
import csv, statistics, os
rows=list(csv.DictReader(open(os.environ['OUT']+'/rl.csv')))
c={}
for r in rows:
    if r['impl'] in ('port','serial'):
        c.setdefault((r['compiler'].split()[0],r['shape'],r['dims'],r['impl']),[]).append((float(r['ratio_native']),float(r['median_mlups'])))
for k,v in sorted(c.items()):
    print(k, 'x native %.3f (%.2f-%.2f)'%(statistics.median(x[0] for x in v),min(x[0] for x in v),max(x[0] for x in v)), 'MLUPS %.0f'%statistics.median(x[1] for x in v))
PY
