#!/usr/bin/env bash
# benchmarks/run_stream_lanes.sh -- CUDA STREAM with the sites per thread
# chosen per launch (TDP_LAUNCH_LANES; issue 10 item 2), on the lent H100,
# repository root:
#   1. build bench_stream and test_lanes, TARGET=cuda SoA VVL 4 TPB 256;
#   2. test_lanes plainly and under compute-sanitizer memcheck and racecheck;
#   3. 3 rounds, interleaved: bench_stream double and float at --lanes
#      tuned (the per-kernel choice of stream.c's set_lanes), 1, 2 and 4
#      (LANES="tuned 4": those only; no run starts after LANES_BUDGET_S,
#      default 500, seconds);
#      one line per run (kernel, targetDP/native), rows in $OUT/stream.csv
#      (the last column of a targetDP row is its lanes=L), every run's
#      whole output (the native candidates too) in $OUT/stream_runs.txt.
# LANES_SANITIZE=0 skips the two compute-sanitizer runs of step 2;
# PRECS="float" runs one precision only.
# About 7 minutes on the 16-core H100 host. $OUT receives lanes.log,
# stream.csv and stream_runs.txt; the CSV commit column is BENCH_COMMIT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-build/h100-lanes}
mkdir -p "$OUT"
exec > >(tee "$OUT/lanes.log") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
export BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
B=build/nvcc-sm90-SOA-vvl4-sal4-tpb256
echo "== $(date -u +%FT%TZ) commit $BENCH_COMMIT; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
if ! make -s -j16 TARGET=cuda LAYOUT=SOA VVL=4 TPB=256 "$B/bench_stream" "$B/tests/test_lanes" \
  >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log"
  exit 1
fi
rm -f "$OUT/build.log"

echo "== test_lanes: plain, memcheck, racecheck ($SECONDS s)"
t=$B/tests/test_lanes
timeout 60 "$t" 2>&1 | grep -E 'PASSED|FAILED|ERROR|rror' | tail -n 4
[ "${LANES_SANITIZE:-1}" = 1 ] && for tool in memcheck racecheck; do
  echo "-- $tool"
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 "$t" 2>&1 |
    grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' | tail -n 3
  echo "rc=${PIPESTATUS[0]}"
done

for round in 1 2 3; do
  for prec in ${PRECS:-double float}; do
    f=; [ $prec = float ] && f=--float
    for lanes in ${LANES:-tuned 1 2 4}; do
      [ $SECONDS -lt "${LANES_BUDGET_S:-500}" ] || { echo "-- budget spent: round $round stops"; break 3; }
      echo "-- round $round $prec lanes $lanes: $(timeout 120 "$B/bench_stream" $f --lanes $lanes \
        --csv "$OUT/stream.csv" | tee -a "$OUT/stream_runs.txt" | awk '/^(Copy|Mul|Add|Triad|Dot|Nstream) /{printf "%s %s ", $1, $6}
          /^# targetDP sites|rong/{print > "/dev/stderr"}') ($SECONDS s)"
    done
  done
done
echo "== done ($SECONDS s)"
