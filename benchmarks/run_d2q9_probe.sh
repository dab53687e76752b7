#!/usr/bin/env bash
# benchmarks/run_d2q9_probe.sh -- is the README recipe as fast as the serial
# original once TDP_ILP really vectorises? (issue 10 item 3)
#
# gcc 12/13 leave the recipe's TDP_ILP body (benchmarks/d2q9_kernels.h tdp_step)
# scalar under "omp simd": the per-site array handed to collide() becomes an
# "omp simd array" and the vectoriser gives up. "GCC ivdep" + "GCC unroll 1"
# on the lane loop (targetDP.h; the default since 2026-11-25) vectorise it.
# Candidates, each its own build folder (make variables):
#   simd        ILP=simd: "omp simd", the default until 2026-11-25
#   ivdep       the default build (gcc-openmp, -march=native, SoA VVL 8, GCC ivdep)
#   ivdep_vvl4  VVL=4                              (one 256-bit vector)
#   ivdep_zmm   CONFIG=gcc-avx512                  (x86-64-v4, 512-bit: one zmm)
# For each: what gcc vectorised in d2q9_kernels.h (-fopt-info-vec; the double
# and the float instance share the line numbers) and the size of tdp_step's
# code; then in interleaved rounds bench_d2q9 --size 2048 on one thread
# (taskset -c $PROBE_CPU) and on all cores (recipe/serial and
# split/serial, serial time / port time: higher is faster), and lb's fused
# D3Q19 step at 128^3 on all cores (every candidate changes the layer's code
# or flags, so lb must not get slower than simd). Every run validates its
# result (bench_d2q9: 1e-12 against the serial original, float 1e-5; lb: mass).
#
# PROBE_FLOAT=1: is the VVL advice right for float (8/16 lanes; issue 10 item
# 3)? bench_d2q9 only (no lb), candidates (name|make variables|precision):
#   f_vvl8     the default build (VVL 8), --float
#   f_vvl16    VVL=16, --float                      (-march=native: gcc's ymm preference)
#   f_zmm16    CONFIG=gcc-avx512 VVL=16, --float    (512-bit: one zmm of floats)
#   d_vvl8     the default build, double           (reference; same build as f_vvl8)
#   d_vvl4     VVL=4, double                        (reference)
# Writes $OUT/d2q9_float.log and $OUT/d2q9_float.csv; PROBE_BUDGET_S defaults
# to 140 there (the builds included: the call stays under 3 minutes).
#
#   OUT=dir bash benchmarks/run_d2q9_probe.sh
#     PROBE_ROUNDS=3 PROBE_CPU=3 PROBE_BUDGET_S=165 (stop starting runs after
#     that many seconds) PROBE_QUICK=1 (tiny sizes, to check the script)
#     PROBE_ONLY="simd ivdep" (those candidates only)
#   OUT=dir PROBE_FLOAT=1 bash benchmarks/run_d2q9_probe.sh   (the float VVL probe, above)
#
# Writes $OUT/d2q9_probe.log (everything) and $OUT/d2q9_probe.csv (one row
# per run; the last column the precision), and prints the summary at the end
# of the log (recipe/best: against the best candidate of the same precision).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
out=${OUT:-build/d2q9_probe}
mkdir -p "$out"
float=${PROBE_FLOAT:-0} tag=probe budget=${PROBE_BUDGET_S:-165}
[ "$float" = 1 ] && tag=float budget=${PROBE_BUDGET_S:-140}
log=$out/d2q9_$tag.log csv=$out/d2q9_$tag.csv
rounds=${PROBE_ROUNDS:-3} cpu=${PROBE_CPU:-3}
cores=$(nproc)
d2q9_args=(--size 2048 --reps 5) lb_args=(--size 128x128x128 --steps 20)
if [ "${PROBE_QUICK:-0}" = 1 ]; then
  d2q9_args=(--size 67 --reps 2) lb_args=(--size 16x16x16 --steps 4)
fi
cands=("simd|ILP=simd|double" "ivdep||double" "ivdep_vvl4|VVL=4|double"
  "ivdep_zmm|CONFIG=gcc-avx512|double")
if [ "$float" = 1 ]; then
  cands=("f_vvl8||float" "f_vvl16|VVL=16|float" "f_zmm16|CONFIG=gcc-avx512 VVL=16|float"
    "d_vvl8||double" "d_vvl4|VVL=4|double")
fi
if [ -n "${PROBE_ONLY:-}" ]; then # PROBE_ONLY="simd ivdep": those candidates only
  keep=()
  for c in "${cands[@]}"; do [[ " $PROBE_ONLY " == *" ${c%%|*} "* ]] && keep+=("$c"); done
  cands=("${keep[@]}")
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
declare -A B L BV LV # by candidate: bench / lb folder; by make variables: the same, built once

