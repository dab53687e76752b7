#!/usr/bin/env bash
# apps/milc: the variants of the performance work (docs/milc.md, "Where the
# time went") side by side on one GPU, in one call of a few minutes at most:
#     OUT=dir bash apps/milc/perf_variants.sh     (log: $OUT/milc_perf.log)
# Builds (CUDA, SoA VVL 1, each in its own folder, in parallel):
#   old    MILC_RESTRICT=0 MILC_CAPPED_REDUCE=1 MILC_LINKS_ONCE=0: the D kernels and their
#          launches as before; run with --timing sync --cg classic it is
#          main at 033dec7 (the interior site list is read in sync mode)
#   new    the defaults (restrict: ld.global.nc; no site list on one rank;
#          kDslashAxpby on a full grid; links by TDP_LOAD_ONCE, evict first)
#   capped + MILC_CAPPED_REDUCE=1 (kDslashAxpby on the capped reduction
#          grid, as before: differs from new above 32^4 only)
#   plain  + MILC_LINKS_ONCE=0 (links by plain loads, as before 2026-11-24)
#   occ5   TPB=128 MILC_MINBLOCKS=5 (D at <= 96 registers: 20 warps per SM
#          instead of 16)
#   occ3   MILC_MINBLOCKS=3 (TPB 256, 80 registers: 24 warps; spills)
# Runs (one rank, random field, mass 0.1, tol 1e-10): each process solves
# several times on the same fields (--runs), old and new host paths
# interleaved (sync:classic = before, events:fused = now, events:ahead = the
# host one iteration behind), so the first
# solve of each process carries the warm-up; each prints its per-kernel
# table (dslash, blas: % of triad) and summary (CG % of triad), with the
# STREAM triad of the same process (--triad, 2^27 doubles per array).
# A csv: line per solve sums it up:
#   csv: build,size,precision,run,timing,cg,iterations,seconds,us_per_iter,dslash_pct,cg_pct
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
OUT=${OUT:-build/milc-perf}
mkdir -p "$OUT"
exec > >(tee "$OUT/milc_perf.log") 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TARGETDP_QUIET=1
t_start=$(date +%s)
since() { echo "[$(($(date +%s) - t_start)) s]"; }
echo "== milc perf variants: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null), $(nproc) cores"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>/dev/null

declare -A B
pids=()
build() { # build KEY make-args...
  local key=$1
  shift
  B[$key]=build/milcperf-$key
  make -s -j4 TARGET=cuda BUILD="${B[$key]}" "$@" "${B[$key]}/milc" "${B[$key]}/milccheck" \
    >"$OUT/build-$key.log" 2>&1 &
  pids+=($!)
}
build old MILC_RESTRICT=0 MILC_CAPPED_REDUCE=1 MILC_LINKS_ONCE=0
build new
build capped MILC_CAPPED_REDUCE=1
build plain MILC_LINKS_ONCE=0
build occ5 TPB=128 MILC_MINBLOCKS=5
build occ3 MILC_MINBLOCKS=3
for p in "${pids[@]}"; do wait "$p"; done
for k in old new capped plain occ5 occ3; do
  [ -x "${B[$k]:-/none}/milc" ] || { echo "not ok - build $k"; tail -n 20 "$OUT/build-$k.log"; }
done
echo "builds done $(since)"

