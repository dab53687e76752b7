#!/usr/bin/env bash
# SU(3) mat-vec at 2^20 sites against the triad (issue 10 item 5: ">= 97% of
# triad from 2^20 sites up"), on one GPU machine, in under 4 minutes:
#     BENCH_COMMIT=<hash> OUT=<folder> bash benchmarks/run_su3mv_2e20.sh
# Builds bench_layout for CUDA, SoA VVL 1 TPB 256 (every variant is a
# kernel of that one binary: the block-size variants are TDP_KERNEL_TPB
# kernels launched by TDP_LAUNCH_TPB), then ROUNDS interleaved rounds (the
# order of the runs rotating each round) of bench_layout's SU(3) kernels:
#   b4      --size 2^20 --batch 4: the measurement of docs/performance.md
#           (Triad on 2^27 doubles, 3.2 GB a call: ~1 ms, SU3 ~80 us)
#   b4m     the same with the Triad on 10 * 2^20 doubles: the same 240 MiB a
#           call as the SU(3) kernels at 2^20 sites, so both pay the same
#           launch, ramp and tail, and the same host timing overhead
#   b32     --batch 32: the host's launch and synchronisation latency (timed
#           with the kernels: host timer around K calls and one sync)
#           spread over 32 calls rather than 4
#   s22-b4  --size 2^22 --batch 4, the check at 4x the sites
# Every kernel's result is validated by bench_layout (every site, exactly)
# before any number is printed; a run that fails prints no rows.
# Writes $OUT/su3mv_2e20.csv (device,commit,round,run,size,batch,
# triad_size,kernel,best_GBs,median_GBs,triad_GBs,pct_triad) and
# $OUT/su3mv_2e20.log with a summary per run: the min, median and max over
# the rounds of % of triad (best GB/s / best triad GB/s of the same run).
# Env: TARGET (cuda; c for a test on a CPU), JOBS (16), ROUNDS (3), REPS
# (20), QUICK (1: tiny sizes, for a CPU test), DEADLINE (170: no run starts
# after this many seconds).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
start=$SECONDS
OUT=${OUT:-build/su3mv-2e20}
TARGET=${TARGET:-cuda}
JOBS=${JOBS:-16}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-20}
DEADLINE=${DEADLINE:-170}
S20=$((1 << 20)) S22=$((1 << 22)) TBIG=$((1 << 27))
if [ "${QUICK:-0}" = 1 ]; then S20=4099 S22=16411 TBIG=$((1 << 20)) REPS=2; fi
TMATCH=$((10 * S20)) # 24 bytes an element: 240 bytes a site
mkdir -p "$OUT" || exit 2
LOG=$OUT/su3mv_2e20.log
CSV=$OUT/su3mv_2e20.csv
exec > >(tee "$LOG") 2>&1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TARGETDP_QUIET=1
if [ -z "${BENCH_COMMIT:-}" ]; then
  BENCH_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  [ -n "$(git status --porcelain -- '*.c' '*.h' '*.cu' 2>/dev/null)" ] && BENCH_COMMIT="$BENCH_COMMIT+modified"
fi
export BENCH_COMMIT
echo "== su3mv 2^20: $(date -u +%FT%TZ), commit $BENCH_COMMIT, TARGET=$TARGET, $(nproc) cores"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
echo "# rounds $ROUNDS, reps $REPS; sizes $S20 and $S22; triad $TBIG (matched: $TMATCH) doubles"

# ---------------------------------------------------------------- build
[ "$TARGET" = cuda ] && CFG="LAYOUT=SOA VVL=1 TPB=256" || CFG="LAYOUT=SOA VVL=8 TPB=128"
# shellcheck disable=SC2086
BDIR=$(make -s TARGET="$TARGET" $CFG bench-where)
BIN=$BDIR/bench_layout
# shellcheck disable=SC2086
if ! make -s -j"$JOBS" TARGET="$TARGET" $CFG "$BIN" >"$tmp/build.log" 2>&1 || [ ! -x "$BIN" ]; then
  echo "not ok - build ($CFG)"
  tail -n 30 "$tmp/build.log"
  exit 1
