#!/usr/bin/env bash
# scripts/run_h100_compact.sh -- one device call for issue 15 (run on the
# lent H100 machine, repository root): the compaction kernel variants of
# targetDP_scan_CUDA.cu side by side (TARGETDP_COMPACT unset = t256r4v2,
# t256r4, t256r2, t512r2v2, t512r2v2cs, t512r2; cub for reference).
#   1. build test_scan and bench_blocks, TARGET=cuda SoA VVL 1 (make -j16),
#      and print each compaction kernel's registers, shared memory and the
#      blocks per SM those allow on an H100;
#   2. bench_blocks in 3 rounds: the Copy and CompactIdx* lines, all rows to
#      $OUT/blocks.csv. First, alone on the GPU, so that the numbers come
#      back even if a sanitizer run below is cut off; each row is validated
#      exactly by bench_blocks itself;
#   3. test_scan plainly (every compaction test under each variant) and
#      under compute-sanitizer memcheck (TDP_TEST_NO_BIG) and racecheck
#      (TDP_TEST_SMALL too: masks up to 100003 sites), the three side by
#      side, their time limits cut to what is left of DEADLINE.
# Under 8 minutes on 16 cores (DEADLINE, 450 s, bounds step 3). $OUT
# receives compact.log, blocks.csv and the three test logs; the CSV
# commit column is BENCH_COMMIT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-build/h100-compact}
DEADLINE=${DEADLINE:-450}
mkdir -p "$OUT"
exec > >(tee "$OUT/compact.log") 2>&1
export PATH=/usr/local/cuda/bin:$PATH
export BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
B=build/nvcc-sm90-SOA-vvl1-sal1-tpb256
t=$B/tests/test_scan
echo "== $(date -u +%FT%TZ) commit $BENCH_COMMIT; $(nvidia-smi --query-gpu=name --format=csv,noheader)"

echo "== build ($SECONDS s)"
if ! make -s -j16 TARGET=cuda LAYOUT=SOA VVL=1 "$t" "$B/bench_blocks" >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log"
  exit 1
fi
rm -f "$OUT/build.log"
# compact_kernel<THREADS, ROWS, BLOCKS, STORE> (store 0: 8-byte, 1: 16-byte,
# 2: 16-byte evict-first). Blocks/SM: the least of 2048 threads, 32 blocks,
# 64 K registers (per warp in units of 256) and 228 KiB of shared memory
# (1 KiB more per block); BLOCKS is what __launch_bounds__ asked for.
if command -v cuobjdump >/dev/null; then
  cuobjdump --dump-resource-usage "$B/obj/targetDP/targetDP_scan_CUDA.o" |
    grep -A1 'Function _Z[0-9]*compact_kernel' |
    sed -n 's/.*compact_kernelILi\([0-9]*\)ELi\([0-9]*\)ELi\([0-9]*\)ELi\([0-9]*\)E.*/K \1 \2 \3 \4/p
            s/.*REG:\([0-9]*\).*SHARED:\([0-9]*\).*/R \1 \2/p' |
    awk '$1 == "K" { T = $2; r = $3; b = $4; s = $5; next }
         $1 == "R" { reg = $2; sh = $3
           n = int(2048 / T); if (n > 32) n = 32
           pr = int(65536 / (T / 32 * int((reg * 32 + 255) / 256) * 256)); if (pr < n) n = pr
           ps = int(233472 / (sh + 1024)); if (ps < n) n = ps
           printf "compact_kernel<%d,%d,%d,%d>: %d registers, %d B shared: %d blocks/SM (asked %d)\n",
                  T, r, b, s, reg, sh, n, b }'
else
  echo "(no cuobjdump: registers and shared memory not shown)"
fi

fail=0 # the exit status: 1 when a bench round or a test run failed
b=$B/bench_blocks
for round in 1 2 3; do
  echo "== blocks round $round ($SECONDS s)"
  timeout 120 "$b" --csv "$OUT/blocks.csv" | grep -E '^(Copy|CompactIdx)|^# (all|blocks)|rong'
  rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || { echo "-- bench_blocks rc=$rc"; fail=1; }
done

# the three runs side by side: the plain one's 2^31 sites need 19 GiB, the
# sanitizers' runs (TDP_TEST_NO_BIG) little
left=$((DEADLINE - SECONDS - 10))
[ "$left" -lt 60 ] && left=60
echo "== test_scan: plain, memcheck, racecheck, each within $left s ($SECONDS s)"
pids=() # explicit: a bare wait would also wait for the log's tee
timeout "$left" "$t" >"$OUT/plain.log" 2>&1 &
pids+=($!)
TDP_TEST_NO_BIG=1 timeout "$left" compute-sanitizer --tool memcheck --error-exitcode 9 "$t" \
  >"$OUT/memcheck.log" 2>&1 &
pids+=($!)
TDP_TEST_NO_BIG=1 TDP_TEST_SMALL=1 timeout "$left" compute-sanitizer --tool racecheck \
  --error-exitcode 9 "$t" >"$OUT/racecheck.log" 2>&1 &
pids+=($!)
runs=(plain memcheck racecheck)
for i in 0 1 2; do
  wait "${pids[$i]}"
  rc=$?
  [ "$rc" = 0 ] || fail=1
  echo "-- ${runs[$i]} rc=$rc$([ $rc = 124 ] && echo ' (timed out)') ($SECONDS s)"
  grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED|skipped|^\[  ERROR|^\[  FAIL|rror' \
    "$OUT/${runs[$i]}.log" | tail -n 8
done
echo "== done ($SECONDS s)"
exit $fail