# Validation on the GPU first: milccheck (new), and the same solve with
# every host path and CG variant against main's (old, sync:classic): the
# GPU's atomic sums vary in order, so to 1e-12, not bitwise.
if [ -x "${B[new]:-/none}/milc" ] && [ -x "${B[old]:-/none}/milc" ]; then
  timeout 120 "${B[new]}/milccheck" | grep -E "^(FAIL|[0-9]+ check)" | sed "s/\$/ [milccheck, new]/"
  sv=(--size 8,8,8,16 --mass 0.5 --tol 1e-13 --seed 3 --print_every 0)
  "${B[old]}/milc" "${sv[@]}" --timing sync --cg classic --save "$OUT/v-old.bin" >/dev/null 2>&1
  for v in events:fused events:ahead sync:classic; do
    "${B[new]}/milc" "${sv[@]}" --runs "$v" --save "$OUT/v-$v.bin" >"$OUT/v.log" 2>&1
    if "${B[new]}/milccheck" --compare "$OUT/v-old.bin" "$OUT/v-$v.bin" 1e-12 >"$OUT/cmp.log" 2>&1; then
      echo "ok - new --runs $v: solution equals old sync:classic to 1e-12 ($(cat "$OUT/cmp.log"))"
    else
      echo "not ok - new --runs $v: solution equals old sync:classic to 1e-12"; cat "$OUT/cmp.log" "$OUT/v.log"
    fi
  done
  rm -f "$OUT"/v-*.bin
fi

run() { # run KEY SIZE PRECISION TOL RUNS [milc options]
  local key=$1 L=$2 prec=$3 tol=$4 runs=$5
  shift 5
  [ -x "${B[$key]:-/none}/milc" ] || return
  if [ $(($(date +%s) - t_start)) -gt 180 ]; then
    echo "-- $key ${L}^4 $prec: skipped (time)"
    return
  fi
  echo "-- $key ${L}^4 $prec: --runs $runs $* $(since)"
  timeout 100 "${B[$key]}/milc" --size "$L" --mass 0.1 --tol "$tol" --maxiter 2000 \
    --print_every 0 --precision "$prec" --triad 134217728 --runs "$runs" "$@" >"$OUT/run.log" 2>&1
  grep -E "^(# (run|dslash|blas|triad)|CG )" "$OUT/run.log"
  awk -v b="$key" -v L="$L" -v p="$prec" '
    /^# run / { r = $3; t = $7; sub(",", "", t); c = $9 }
    /^# dslash / { d = $7 }
    /^# triad / { g = $(NF - 2); sub("%", "", g) }
    /^CG / {
      if (r == "") { r = 1 }
      for (i = 1; i < NF; i++) { if ($i == "iterations") it = $(i + 1) + 0; if ($i == "time") s = $(i + 1) + 0 }
      printf "csv: %s,%s^4,%s,%s,%s,%s,%d,%.4f,%.1f,%s,%s\n", b, L, p, r, t, c, it, s, 1e6 * s / it, d, g
    }' "$OUT/run.log"
}
both=sync:classic,events:fused,events:ahead,sync:classic,events:fused,events:ahead
new2=events:fused,events:ahead,events:fused,events:ahead
# The most telling first (past 180 s the rest is skipped): 32^4 and 48^4
# double old and new, then the other builds, single precision, 48^4 occ5.
run old 32 double 1e-10 "$both"
run new 32 double 1e-10 "$both"
# 48^4: the random field (seed 1) takes ~10 s of one host core to make:
# made once, written (3 GB), and read by the other processes.
g48=build/milcperf-g48.bin
rm -f "$g48"
run old 48 double 1e-10 "$both" --save_gauge "$g48"
gopt=()
[ -f "$g48" ] && gopt=(--gauge_file "$g48")
run new 48 double 1e-10 "$new2" ${gopt[@]+"${gopt[@]}"}
run capped 48 double 1e-10 "$new2" ${gopt[@]+"${gopt[@]}"}
run plain 48 double 1e-10 "$new2" ${gopt[@]+"${gopt[@]}"}
run old 32 single 1e-5 "$both"
run new 32 single 1e-5 "$new2"
run plain 32 double 1e-10 "$new2"
run occ5 32 double 1e-10 "$new2"
run occ3 32 double 1e-10 "$new2"
run occ5 48 double 1e-10 "$new2" ${gopt[@]+"${gopt[@]}"}
rm -f "$g48"
echo "== done $(since)"
