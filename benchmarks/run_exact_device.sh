#!/usr/bin/env bash
# benchmarks/run_exact_device.sh -- exact, reproducible sums (issue 25 item
# 9; targetDP_exact.h) on the lent GPU machine, in one short call (about 3
# minutes on an H100 host of 16 cores):
#
#   OUT=/some/folder bash benchmarks/run_exact_device.sh     (repository root)
#
#   1. builds: CUDA (SoA VVL 1, TPB 256: test_exact, exact_sum, bench_exact,
#      milc, lb) and the host's gcc-openmp (exact_sum, bench_exact);
#   2. validation: test_exact on the GPU, plainly and under compute-sanitizer
#      racecheck (the warp digit sums, targetBlockExactValue's shared
#      value); exact_sum on 1 and 2 ranks on the GPU and on the host: every
#      printed sum bitwise the same (ranks AND backends);
#   3. bench_exact on the GPU: 2^24 .. 2^27 doubles and floats, the plain
#      in-kernel sum and dot (TDP_TLP_SUM) beside the exact ones
#      (TDP_TLP_EXACT) and targetDoubleSum; the worst case (--hard: every
#      summand to the digits) at 2^24; the host's at 2^24 and 2^26;
#   4. milc CG at 24^4 and 32^4 (us per iteration; 904b6c2: 214 and 577 us
#      on an H100, issue 29) and lb at 256^3 (ms per step; 904b6c2: 1.867):
#      whole runs with the exact sums.
# Writes $OUT/exact_device.log and $OUT/exact.csv (bench_exact rows: ratio =
# plain time / exact time). A failing step is recorded and the script goes
# on; exit status 1 if any failed.
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/build/exact-device}
mkdir -p "$out" || exit 1
exec > >(tee "$out/exact_device.log") 2>&1
. benchmarks/steps.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TARGETDP_QUIET=1
export PATH=/usr/local/cuda/bin:$PATH
cores=$(nproc)
echo "=== exact sums on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), $cores cores"
echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null
export BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
csv=$out/exact.csv

G=(TARGET=cuda LAYOUT=SOA VVL=1 TPB=256)
H=(CONFIG=gcc-openmp)
g=$(make -s "${G[@]}" tests-print-build)
h=$(make -s "${H[@]}" tests-print-build)
build() {
  make -s -j"$cores" "${G[@]}" "$g/tests/test_exact" "$g/tests/mpi/exact_sum" "$g/bench_exact" \
    milc lb >"$out/build-cuda.log" 2>&1 &
  local p1=$!
  make -s -j4 "${H[@]}" "$h/tests/mpi/exact_sum" "$h/bench_exact" >"$out/build-host.log" 2>&1 &
  local p2=$!
  wait $p1 && wait $p2
}
step "1. builds (CUDA and host)" build || { tail -n 30 "$out"/build-*.log; }

step "2a. test_exact on the GPU" timeout 120 "$g/tests/test_exact"
if command -v compute-sanitizer >/dev/null; then
  step "2b. test_exact under compute-sanitizer racecheck" \
    timeout 150 compute-sanitizer --tool racecheck --error-exitcode 1 "$g/tests/test_exact"
fi
sums() { # sums BIN NP: the exact_sum line's sums (PASS only)
  timeout 120 mpirun --oversubscribe -np "$2" "$1" | tee -a "$out/exact_sum.log" |
    sed -n 's/.*exact_sum: PASS: np [0-9]*: exact \(.*\) plain .*/\1/p'
}
agree() {
  local g1 g2 h1 h2
  g1=$(sums "$g/tests/mpi/exact_sum" 1)
  g2=$(sums "$g/tests/mpi/exact_sum" 2)
  h1=$(OMP_NUM_THREADS=$cores sums "$h/tests/mpi/exact_sum" 1)
  h2=$(OMP_NUM_THREADS=1 sums "$h/tests/mpi/exact_sum" 2)
  echo "GPU 1 rank: $g1"
  echo "GPU 2 ranks: $g2"
  echo "host 1 rank ($cores threads): $h1"
  echo "host 2 ranks: $h2"
  if [ -n "$g1" ] && [ "$g1" = "$g2" ] && [ "$g1" = "$h1" ] && [ "$g1" = "$h2" ]; then
    echo "ok - exact sums bitwise the same on the GPU and the host, 1 and 2 ranks"
  else
    echo "not ok - exact sums bitwise the same on the GPU and the host, 1 and 2 ranks"
    return 1
  fi
}
step "2c. exact_sum: GPU and host, 1 and 2 ranks, bitwise" agree

for e in 24 25 26 27; do
  step "3. bench_exact GPU double 2^$e" timeout 120 "$g/bench_exact" --size $((1 << e)) --reps 20 --csv "$csv"
  step "3. bench_exact GPU float 2^$e" timeout 120 "$g/bench_exact" --size $((1 << e)) --reps 20 --float --csv "$csv"
done
step "3. bench_exact GPU double 2^24, hard data" timeout 120 "$g/bench_exact" --size $((1 << 24)) --reps 5 --hard --csv "$csv"
for e in 24 26; do
  step "3. bench_exact host ($cores threads) double 2^$e" \
    env OMP_NUM_THREADS=$cores OMP_PROC_BIND=spread timeout 120 "$h/bench_exact" --size $((1 << e)) --reps 10 --csv "$csv"
done

milc_run() { # milc_run L: the CG line, and its microseconds per iteration
  local line it sec
  line=$(timeout 120 "$gm/milc" --size "$1" --mass 0.1 --tol 1e-10 --maxiter 2000 --print_every 0 |
         grep -E "^CG ")
  echo "$line"
  it=$(grep -o 'iterations [0-9]*' <<<"$line" | cut -d' ' -f2)
  sec=$(grep -o 'time [0-9.e+-]*' <<<"$line" | cut -d' ' -f2)
  [ -n "$it" ] && awk -v s="$sec" -v i="$it" 'BEGIN { printf "us per iteration: %.1f\n", 1e6 * s / i }'
}
lb_run() {
  timeout 120 "$gl/lb" --size 256x256x256 --kernel fused --steps 100 --print_every 50 \
    --output "$out/lb256" | grep -E "^(step|# )"
}
gm=$(make -s "${G[@]}" milc-build-dir)
gl=$(make -s "${G[@]}" lb-build-dir)
step "4. milc CG 24^4 on the GPU" milc_run 24
step "4. milc CG 32^4 on the GPU" milc_run 32
step "4. lb 256^3 on the GPU" lb_run

echo
echo "=== done in $(elapsed) s; csv: $csv"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}"
  exit 1
fi
