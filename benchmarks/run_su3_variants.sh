#!/usr/bin/env bash
# The mult_su3_nn and SU3MatVec variants on one GPU machine (issue items:
# bench_su3 targetDP/native >= 1.00 and >= 97% of triad; SU3MatVec >= 97%
# of triad from 2^20 sites). Run from anywhere:
#     OUT=$OUT bash benchmarks/run_su3_variants.sh
# Builds the CUDA configurations below (make -j$JOBS, at once), then runs
# ROUNDS interleaved rounds (the order of the runs rotating each round) of
#   - bench_stream (STREAM, targetDP and every native candidate): the Triad
#     reference of the round;
#   - bench_su3 at SU3_SITES (32^4) in soa-t256 with every variant
#     (targetDP and native), and once more with --batch 1 (tdp, soa: the
#     pair measured before); in the other configurations the targetDP
#     variants only (the native kernels do not depend on the build);
#   - bench_layout's SU3MatVec, SU3MatVecOnce, SU3MatVecPair at each of
#     LAYOUT_SIZES in soa-t256 and soa-t512.
# bench_su3 and bench_layout time BATCH calls back to back per repetition
# (one synchronisation), their in-run triad likewise. Every result is
# validated by the benchmark before it prints a number.
# Writes $OUT/su3_variants.csv (one row per variant, config, size, round:
# device,commit,config,round,bench,size,batch,kernel,impl,variant,
# best_GBs,median_GBs,triad_GBs,pct_triad,inrun_triad_GBs,pct_inrun_triad;
# triad_GBs = the best Triad, native or targetDP, of bench_stream in the
# same round) and $OUT/su3_variants.log (everything, and a summary).
# Env: TARGET (cuda; c for a test run on a CPU), JOBS (16), ROUNDS (3),
# REPS (20), BATCH (4), SU3_SITES (1048576), LAYOUT_SIZES ("1048576 4194304
# 16777216"), TRIAD_SIZE (134217728), STREAM_SIZE (134217728), DEADLINE
# (360: no new run starts after this many seconds), COMPILE_ONLY (1: build,
# then stop).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
start=$SECONDS
OUT=${OUT:-build/su3-variants}
TARGET=${TARGET:-cuda}
JOBS=${JOBS:-16}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-20}
BATCH=${BATCH:-4}
SU3_SITES=${SU3_SITES:-1048576}
LAYOUT_SIZES=${LAYOUT_SIZES:-1048576 4194304 16777216}
TRIAD_SIZE=${TRIAD_SIZE:-134217728}
STREAM_SIZE=${STREAM_SIZE:-134217728}
DEADLINE=${DEADLINE:-360}
mkdir -p "$OUT"
LOG=$OUT/su3_variants.log
CSV=$OUT/su3_variants.csv
exec > >(tee "$LOG") 2>&1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TARGETDP_QUIET=1
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain -- '*.c' '*.h' '*.cu' 2>/dev/null)" ] && commit="$commit+modified"
export BENCH_COMMIT=$commit
echo "== su3 variants: $(date -u +%FT%TZ), commit $commit, TARGET=$TARGET, $(nproc) cores"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
echo "# rounds $ROUNDS, reps $REPS, batch $BATCH, su3 $SU3_SITES sites, layout sizes $LAYOUT_SIZES"

# ---------------------------------------------------------------- builds
# name -> make arguments
declare -A CFG=(
  [soa-t256]="LAYOUT=SOA VVL=1 TPB=256"
  [soa-t128]="LAYOUT=SOA VVL=1 TPB=128"
  [soa-t512]="LAYOUT=SOA VVL=1 TPB=512"
  [soa-v2-t256]="LAYOUT=SOA VVL=2 TPB=256"
  [aosoa32-t256]="LAYOUT=AOSOA VVL=1 SAL=32 TPB=256"
)
names=(soa-t256 soa-t512 soa-t128 soa-v2-t256 aosoa32-t256)
declare -A B
pids=()
for k in "${names[@]}"; do
  # shellcheck disable=SC2086
  B[$k]=$(make -s TARGET="$TARGET" ${CFG[$k]} bench-where)
  bins=("${B[$k]}/bench_su3")
  case $k in soa-t256) bins+=("${B[$k]}/bench_stream" "${B[$k]}/bench_layout") ;;
    soa-t512) bins+=("${B[$k]}/bench_layout") ;; esac
  # shellcheck disable=SC2086
  make -s -j"$JOBS" TARGET="$TARGET" ${CFG[$k]} "${bins[@]}" >"$tmp/build-$k.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
