#!/usr/bin/env bash
# Suite: teams and team scratch (issue 30), beyond the unit tests
# (tests/test_team.c, tests/test_contract.c):
# - team constructs where they are not allowed do not compile, on every
#   compiler here (gcc, g++, clang, nvcc), and the error is at the misuse's
#   line: a barrier outside a team body or inside a thread, vector, each or
#   one-thread block; a thread loop, a team range or a team reduction inside
#   a thread or each loop; scratch allocated in a thread loop; a 2-D access
#   to 1-D scratch (tests/macros/team_misuse.c);
# - the team benchmarks build warning-free (gcc-openmp, gcc-serial,
#   clang-openmp where clang has OpenMP; C++: the nvcc build) and validate every
#   implementation at small sizes: the nine Intrepid contractions in both
#   modes (bench_contract), CSR SpMV on the 3-D Laplacian and the power-law
#   matrix (bench_spmv); a planted wrong element fails them loudly;
# - the CUDA build of the benchmarks is warning-free (nvcc);
# - benchmarks/teams/run_device.sh runs through at tiny sizes on the host
#   (TEAMS_QUICK=1) and writes its CSVs and tables.
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok, failsLoudly

check() { # check NAME COMMAND...: ok if the command succeeds
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then ok "$name"; else
    echo "not ok - $name"
    tail -n 20 <<<"$out"
  fi
}
have() { command -v "$1" >/dev/null 2>&1; }
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)

# ---------------------------------------------------------------- misuse
M=tests/macros/team_misuse.c
declare -A WHAT=([1]="a barrier outside a team body" [2]="a barrier in a thread loop"
  [3]="a thread loop in a thread loop" [4]="scratch allocated in a thread loop"
  [5]="a team reduction in a thread loop" [6]="a barrier in a vector loop"
  [7]="a barrier in an each loop" [8]="a team range in an each loop"
  [9]="a 2-D access to 1-D scratch" [10]="a barrier in a one-thread block")
declare -A LINE=([1]=15 [2]=25 [3]=28 [4]=31 [5]=36 [6]=41 [7]=48 [8]=51 [9]=56 [10]=60)
compilers=()
have gcc && compilers+=("gcc -std=c99 -fopenmp")
have g++ && compilers+=("g++ -x c++ -std=c++17 -fopenmp")
if have clang && echo 'int main(void){return 0;}' | clang -fopenmp -x c - -o /dev/null 2>/dev/null; then
  compilers+=("clang -std=c99 -fopenmp")
elif have clang; then
  compilers+=("clang -std=c99 -fopenmp-simd -DTDP_OPENMP_SIMD")
