#!/usr/bin/env bash
# Teams and team scratch (issue 30) on the lent GPU machine, in one go
# (about 4-5 minutes on one H100 and its 16-core host):
#
#   OUT=/some/folder benchmarks/teams/run_device.sh      (from the repository root)
#
#   1. builds (parallel): the CUDA library, test_team and test_contract (plain
#      and checked), bench_contract and bench_spmv; the C build of the
#      benchmarks (gcc-openmp, the host)
#   2. the team unit tests on the GPU: plain, checked (CHECK=1), under
#      compute-sanitizer memcheck (leak check) and racecheck (the barrier
#      and the scratch; TDP_TEST_SMALL leaves out the long leagues)
#   3. the crossover of targetContract: TEAM against VENDOR (cuBLAS) over
#      L = R in 2..64 and K in 4..512 at 64 MiB per case; its suggestion is
#      exported as TARGETDP_CONTRACT_CROSSOVER for the helper's rows below
#      (TEAMS_CROSSOVER=lr,k sets it instead; "default" keeps the build's)
#   4. the contractions on the GPU, 3 interleaved rounds: the issue's cases
#      (FieldFieldScalar (8,8) (27,64) (125,216), FieldFieldTensor L=R=16
#      D=4x4 P=16..128, DataDataTensor (3,8) (3,27) (6,27)) at 256 MiB each:
#      tdp-flat, tdp-team, tdp-helper, cuda-flat, cuda-tiled, cublas and the
#      device-to-device copy of the same bytes (the ceiling)
#   5. SpMV on the GPU: 3-D Laplacian 160^3 and a power-law matrix of 2^21
#      rows: tdp-flat, tdp-team, cuSPARSE CSR ALG1 and ALG2
#   6. the host (all cores): the contractions at 64 MiB (omp-plain,
#      omp-blocked, tdp-flat, tdp-team, tdp-helper), the serial loop on one
#      thread for FieldFieldTensor at 16 MiB (the chart's baseline), SpMV
#      (tdp-team, tdp-flat, omp); the C crossover at 16 MiB
#   7. if time allows (a budget skips the rest past TEAMS_BUDGET_S, default
#      240 s): the GPU cases at 1 and 16 MiB, 1 GiB for FFT P=128 and FFS
#      L=8, sum-into mode at 256 MiB, the other six contractions at 256 MiB,
#      SpMV with 1..32 lanes per team thread (GPU) and 1, 8, 16 (host)
#   8. tables.md, summary.md (the short form docs/performance.md holds) and
#      speedup_vs_P.png (plot_teams.py) where python3 is
#
# Writes to $OUT (default ./teams-out): contract_gpu.csv, contract_host.csv,
# spmv.csv, crossover.csv, tests.log, run_device.log (machine, commit, every
# command and its output), tables.md, speedup_vs_P.png. CSV rows: bench,
# device, commit, config, case, shape, cells, MiB, mode, implementation,
# median/min/max seconds, GB/s, GFLOP/s. A failing step is recorded and the
# script goes on; the exit status is 1 if any failed.
# TEAMS_QUICK=1: everything at tiny sizes (a test of the script itself;
# tests/suites/teams.sh runs it so on the host).
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-$PWD/teams-out}
mkdir -p "$out" || exit 1
exec > >(tee "$out/run_device.log") 2>&1

. benchmarks/steps.sh
budget=${TEAMS_BUDGET_S:-240}
optional() { # like step, unless the time budget is spent
  if [ "$(elapsed)" -lt "$budget" ]; then
    step "$@"
  else
    echo "=== SKIPPED (past the ${budget} s budget): $1"
    failed+=("$1 (skipped: time)")
  fi
}
export PATH=/usr/local/cuda/bin:$PATH
quick=${TEAMS_QUICK:-0}
jobs=$(nproc)

