#!/usr/bin/env bash
# call38: K (block (0,0,0) test) vs M (main) vs N (no test), heat3d+stencil27 --mb 512,
# 5 interleaved rounds; then K's box tests on the GPU plain/memcheck/racecheck.
set -u
C=${1:?main commit}
root=$PWD
export PATH=/usr/local/cuda/bin:$PATH
export BENCH_COMMIT=$C
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
nvcc --version | tail -n 1
mk() { d=/tmp/tr$1; rm -rf "$d"; mkdir -p "$d"; tar --exclude=./build --exclude=./.git --exclude=./.deps -cf - . | tar -xf - -C "$d"; }
mk K; mk M; mk N
(cd /tmp/trK && patch -p1 < "$root/.deps/tK.patch") || { echo "patch K failed"; exit 1; }
python3 - <<'PY' || exit 1
p='/tmp/trN/targetDP/targetDP_box.h'
s=open(p).read()
old="  if ((t >> 5) == 0 &&\n      (blockDim.x"
assert s.count(old)==1, "N edit"
open(p,'w').write(s.replace(old,"  if (0 &&\n      (blockDim.x"))
PY
grep -n "blockIdx.x | blockIdx.y" /tmp/trK/targetDP/targetDP_box.h || { echo "K not applied"; exit 1; }
for t in K M N; do
  (cd /tmp/tr$t && make -s -j6 TARGET=cuda corpus-build > $OUT/build-$t.log 2>&1; echo "build $t rc=$?") &
done
wait
echo "[$(($(date +%s)-t0)) s] builds done"
for t in K M N; do
  bd=$(cd /tmp/tr$t && make -s TARGET=cuda bench-where)
  eval "B$t=/tmp/tr$t/$bd/bench_corpus"
  b=B$t; ls -l "${!b}" || exit 1
  TARGETDP_QUIET=1 "${!b}" --shape heat3d,stencil27 --sites 3001 --reps 2 > $OUT/check-$t.log 2>&1 || { echo "check $t FAILED"; tail $OUT/check-$t.log; }
done
orders=("K M N" "N K M" "M N K" "K N M" "M K N")
for r in 1 2 3 4 5; do
  for t in ${orders[$((r-1))]}; do
    b=B$t
    TARGETDP_QUIET=1 timeout 120 "${!b}" --shape heat3d,stencil27 --mb 512 --reps 10 --csv $OUT/c38-$t.csv > $OUT/run-$t-r$r.log 2>&1 || echo "run $t r$r FAILED"
  done
  echo "[$(($(date +%s)-t0)) s] round $r"
done
python3 - <<'PY'
import csv, statistics, os
out=os.environ['OUT']
for t in 'MKN':
    rows=list(csv.DictReader(open(f'{out}/c38-{t}.csv')))
    cells={}
    for r in rows:
        if r['impl'] in ('port','port-march'):
            cells.setdefault((r['shape'],r['impl']),[]).append(float(r['ratio_native']))
    for k,v in cells.items():
        print(t,k,len(v),'median %.3f min %.3f max %.3f'%(statistics.median(v),min(v),max(v)))
PY
cd /tmp/trK && mkdir -p .deps && cp -r "$root/.deps/root" .deps/ && \
  OUT=$OUT/testsK TESTS_PARTS=unit TDP_TEST_ONLY="test_stencil test_box test_box_reduce" timeout 200 bash tests/run_device.sh > $OUT/testsK.log 2>&1
echo "tests rc=$?"; grep -E "passed|failed" $OUT/testsK.log | tail -5
echo "[$(($(date +%s)-t0)) s] end"
