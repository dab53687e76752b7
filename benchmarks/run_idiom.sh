#!/usr/bin/env bash
# benchmarks/run_idiom.sh -- which C build should be the default? (issue 10
# item 3: the README recipe must be fast in the default build.)
#
# On the machine it runs on, for each candidate C build (gcc-openmp with
# -march=native): the D2Q9 port of the README recipe against its serial
# original on 1 thread and on all cores (bench_d2q9), the lb app's fused
# D3Q19 step at 128^3 on all cores, and STREAM in double and float
# (bench_stream, the best native candidates beside it). The candidates run
# in interleaved rounds (the host is shared and noisy: one round is not a
# result). Every run validates its result before printing a rate
# (bench_d2q9: the port against the original to 1e-12; lb: mass to 1e-12;
# STREAM: every element).
#
#   OUT=dir bash benchmarks/run_idiom.sh      (IDIOM_ROUNDS=3, IDIOM_QUICK=1: tiny sizes)
#
# Writes d2q9.csv, stream.csv, lb_perf.csv and idiom.log to $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
out=${OUT:-build/idiom}
mkdir -p "$out"
rounds=${IDIOM_ROUNDS:-3}
cores=$(nproc)
export BENCH_COMMIT
BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
d2q9_args=(--size 2048 --reps 10) stream_args=(--size $((1 << 26)) --reps 5)
lb_args=(--size 128x128x128 --steps 40)
if [ "${IDIOM_QUICK:-0}" = 1 ]; then
  d2q9_args=(--size 67 --reps 2) stream_args=(--size 1003 --reps 2)
  lb_args=(--size 16x16x16 --steps 4)
fi
# the candidates: "name|make variables"
cands=("default|" "soa1|LAYOUT=SOA VVL=1" "soa4|LAYOUT=SOA VVL=4" "soa8|LAYOUT=SOA VVL=8"
       "aosoa8|LAYOUT=AOSOA VVL=8")
declare -A B L
{
  echo "== idiom runs: $(date -u +%FT%TZ), commit $BENCH_COMMIT, $cores cores"
  lscpu | grep -E '^Model name|^Flags' | cut -c1-200
  gcc --version | head -n 1
  for c in "${cands[@]}"; do
    name=${c%%|*} vars=${c#*|}
    # shellcheck disable=SC2086
    if make -s -j"$cores" $vars bench-build lb >"$out/build.tmp" 2>&1; then
      # shellcheck disable=SC2086
      B[$name]=$(make -s $vars bench-where)
      # shellcheck disable=SC2086
      L[$name]=$(make -s $vars lb-build-dir)
      echo "built $name ($vars): ${B[$name]}"
    else
      echo "BUILD FAILED: $name ($vars)"
      tail -n 20 "$out/build.tmp"
    fi
  done
  rm -f "$out/build.tmp"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  for r in $(seq 1 "$rounds"); do
    for c in "${cands[@]}"; do
      name=${c%%|*}
      b=${B[$name]:-}
      [ -n "$b" ] || continue
      for t in 1 "$cores"; do
        echo "-- round $r $name: bench_d2q9, $t thread(s)"
        OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores \
          timeout 120 "$b/bench_d2q9" "${d2q9_args[@]}" --csv "$out/d2q9.csv" || echo "FAILED"
      done
      echo "-- round $r $name: lb fused, 1 rank x $cores threads"
      OMP_NUM_THREADS=$cores OMP_PROC_BIND=close OMP_PLACES=cores \
        timeout 120 mpirun --bind-to none -np 1 "${L[$name]}/lb" \
        --params apps/lb/input/benchmark.params --output "$out/run" --summary "$out/lb_perf.csv" \
        "${lb_args[@]}" --kernel fused 2>&1 | grep -E '^# (update|step)|PASS|FAIL|rror' ||
        echo "FAILED"
      for prec in "" --float; do
        echo "-- round $r $name: bench_stream ${prec:-double}"
        OMP_NUM_THREADS=$cores OMP_PROC_BIND=spread OMP_PLACES=cores \
          timeout 120 "$b/bench_stream" "${stream_args[@]}" $prec --csv "$out/stream.csv" |
          grep -E '^(Copy|Mul|Add|Triad|Dot|Nstream) ' || echo "FAILED"
      done
    done
  done
  rm -rf "$out/run"
  echo "== done"
} 2>&1 | tee "$out/idiom.log"