# d2q9 ROUND NAME VARS THREADS PRECISION: one bench_d2q9 run, its lines and a CSV row
d2q9() {
  local r=$1 name=$2 vars=$3 t=$4 prec=$5 o pin=() fl=()
  [ "$t" = 1 ] && pin=(taskset -c "$cpu")
  [ "$prec" = float ] && fl=(--float)
  echo "-- round $r $name ($vars): bench_d2q9 ${d2q9_args[*]} ${fl[*]}, $t thread(s)"
  o=$(OMP_NUM_THREADS=$t OMP_PROC_BIND=close OMP_PLACES=cores \
    timeout 90 "${pin[@]}" "${B[$name]}/bench_d2q9" "${d2q9_args[@]}" "${fl[@]}" 2>&1)
  local rc=$?
  grep -E '^(serial|targetDP|split) |median times|VALIDATION|wrong' <<<"$o"
  [ $rc = 0 ] || { echo "FAILED (exit $rc)"; tail -n 5 <<<"$o"; }
  # serial/recipe/split median MLUPS, recipe/serial, split/serial
  local sm rm qm rr qr
  sm=$(awk '$1 == "serial" {print $3}' <<<"$o") rm=$(awk '$1 == "targetDP" {print $3}' <<<"$o")
  qm=$(awk '$1 == "split" {print $3}' <<<"$o")
  rr=$(sed -n 's/^# targetDP \/ serial (median times): //p' <<<"$o")
  qr=$(sed -n 's/^# split \/ serial (median times): //p' <<<"$o")
  echo "d2q9,$r,$name,$vars,$t,${sm:-},${rm:-},${qm:-},${rr:-},${qr:-},,,$rc,$prec" >>"$csv"
}

# lb ROUND NAME VARS: the fused step on all cores, one MPI rank
lb() {
  local r=$1 name=$2 vars=$3 o
  echo "-- round $r $name ($vars): lb fused ${lb_args[*]}, 1 rank x $cores threads"
  o=$(OMP_NUM_THREADS=$cores OMP_PROC_BIND=close OMP_PLACES=cores \
    timeout 90 mpirun --bind-to none -np 1 "${L[$name]}/lb" \
    --params apps/lb/input/benchmark.params --output "$out/lbrun" \
    "${lb_args[@]}" --kernel fused 2>&1)
  local rc=$?
  grep -E '^# (update|step|triad)|FAIL|rror' <<<"$o"
  [ $rc = 0 ] || { echo "FAILED (exit $rc)"; tail -n 5 <<<"$o"; }
  local ms gbs
  ms=$(awk '$1 == "#" && $2 == "update" {print $3}' <<<"$o")
  gbs=$(awk '$1 == "#" && $2 == "update" {print $4}' <<<"$o")
  echo "lb,$r,$name,$vars,$cores,,,,,,${ms:-},${gbs:-},$rc,double" >>"$csv"
}