fi
grep -i warning "$tmp/build.log" | head -n 5
echo "built $BIN ($CFG) in $((SECONDS - start)) s"

KERNELS=SU3MatVec,SU3MatVecOnce,SU3MatVecPair,SU3MatVecPairT128,SU3MatVecPairT512,SU3MatVecPairT1024
KERNELS=$KERNELS,SU3MatVecPairOcc,SU3MatVecPairOccGrid
KERNELS=$KERNELS,SU3MatVecRow,SU3MatVecRowT192,SU3MatVecRowT384,SU3MatVecRowT768

# ---------------------------------------------------------------- runs
echo "device,commit,round,run,size,batch,triad_size,kernel,best_GBs,median_GBs,triad_GBs,pct_triad" >"$CSV"
runs=("b4|$S20|4|$TBIG" "b4m|$S20|4|$TMATCH" "b32|$S20|32|$TBIG" "s22-b4|$S22|4|$TBIG")
skipped=0 failed=0
for ((r = 1; r <= ROUNDS; r++)); do
  n=${#runs[@]}
  for ((i = 0; i < n; i++)); do
    IFS='|' read -r name size batch tsize <<<"${runs[$(((i + r - 1) % n))]}"
    if [ $((SECONDS - start)) -ge "$DEADLINE" ]; then
      echo "# SKIP round $r $name: past the deadline of $DEADLINE s"
      skipped=$((skipped + 1))
      continue
    fi
    echo "-- round $r: $name: --size $size --batch $batch --triad-size $tsize ($((SECONDS - start)) s)"
    rm -f "$tmp/run.csv"
    if ! timeout 45 "$BIN" --size "$size" --batch "$batch" --triad-size "$tsize" --reps "$REPS" \
      --kernels "$KERNELS" --csv "$tmp/run.csv"; then
      echo "not ok - round $r $name failed: no rows"
      failed=$((failed + 1))
      continue
    fi
    awk -F, -v OFS=, -v round="$r" -v run="$name" -v size="$size" -v batch="$batch" -v ts="$tsize" '
      NR == 1 { next }
      $13 == "Triad" { triad = $18 }
      { row[NR] = $0 }
      END {
        for (i = 2; i <= NR; i++) {
          split(row[i], f, ",")
          if (f[13] == "Triad") continue
          print f[4], f[22], round, run, size, batch, ts, f[13], f[18], f[19], triad, \
            sprintf("%.2f", 100 * f[18] / triad)
        }
      }' "$tmp/run.csv" >>"$CSV"
  done
done

# ---------------------------------------------------------------- summary
echo "== summary ($((SECONDS - start)) s; $failed runs failed, $skipped skipped for the deadline)"
echo "# % of the same run's Triad (best GB/s over best GB/s), min / median / max over the rounds;"
echo "# b4: as docs/performance.md; b4m: Triad of the same bytes; b32: 32 calls a timing"
awk -F, '
  NR == 1 { next }
  {
    key = $4 SUBSEP $8
    n[key]++; v[key, n[key]] = $12; gbs[key, n[key]] = $9
    if (!(($4) in seen)) { seen[$4] = ++nrun; runname[nrun] = $4 }
    if (!(($8) in kseen)) { kseen[$8] = ++nk; kn[nk] = $8 }
  }
  function sortn(a, m,   i, j, t) {
    for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  }
  END {
    printf "%-22s", "kernel"
    for (r = 1; r <= nrun; r++) printf " %22s", runname[r]
    printf "\n"
    for (k = 1; k <= nk; k++) {
      printf "%-22s", kn[k]
      for (r = 1; r <= nrun; r++) {
        key = runname[r] SUBSEP kn[k]; m = n[key]
        if (!m) { printf " %22s", "-"; continue }
        delete a
        for (i = 1; i <= m; i++) a[i] = v[key, i] + 0
        sortn(a, m)
        printf " %6.1f %6.1f %6.1f   ", a[1], a[int((m + 1) / 2)], a[m]
      }
      printf "\n"
    }
  }' "$CSV"
echo "== done: $CSV ($(($(wc -l <"$CSV") - 1)) rows), $LOG ($((SECONDS - start)) s)"
[ "$failed" = 0 ]