echo "=== targetDP teams (issue 30) on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git status --porcelain 2>/dev/null | grep -q . && echo ' (working tree modified)')"
echo "command: OUT=$out benchmarks/teams/run_device.sh"
# BENCH_COMMIT given (the commit of the tree sent to the GPU machine, whose
# copy of .git can be older than its working tree) is taken as it is
export BENCH_COMMIT
[ -n "${BENCH_COMMIT:-}" ] && commit_given=1
BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
[ -n "${commit_given:-}" ] || { git status --porcelain 2>/dev/null | grep -q . && BENCH_COMMIT="$BENCH_COMMIT+modified"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>/dev/null
lscpu | grep -E '^(Model name|Socket|Core|Thread|L3)' || true
echo "nproc: $jobs"
nvcc --version 2>/dev/null | tail -n 2

gpu=0
if nvidia-smi -L 2>/dev/null | grep -q GPU; then gpu=1; else
  echo "=== no GPU (nvidia-smi lists none): the CUDA steps are skipped"
fi

# sizes
gmb=256 hmb=64 hsmb=16 xmb=64 hxmb=16 lap=160 plrows=2097152 hlap=128 hplrows=2097152 rounds=3
small_mb="1,16" big_mb=1024 qreps=()
if [ "$quick" = 1 ]; then
  qreps=(--reps 2)
  gmb=0.5 hmb=0.5 hsmb=0.25 xmb=0.25 hxmb=0.25 lap=20 plrows=20000 hlap=20 hplrows=20000 rounds=2
  small_mb="0.25" big_mb=1
fi
gcsv=$out/contract_gpu.csv hcsv=$out/contract_host.csv scsv=$out/spmv.csv xcsv=$out/crossover.csv
# the host's runs without the GPU's crossover (exported below for the GPU
# helper): on the C backend it would send FieldField L = R < 12 to the team
# kernel, 10x slower there than the blocked loop (h100-7fbb5af-teams: the
# host's FFS_L8_P8 helper ran at 0.11x omp-blocked so)
host_env=(env -u TARGETDP_CONTRACT_CROSSOVER OMP_NUM_THREADS="${OMP_NUM_THREADS:-$jobs}"
  OMP_PROC_BIND=spread OMP_PLACES=cores)

# --- 1. builds -------------------------------------------------------------
gb=$(make -s TARGET=cuda bench-where) gcb=$(make -s TARGET=cuda CHECK=1 bench-where)
hb=$(make -s CONFIG=gcc-openmp bench-where)
# the three builds side by side (nvcc compiles one file per process)
builds() {
  local pids=() rc=0 p
  if [ "$gpu" = 1 ]; then
    make -s -j"$jobs" TARGET=cuda lib "$gb/tests/test_team" "$gb/tests/test_contract" \
      bench-teams-build >"$out/build_cuda.log" 2>&1 &
    pids+=($!)
    make -s -j"$jobs" TARGET=cuda CHECK=1 lib "$gcb/tests/test_team" "$gcb/tests/test_contract" \
      >"$out/build_cuda_check.log" 2>&1 &
    pids+=($!)
  fi
  make -s -j"$jobs" CONFIG=gcc-openmp bench-teams-build >"$out/build_host.log" 2>&1 &
  pids+=($!)
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  cat "$out"/build_*.log
  return $rc
}
step "build: CUDA (library, team tests, benchmarks), CUDA CHECK=1 (team tests), C (benchmarks)" builds

# --- 2. unit tests on the GPU ------------------------------------------------
# one line per binary and tool: "[  PASSED  ] N test(s)" or the failures
unit() { # unit LABEL BINARY [WRAPPER...]
  local label=$1 bin=$2 rc
  shift 2
  echo "--- $label: $bin"
  timeout -k 10 180 "$@" "$bin" >"$out/unit.tmp" 2>&1
  rc=$?
  cat "$out/unit.tmp" >>"$out/tests.log"
  grep -E '^\[  (PASSED|FAILED|SKIPPED) +\]|ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|^not ok|^ERROR' "$out/unit.tmp"
  return "$rc"
}
if [ "$gpu" = 1 ]; then
  : >"$out/tests.log"
  for t in test_team test_contract; do
    step "unit $t (GPU)" unit "GPU" "$gb/tests/$t"
    step "unit $t (GPU, checked)" unit "GPU checked" "$gcb/tests/$t"
    step "unit $t (memcheck)" unit memcheck "$gb/tests/$t" env TDP_TEST_SMALL=1 TDP_TEST_NO_FORK=1 \
      compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 99
  done
  # no forked children under either tool: their kernels trap on purpose
  # (memcheck counts each trapping thread) and racecheck's fork handling
  # crashed now and then under test_abort (tests/run_tests.sh); they run plainly
  for t in test_team test_contract; do
    step "unit $t (racecheck)" unit racecheck "$gb/tests/$t" env TDP_TEST_SMALL=1 \
      TDP_TEST_NO_FORK=1 compute-sanitizer --tool racecheck --error-exitcode 99
  done
  rm -f "$out/unit.tmp"
fi

# --- 3. the crossover ----------------------------------------------------------
if [ "$gpu" = 1 ]; then
  cross() {
    "$gb/bench_contract" --crossover --mb "$xmb" --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$xcsv" |
      tee "$out/crossover.txt"
    return "${PIPESTATUS[0]}"
  }
  step "crossover TEAM vs VENDOR (cuBLAS), $xmb MiB" cross
  sugg=$(sed -n 's/.*suggested TARGETDP_CONTRACT_CROSSOVER=\([0-9]*,[0-9]*\).*/\1/p' "$out/crossover.txt" | tail -n 1)
  case ${TEAMS_CROSSOVER:-measured} in
    default) unset TARGETDP_CONTRACT_CROSSOVER ;;
    measured) [ -n "$sugg" ] && export TARGETDP_CONTRACT_CROSSOVER=$sugg ;;
    *) export TARGETDP_CONTRACT_CROSSOVER=$TEAMS_CROSSOVER ;;
  esac
  echo "=== the helper runs below with TARGETDP_CONTRACT_CROSSOVER=${TARGETDP_CONTRACT_CROSSOVER:-(the default of the build)}"
