#!/usr/bin/env bash
# STREAM with the streaming-store form (TDP_STREAM_LANES) on the device
# machine, in under two minutes (budgets: no host run starts after 80 s,
# no CUDA run after 105 s), from the repository root:
#
#   OUT=/some/folder benchmarks/run_stream_nt.sh
#
# 1. builds bench_stream for the host (gcc-openmp: -march=native, AoSoA
#    VVL 4; gcc-avx512: AoSoA VVL 8) and for CUDA (SoA VVL 1 and 4), all
#    builds before any timing;
# 2. BENCH_ROUNDS (default 3) interleaved rounds of the host runs, one
#    thread per core (OMP_PROC_BIND=spread OMP_PLACES=cores), double: each
#    run validates every result, picks the fastest native candidate
#    (streaming stores among them) and times targetDP against it;
# 3. CUDA STREAM (double) at SoA VVL 1 and 4, to show the CUDA side
#    unchanged (plain stores there: TDP_STREAM_LANES, docs/api.md).
# Writes $OUT/stream_nt.log (every command and its output), stream_nt.csv
# and summary.txt (targetDP/native per kernel, run and round; the median of
# the rounds per kernel and preset).
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/bench-out}
mkdir -p "$out" || exit 1
exec > >(tee "$out/stream_nt.log") 2>&1
rounds=${BENCH_ROUNDS:-3}
host_args=(--size $((1 << 25)) --reps 10) # 256 MiB arrays: far beyond the host's L3
gpu_args=(--size $((1 << 26)) --reps 10)  # 512 MiB arrays: 10x the H100's L2
[ "${BENCH_QUICK:-0}" = 1 ] && host_args=(--size 1003 --reps 2) gpu_args=(--size 1003 --reps 2)
csv=$out/stream_nt.csv
echo "=== $(hostname) $(date -u '+%F %T UTC') commit $(git rev-parse --short HEAD 2>/dev/null)"
lscpu | grep -E 'Model name|^CPU\(s\)|Flags' | cut -c1-200
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null

t0=$(date +%s)
budget=${BENCH_BUDGET_S:-80}   # seconds after which no further host run starts
gbudget=${BENCH_GPU_BUDGET_S:-105} # and no further CUDA run
elapsed() { echo $(($(date +%s) - t0)); }
hosts=(gcc-openmp)
grep -q avx512f /proc/cpuinfo && hosts+=(gcc-avx512)
gpu=0
nvidia-smi -L >/dev/null 2>&1 && gpu=1
# every build at once (nothing is timed yet), each with a share of the cores
declare -A bin
cfgs=()
for c in "${hosts[@]}"; do cfgs+=("CONFIG=$c"); done
[ "$gpu" = 1 ] && cfgs+=("TARGET=cuda LAYOUT=SOA VVL=1" "TARGET=cuda LAYOUT=SOA VVL=4")
jobs_each=$(($(nproc) / ${#cfgs[@]} + 1))
pids=()
for cfg in "${cfgs[@]}"; do
  # shellcheck disable=SC2086
  (b=$(make -s $cfg bench-where)/bench_stream
   make -s -j"$jobs_each" $cfg "$b" >"$out/build_$(echo "$cfg" | tr -c 'A-Za-z0-9' _).log" 2>&1) &
  pids+=($!)
done
wait "${pids[@]}" # (a plain wait would also wait for the tee of the log)
for cfg in "${cfgs[@]}"; do
  # shellcheck disable=SC2086
  b=$(make -s $cfg bench-where)/bench_stream
  key=$(echo "$cfg" | sed 's/CONFIG=//; s/TARGET=cuda LAYOUT=SOA VVL=/cuda/')
  if [ -x "$b" ]; then bin[$key]=$b; else echo "BUILD FAILED: $cfg"; fi
done
echo "=== [$(elapsed) s] built: ${!bin[*]}"
# the objects of the streaming kernels: vmovntpd in targetDP's Copy/Mul/Add/Triad
for c in "${hosts[@]}"; do
  o=$(make -s CONFIG=$c bench-where)/obj/benchmarks/stream.o
  echo "$c: $(objdump -d "$o" | awk '/^[0-9a-f]+ </{f=$2} /vmovntpd/ && f ~ /tdp_/{n[f]++} END{for (k in n) {printf "%s%s x%d", s, k, n[k]; s = ", "}}')"
done

for r in $(seq 1 "$rounds"); do
  for c in "${hosts[@]}"; do
    [ -n "${bin[$c]:-}" ] || continue
    [ "$(elapsed)" -lt "$budget" ] || { echo "=== SKIPPED (past ${budget} s): round $r $c"; continue; }
    echo "=== [$(elapsed) s] round $r host $c"
    OMP_PROC_BIND=spread OMP_PLACES=cores "${bin[$c]}" "${host_args[@]}" --csv "$csv" |
      tee "$out/host_${c}_r$r.txt"
  done
done
if [ "$gpu" = 1 ]; then
  for v in 1 4; do
    [ -n "${bin[cuda$v]:-}" ] || continue
    [ "$(elapsed)" -lt "$gbudget" ] || { echo "=== SKIPPED (past ${gbudget} s): cuda VVL $v"; continue; }
    echo "=== [$(elapsed) s] cuda SoA VVL $v"
    "${bin[cuda$v]}" "${gpu_args[@]}" --csv "$csv" | tee "$out/cuda_vvl${v}.txt"
  done
fi
# targetDP/native per kernel: every run, and the median over the rounds
{
  for f in "$out"/host_*_r*.txt "$out"/cuda_vvl*.txt; do
    [ -f "$f" ] || continue
    awk -v f="$(basename "$f" .txt)" '$1 ~ /^(Copy|Mul|Add|Triad|Dot|Nstream)$/ && NF == 7 {
      printf "%-22s %-8s %s\n", f, $1, $6 }' "$f"
  done
} | tee "$out/summary.txt"
echo "=== [$(elapsed) s] medians over the rounds (host)"
for c in "${hosts[@]}"; do
  for k in Copy Mul Add Triad Dot Nstream; do
    grep "^host_${c}_r" "$out/summary.txt" | awk -v k=$k '$2 == k {print $3}' | sort -g |
      awk -v c=$c -v k=$k '{v[NR] = $1} END {if (NR) printf "%-11s %-8s median %s (range %s-%s, %d rounds)\n", c, k, v[int((NR + 1) / 2)], v[1], v[NR], NR}'
  done
done | tee -a "$out/summary.txt"