# median of the numbers on stdin (empty when none)
median() { sort -g | awk '{v[NR] = $1} END {if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }

{
  echo "== d2q9 probe$([ "$float" = 1 ] && echo " (PROBE_FLOAT=1)"): $(date -u +%FT%TZ), commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown), $cores cores, 1-thread runs on CPU $cpu"
  lscpu | grep -E '^Model name|^CPU max MHz' | cut -c1-120
  gcc --version | head -n 1
  echo "transparent hugepages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null) (targetDP fields: 2 MiB aligned + madvise; the serial arrays: malloc)"
  echo "kind,round,cand,vars,threads,serial_mlups,recipe_mlups,split_mlups,recipe_over_serial,split_over_serial,lb_update_ms,lb_update_gbs,exit,precision" >"$csv"
  for c in "${cands[@]}"; do
    IFS='|' read -r name vars prec <<<"$c"
    if [ -n "${BV["v:$vars"]:-}" ]; then # built for an earlier candidate
      B[$name]=${BV["v:$vars"]} L[$name]=${LV["v:$vars"]}
      echo "built $name ($vars): ${B[$name]} (the build of an earlier candidate)"
      continue
    fi
    # shellcheck disable=SC2086
    b=$(make -s $vars bench-where) l=$(make -s $vars lb-build-dir)
    targets=("$b/bench_d2q9")
    [ "$float" = 1 ] || targets+=(lb) # the float probe runs no lb
    # shellcheck disable=SC2086
    if make -s -j"$cores" $vars "${targets[@]}" >"$out/build.tmp" 2>&1; then
      B[$name]=$b L[$name]=$l BV["v:$vars"]=$b LV["v:$vars"]=$l
      echo "built $name ($vars): $b ($SECONDS s)"
      # what gcc made of the kernels: the compile line of d2q9.o with -fopt-info-vec
      # shellcheck disable=SC2086
      cmd=$(make -s -n -B $vars "$b/obj/benchmarks/d2q9.o" | grep 'benchmarks/d2q9.c')
      cmd=$(sed 's/ -MMD -MP//; s/ -o [^ ]*$//' <<<"$cmd")
      eval "$cmd -fopt-info-vec-optimized -o /dev/null" 2>&1 |
        grep -E 'd2q9_kernels.h:[0-9]+:.*loop vectorized' | sed 's/^/  vec: /' |
        sort | uniq -c
      # the recipe's kernel in each precision (tdp_step_d / tdp_step_f: d2q9_kernels.h)
      for f in d f; do
        objdump -d --no-show-raw-insn "$b/obj/benchmarks/d2q9.o" 2>/dev/null |
          awk -v fn="tdp_step_$f._omp_fn.0" '
            $2 == "<" fn ">:" {f = 1; next} /^[0-9a-f]+ </ {f = 0}
            f && /\t/ {n++; if (/zmm/) z++; else if (/ymm/) y++; if (/vdivp[sd]/) dp++; if (/vdivs[sd]/) ds++}
            END {printf "  %s: %d instructions, %d zmm, %d ymm, packed div %d, scalar div %d\n",
                 fn, n, z, y, dp, ds}'
      done
    else
      echo "BUILD FAILED: $name ($vars)"
      tail -n 20 "$out/build.tmp"
    fi
  done
  rm -f "$out/build.tmp"
  for r in $(seq 1 "$rounds"); do
    for c in "${cands[@]}"; do
      IFS='|' read -r name vars prec <<<"$c"
      [ -n "${B[$name]:-}" ] || continue
      if [ "$SECONDS" -ge "$budget" ]; then
        echo "-- round $r $name: skipped (${SECONDS} s >= PROBE_BUDGET_S=$budget)"
        continue
      fi
      d2q9 "$r" "$name" "$vars" 1 "$prec"
      d2q9 "$r" "$name" "$vars" "$cores" "$prec"
      [ "$float" = 1 ] || lb "$r" "$name" "$vars"
    done
  done
  rm -rf "$out"/lbrun*
  echo
  echo "== summary: medians over the rounds (ratios: serial time / port time, higher is faster;"
  echo "   recipe/best: the candidate's recipe MLUPS over the best candidate's of the same"
  echo "   precision at that thread count; serial: the serial original's MLUPS in that build)"
  for c in "${cands[@]}"; do
    IFS='|' read -r name vars prec <<<"$c"
    for t in 1 "$cores"; do
      sel() { awk -F, -v n="$name" -v t="$t" -v k="$1" -v col="$2" \
        '$1 == k && $3 == n && $5 == t && $13 == 0 && $col != "" {print $col}' "$csv" | median; }
      lbm=-
      [ "$t" = "$cores" ] && [ "$float" != 1 ] && lbm=$(sel lb 11)
      rr=$(sel d2q9 9) qr=$(sel d2q9 10) sm=$(sel d2q9 6) rm=$(sel d2q9 7)
      echo "$name $prec $t ${rr:--} ${qr:--} ${sm:--} ${rm:--} ${lbm:--}"
    done
  done | awk '{l[NR] = $0; k[NR] = $3 SUBSEP $2; n[NR] = $7 + 0; if (n[NR] > best[k[NR]]) best[k[NR]] = n[NR]}
    END {printf "%-10s %6s %8s %14s %13s %12s %13s %12s %14s\n", "cand", "prec", "threads",
           "recipe/serial", "split/serial", "serial MLUPS", "recipe MLUPS", "recipe/best", "lb update ms"
         for (i = 1; i <= NR; i++) {split(l[i], f, " ")
           printf "%-10s %6s %8s %14s %13s %12s %13s %12s %14s\n", f[1], f[2], f[3], f[4], f[5], f[6],
             f[7], ((best[k[i]] > 0 && n[i] > 0) ? sprintf("%.3f", n[i] / best[k[i]]) : "-"), f[8]}}'
  if [ "$float" = 1 ]; then
    echo "question: does float want VVL 16 (one zmm of floats) or is the default VVL 8 within 0.95 x"
    echo "the best float candidate? (noise: compare the rounds above)"
  else
    echo "goal: recipe/serial >= 1 on 1 thread in the default build; recipe MLUPS >= 0.95 x the best"
    echo "candidate's; lb update ms not above simd's (noise: compare the rounds above)."
  fi
  echo "== done ($SECONDS s)"
} 2>&1 | tee "$log"