ok=1
for k in "${names[@]}"; do
  if [ -x "${B[$k]}/bench_su3" ]; then
    echo "built $k: ${B[$k]} (${CFG[$k]})"
  else
    echo "not ok - build $k"; tail -n 30 "$tmp/build-$k.log"; ok=0
  fi
  grep -i "warning" "$tmp/build-$k.log" | head -n 5
done
echo "# builds took $((SECONDS - start)) s"
[ "${COMPILE_ONLY:-0}" = 1 ] && { [ $ok = 1 ] && echo "ok - every configuration built"; exit $((1 - ok)); }
[ $ok = 1 ] || echo "# some builds failed: their runs are skipped"

# ---------------------------------------------------------------- runs
echo "device,commit,config,round,bench,size,batch,kernel,impl,variant,best_GBs,median_GBs,triad_GBs,pct_triad,inrun_triad_GBs,pct_inrun_triad" >"$CSV"
tdp_variants=$("${B[soa-t256]}/bench_su3" --list | awk '$2 == "targetDP" { printf "%s%s", s, $1; s = "," }')
skipped=0
# run NAME CONFIG ROUND BENCH SIZE BATCH COMMAND...: one benchmark run into $tmp/NAME.csv
run() {
  local name=$1 cfg=$2 round=$3 bench=$4 size=$5 batch=$6
  shift 6
  if [ $((SECONDS - start)) -ge "$DEADLINE" ]; then
    echo "# SKIP $name: past the deadline of $DEADLINE s"
    skipped=$((skipped + 1))
    return
  fi
  [ -x "$1" ] || { echo "# SKIP $name: no binary"; return; }
  echo "-- round $round: $cfg $bench size $size batch $batch ($((SECONDS - start)) s)"
  rm -f "$tmp/$name.csv"
  local t0=$SECONDS
  if ! timeout 120 "$@" --csv "$tmp/$name.csv"; then
    echo "not ok - $name failed (rc $?): no rows"
    return
  fi
  echo "   ($((SECONDS - t0)) s)"
  # bench_stream's Triad (best of native and targetDP) is the round's reference
  if [ "$bench" = stream ]; then
    awk -F, '$13 == "Triad" && $10 == "double" && $18 > m { m = $18 } END { print m + 0 }' \
      "$tmp/$name.csv" >"$tmp/triad-$round"
  fi
  local triad
  triad=$(cat "$tmp/triad-$round" 2>/dev/null || echo 0)
  awk -F, -v OFS=, -v cfg="$cfg" -v round="$round" -v bench="$bench" -v size="$size" \
    -v batch="$batch" -v triad="$triad" '
    NR == 1 { next }
    { row[NR] = $0 }
    $13 == "Triad" { inrun = $18 }
    END {
      for (i = 2; i <= NR; i++) {
        n = split(row[i], f, ",")
        if (bench == "stream" && f[13] != "Triad") continue
        if (bench != "stream" && f[13] == "Triad") continue
        variant = bench == "su3" ? f[23] : bench == "stream" ? (f[23] == "" ? "layer" : f[23]) : f[13]
        pt = triad > 0 ? sprintf("%.1f", 100 * f[18] / triad) : ""
        pi = (bench != "stream" && inrun > 0) ? sprintf("%.1f", 100 * f[18] / inrun) : ""
        print f[4], f[22], cfg, round, bench, size, batch, f[13], f[14], variant, f[18], f[19], \
          triad, pt, (bench != "stream" ? inrun : ""), pi
      }
    }' "$tmp/$name.csv" >>"$CSV"
}