fi
[ -n "$nvcc" ] && compilers+=("$nvcc -x cu -arch=sm_90 -std=c++17 -DTARGETDP_SOA -DVVL=1 -DSAL=1 -DTARGET_TPB=256")
for cc in "${compilers[@]}"; do
  name=${cc%% *}
  name=${name##*/}
  warn=(-Wall -Wextra -Werror)
  [ "$name" = nvcc ] && warn=(-Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror)
  # shellcheck disable=SC2086  # cc is a command line
  if $cc "${warn[@]}" -I. -DCASE=0 -c $M -o "$tmp/m.o" >"$tmp/m.log" 2>&1; then
    ok "team constructs used rightly compile warning-free ($name)"
  else
    notok "team constructs used rightly compile warning-free ($name)" "$tmp/m.log"
  fi
  for c in 1 2 3 4 5 6 7 8 9 10; do
    # shellcheck disable=SC2086
    if $cc -I. -DCASE=$c -c $M -o "$tmp/m.o" >"$tmp/m.log" 2>&1; then
      echo "not ok - ${WHAT[$c]} does not compile ($name): it compiled"
    elif grep -qE "team_misuse.c(:|\()${LINE[$c]}" "$tmp/m.log"; then
      ok "${WHAT[$c]} does not compile, error at its line ($name)"
    else
      echo "not ok - ${WHAT[$c]} does not compile ($name): no error at line ${LINE[$c]}"
      head -n 8 "$tmp/m.log"
    fi
  done
done

# ---------------------------------------------------------------- benchmarks
cfgs=("CONFIG=gcc-openmp" "CONFIG=gcc-serial")
if have clang && echo 'int main(void){return 0;}' | clang -fopenmp -x c - -o /dev/null 2>/dev/null; then
  cfgs+=("CONFIG=clang-openmp")
else
  ok "team benchmarks with clang-openmp # SKIP no clang with OpenMP here"
fi
for cfg in "${cfgs[@]}"; do
  b=$(make -s $cfg bench-where)
  # shellcheck disable=SC2086
  if make -s -j2 $cfg bench-teams-build >"$tmp/build.log" 2>&1 && ! grep -q "warning:" "$tmp/build.log"; then
    ok "team benchmarks build warning-free, $cfg"
  else
    notok "team benchmarks build warning-free, $cfg" "$tmp/build.log"
    continue
  fi
  export OMP_NUM_THREADS=2
  check "bench_contract: the nine contractions and the issue's cases validate in both modes, $cfg" \
    "$b/bench_contract" --cases all --mb 0.3 --validate
  check "bench_contract: one cell, nk of a slice and a half, $cfg" \
    "$b/bench_contract" --cases FFS_L125_P216,FFT_L16_D4_P16,DDT_D6_P27 --mb 0.01 --validate
  check "bench_spmv: Laplacian and power law validate, $cfg" \
    "$b/bench_spmv" --n 17 --rows 30000 --validate
  check "bench_spmv: every lane count validates, $cfg" bash -c "for l in 1 2 4 8 16 32; do \
    '$b/bench_spmv' --n 9 --rows 5000 --lanes \$l --validate || exit 1; done"
  if [ "$cfg" = "CONFIG=gcc-openmp" ]; then
    failsLoudly "bench_contract fails on a wrong element and times nothing" \
      "VALIDATION FAILED: FFS_L8_P8 tdp-team" "GB/s" \
      "$b/bench_contract" --cases FFS_L8_P8 --mb 0.2 --inject-error
    failsLoudly "bench_spmv fails on a wrong element and times nothing" \
      "VALIDATION FAILED: spmv lap3d tdp-team" "GB/s" \
      "$b/bench_spmv" --matrix lap3d --n 12 --inject-error
    failsLoudly "bench_contract refuses an unknown option" "unknown option" "" \
      "$b/bench_contract" --size 3
    check "bench_contract times and writes CSV rows" \
      "$b/bench_contract" --cases FFS_L8_P8,DDT_D3_P8 --mb 0.2 --rounds 2 --reps 2 --modes set,add \
      --csv "$tmp/c.csv"
    n=$(grep -c '^contract,' "$tmp/c.csv" 2>/dev/null)
    # 2 cases x 2 modes x (6 implementations + copy)
    if [ "$n" = 28 ] && head -n 1 "$tmp/c.csv" | grep -q '^bench,device,commit,config,case,'; then
      ok "bench_contract CSV: a header and 28 rows"
    else
      echo "not ok - bench_contract CSV: a header and 28 rows (got $n)"
    fi
  fi
  unset OMP_NUM_THREADS
done

if [ -n "$nvcc" ] && [ -f targetDP_CUDA.cu ]; then
  if make -s -j2 TARGET=cuda NVCC="$nvcc" bench-teams-build >"$tmp/cuda.log" 2>&1 &&
    ! grep -q "warning" "$tmp/cuda.log"; then
    ok "team benchmarks build warning-free with TARGET=cuda"
  else
    notok "team benchmarks build warning-free with TARGET=cuda" "$tmp/cuda.log"
  fi
else
  ok "team benchmarks build with TARGET=cuda # SKIP no nvcc"
fi

# ---------------------------------------------------------------- device script
if TEAMS_QUICK=1 OUT="$tmp/dev" timeout -k 10 500 bash benchmarks/teams/run_device.sh \
  >"$tmp/dev.log" 2>&1; then
  ok "benchmarks/teams/run_device.sh runs through (TEAMS_QUICK=1, host steps)"
else
  notok "benchmarks/teams/run_device.sh runs through (TEAMS_QUICK=1, host steps)" "$tmp/dev.log"
fi
if [ -s "$tmp/dev/contract_host.csv" ] && [ -s "$tmp/dev/spmv.csv" ] && [ -s "$tmp/dev/tables.md" ] &&
  grep -q '^| device | ratio | target | met' "$tmp/dev/summary.md" 2>/dev/null &&
  grep -q '^| lap3d .*| [0-9.]* |$' "$tmp/dev/summary.md" &&
  grep -q ',tdp-team-l8,' "$tmp/dev/spmv.csv"; then
  ok "run_device.sh wrote its CSVs and tables (summary.md with the targets, the lanes sweep)"
else
  echo "not ok - run_device.sh wrote its CSVs and tables (summary.md with the targets, the lanes sweep)"
fi
exit 0