fi

# --- 4. the contractions on the GPU -----------------------------------------
if [ "$gpu" = 1 ]; then
  step "contract GPU: the issue's cases at $gmb MiB" "$gb/bench_contract" --cases issue --mb "$gmb" \
    --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$gcsv"
fi

# --- 5. SpMV on the GPU ----------------------------------------------------------
if [ "$gpu" = 1 ]; then
  step "spmv GPU: lap3d $lap^3, powerlaw $plrows rows" "$gb/bench_spmv" --n "$lap" \
    --rows "$plrows" --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$scsv"
fi

# --- 6. the host ---------------------------------------------------------------
step "contract host: the issue's cases at $hmb MiB" "${host_env[@]}" "$hb/bench_contract" \
  --cases issue --mb "$hmb" --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$hcsv" \
  --impls omp-plain,omp-blocked,tdp-flat,tdp-team,tdp-helper
# the serial loop (one thread) for the chart's speed-ups, FieldFieldTensor only
step "contract host: serial FieldFieldTensor at $hsmb MiB" env -u TARGETDP_CONTRACT_CROSSOVER OMP_NUM_THREADS=1 \
  "$hb/bench_contract" --cases FFT_L16_D4_P16,FFT_L16_D4_P32,FFT_L16_D4_P64,FFT_L16_D4_P128 \
  --mb "$hsmb" --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$hcsv" --impls serial
step "spmv host: lap3d $hlap^3, powerlaw $hplrows rows" "${host_env[@]}" "$hb/bench_spmv" \
  --n "$hlap" --rows "$hplrows" --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$scsv"
optional "crossover host (team vs blocked loop), $hxmb MiB" "${host_env[@]}" "$hb/bench_contract" \
  --crossover --mb "$hxmb" --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$xcsv"

# --- 7. more sizes and modes, as time allows -----------------------------------
if [ "$gpu" = 1 ]; then
  optional "contract GPU: the issue's cases at $small_mb MiB" "$gb/bench_contract" --cases issue \
    --mb "$small_mb" --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$gcsv"
  optional "contract GPU: FFT P=128 and FFS L=8 at $big_mb MiB" "$gb/bench_contract" \
    --cases FFT_L16_D4_P128,FFS_L8_P8 --mb "$big_mb" --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$gcsv"
  optional "contract GPU: sum-into at $gmb MiB" "$gb/bench_contract" --cases issue --mb "$gmb" \
    --modes add --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$gcsv"
  optional "contract GPU: the other six contractions at $gmb MiB" "$gb/bench_contract" \
    --cases DDS_P27,DDV_D3_P27,DFS_F8_P27,DFV_F8_D3_P27,DFT_F8_D3_P27,FFV_L8_D3_P27 --mb "$gmb" \
    --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$gcsv"
  # the team kernel's lanes per thread against the automatic choice (rows
  # tdp-team-lN; tables.md's SpMV tables hold the automatic tdp-team)
  for m in lap3d powerlaw; do
    for l in 1 2 4 8 16 32; do
      optional "spmv GPU: $m, $l lanes" "$gb/bench_spmv" --matrix $m --n "$lap" --rows "$plrows" \
        --lanes $l --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$scsv"
    done
  done
fi

for m in lap3d powerlaw; do
  for l in 1 8 16; do
    optional "spmv host: $m, $l lanes" "${host_env[@]}" "$hb/bench_spmv" --matrix $m --n "$hlap" \
      --rows "$hplrows" --lanes $l --rounds "$rounds" ${qreps[@]+"${qreps[@]}"} --csv "$scsv"
  done
done

# --- 8. tables and the chart ---------------------------------------------------
py=$(command -v python3 || true)
if [ -n "$py" ]; then
  step "tables and chart" "$py" benchmarks/teams/plot_teams.py --csv "$gcsv" "$hcsv" "$scsv" \
    --outdir "$out" --markdown "$out/tables.md" --summary "$out/summary.md"
  [ -f "$out/tables.md" ] && cat "$out/tables.md"
fi

echo
echo "=== done in $(elapsed) s; wrote: $(cd "$out" && ls | tr '\n' ' ')"
if [ ${#failed[@]} -gt 0 ]; then
  echo "=== ${#failed[@]} step(s) failed or skipped:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "=== all steps passed"