for ((r = 1; r <= ROUNDS; r++)); do
  jobs_r=()
  jobs_r+=("stream|soa-t256|stream|$STREAM_SIZE|1|${B[soa-t256]}/bench_stream --size $STREAM_SIZE --reps 10")
  jobs_r+=("su3|soa-t256|su3|$SU3_SITES|$BATCH|${B[soa-t256]}/bench_su3 --size $SU3_SITES --reps $REPS --batch $BATCH --triad-size $TRIAD_SIZE")
  jobs_r+=("su3b1|soa-t256|su3|$SU3_SITES|1|${B[soa-t256]}/bench_su3 --size $SU3_SITES --reps $REPS --batch 1 --triad-size $TRIAD_SIZE --variants tdp,soa")
  for k in soa-t512 soa-t128 soa-v2-t256 aosoa32-t256; do
    jobs_r+=("su3-$k|$k|su3|$SU3_SITES|$BATCH|${B[$k]}/bench_su3 --size $SU3_SITES --reps $REPS --batch $BATCH --triad-size $TRIAD_SIZE --variants $tdp_variants")
  done
  for k in soa-t256 soa-t512; do
    for s in $LAYOUT_SIZES; do
      jobs_r+=("layout-$k-$s|$k|layout|$s|$BATCH|${B[$k]}/bench_layout --size $s --triad-size $TRIAD_SIZE --reps $REPS --batch $BATCH --kernels SU3MatVec,SU3MatVecOnce,SU3MatVecPair")
    done
  done
  # stream first (the round's reference), then the others rotated by the round
  n=${#jobs_r[@]}
  order=(0)
  for ((i = 0; i < n - 1; i++)); do order+=($((1 + (i + r - 1) % (n - 1)))); done
  for i in "${order[@]}"; do
    IFS='|' read -r name cfg bench size batch cmd <<<"${jobs_r[$i]}"
    # shellcheck disable=SC2086
    run "$name-r$r" "$cfg" "$r" "$bench" "$size" "$batch" $cmd
  done
done

# ---------------------------------------------------------------- summary
echo "== summary ($((SECONDS - start)) s; $skipped runs skipped for the deadline)"
echo "# per bench and size: for each config/variant the best of its rounds' best and median"
echo "# GB/s, fastest first; % of triad"
echo "# against the best bench_stream Triad of all rounds (the in-run triad's best beside)"
awk -F, '
  NR == 1 { next }
  $5 == "stream" { if ($11 > triad) triad = $11; next }
  {
    key = $5 "," $6 "," $7; id = $3 "/" $10
    k2 = key SUBSEP $9 SUBSEP id
    if ($11 > best[k2]) best[k2] = $11
    if ($12 > med[k2]) med[k2] = $12
    if ($15 > inrun[key]) inrun[key] = $15
    if ($11 > top[key SUBSEP $9]) { top[key SUBSEP $9] = $11; topid[key SUBSEP $9] = id }
    keys[key] = 1
  }
  END {
    printf "0\t1e30\tbench_stream Triad (best over rounds): %.1f GB/s\n", triad
    for (key in keys) {
      split(key, kk, ",")
      printf "%s\t1e30\t-- %s, %s sites, batch %s (in-run triad %.1f GB/s)\n", key, kk[1], kk[2], kk[3], inrun[key]
      for (k2 in best) {
        split(k2, p, SUBSEP)
        if (p[1] != key) continue
        printf "%s\t%f\t   %-9s %-34s %9.1f best %9.1f median %6.1f%% triad\n", key, best[k2], p[2], p[3], best[k2], med[k2], 100 * best[k2] / triad
      }
      t = top[key SUBSEP "targetDP"]; nv = top[key SUBSEP "native"]
      printf "%s\t-1\t   best targetDP %s %.1f GB/s (%.1f%% of triad)", key, topid[key SUBSEP "targetDP"], t, 100 * t / triad
      if (nv > 0) printf "; best native %s %.1f GB/s; targetDP/native %.4f", topid[key SUBSEP "native"], nv, t / nv
      printf "\n"
    }
  }' "$CSV" | sort -t "$(printf '\t')" -k1,1 -k2,2gr | cut -f3-
echo "== done: $CSV ($(($(wc -l <"$CSV") - 1)) rows), $LOG"
