#!/usr/bin/env bash
# Every benchmark on the lent GPU machine, in one go (about 7 minutes; a
# time budget skips the host layout sweeps rather than run past 8):
#
#   OUT=/some/folder benchmarks/run_device.sh       (from the repository root)
#
#   1. STREAM in BENCH_ROUNDS (default 3) interleaved rounds: each round runs
#      the CUDA build on the GPU (double, then float; SoA VVL 1, then VVL 2
#      and 4: several sites per thread, lanes a block apart) and the C build on all
#      host cores: gcc-openmp (-march=native, AoSoA VVL 4), the same at SoA
#      VVL 1, gcc-avx512 (AoSoA VVL 8) if the CPU has AVX-512, clang-openmp
#      if clang is there. Each run times its native candidates and keeps
#      the fastest (native best), then native and targetDP interleaved.
#      Then bench_blocks (scans, compaction, 3-D box launches beside a copy)
#      on the GPU and with gcc-openmp.
#   2. the layout x VVL sweep on the GPU at TPB 256, plus a TPB sweep of SoA VVL 1
#      (not 1024: the D3Q19 collision's registers do not fit a 1024-thread block)
#   3. the layout x VVL sweep on the host (gcc-openmp; gcc-avx512 if time allows)
# Without a GPU (nvidia-smi lists none) the CUDA steps are recorded as
# skipped and the host steps still run.
#
# Writes to $OUT (default ./bench-out): stream.csv, layout.csv, blocks.csv, tables.md
# (plot.py's tables, if python3 is there) and run_device.log (machine,
# commit, every command and its output). Charts: run plot.py on the CSVs
# wherever matplotlib is (see docs/performance.md). A failing step is
# recorded and the script goes on; the exit status is 1 if any failed.
# BENCH_QUICK=1 runs everything at tiny sizes: a test of the script itself.
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/bench-out}
mkdir -p "$out" || exit 1
exec > >(tee "$out/run_device.log") 2>&1

. benchmarks/steps.sh
budget=${BENCH_BUDGET_S:-330} # seconds after which optional steps are skipped
optional() { # like step, unless the time budget is spent
  if [ "$(elapsed)" -lt "$budget" ]; then
    step "$@"
  else
    echo "=== SKIPPED (past the ${budget} s budget): $1"
    failed+=("$1 (skipped: time)")
  fi
}
where() { make -s "$@" bench-where; }
build() { make -s -j"$(nproc)" "$@" bench-build; }

echo "=== targetDP benchmarks on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git status --porcelain 2>/dev/null | grep -q . && echo ' (working tree modified)')"
echo "command: OUT=$out benchmarks/run_device.sh"
nvidia-smi --query-gpu=name --format=csv
nvidia-smi --query-gpu=driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>/dev/null
lscpu | head -20
lscpu | grep -E '^L[23] cache'
echo "nproc: $(nproc)"
"${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}" --version | tail -n 2
gcc --version | head -n 1

stream_csv=$out/stream.csv layout_csv=$out/layout.csv blocks_csv=$out/blocks.csv
gpu_stream=() host_stream=(--size $((1 << 26)) --reps 10) sweep=(-- --reps 10) # 512 MiB arrays on the host: far beyond its L3
if [ "${BENCH_QUICK:-0}" = 1 ]; then
  gpu_stream=(--size 1003 --reps 2) host_stream=(--size 1003 --reps 2)
  sweep=(-- --size 1003 --triad-size 1003 --reps 2)
fi

# --- STREAM: GPU and host, in interleaved rounds --------------------------
# The host is shared and noisy: one run is not a result. Each round runs
# every STREAM build once (GPU double, GPU float, then each host build),
# so a disturbance hits one round of every build rather than all rounds of
# one; plot.py combines the rounds (best of bests, median of medians and of
# the paired ratios, with their range). Every run first times all native
# candidates and keeps the fastest (bench_stream's output lists them).
rounds=${BENCH_ROUNDS:-3}
# BENCH_COMMIT given (the commit of the tree sent to the GPU machine, whose
# copy of .git can be older than its working tree) is taken as it is
export BENCH_COMMIT
[ -n "${BENCH_COMMIT:-}" ] && commit_given=1
BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
[ -n "${commit_given:-}" ] || { git status --porcelain 2>/dev/null | grep -q . && BENCH_COMMIT="$BENCH_COMMIT+modified"; }
skipped=()
gpu=0
if nvidia-smi -L >/dev/null 2>&1 && nvidia-smi -L | grep -q GPU; then
  gpu=1
else
  echo "=== SKIPPED (no GPU: nvidia-smi lists none): every CUDA step"
  skipped+=("CUDA steps (no GPU)")
fi
host_cfgs=("gcc-openmp" "gcc-openmp LAYOUT=SOA VVL=1")
grep -qw avx512f /proc/cpuinfo && host_cfgs+=("gcc-avx512")
if command -v clang >/dev/null 2>&1; then host_cfgs+=("clang-openmp"); fi
host_env=(env OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(nproc)}" OMP_PROC_BIND=spread OMP_PLACES=cores)
echo "host runs: ${host_env[*]:1}"

gpu_b="" gpu_vb=() host_b=()
if [ "$gpu" = 1 ] && step "build CUDA (preset defaults: SoA VVL 1 TPB 256)" build TARGET=cuda; then
  gpu_b=$(where TARGET=cuda)
fi
# Several sites per thread, lanes a block apart (coalesced; issue 10 item 2):
# the same STREAM kernels at VVL 2 and 4, against the same best native.
for v in 2 4; do
  if [ "$gpu" = 1 ] && step "build CUDA SoA VVL $v" build TARGET=cuda LAYOUT=SOA VVL=$v; then
    gpu_vb+=("$(where TARGET=cuda LAYOUT=SOA VVL=$v)|VVL $v")
  fi
done
for cfg in "${host_cfgs[@]}"; do
  read -r preset vars <<<"$cfg"
  # shellcheck disable=SC2086  # vars is a list of make variables
  if step "build C $cfg" build CONFIG=$preset $vars; then
    # shellcheck disable=SC2086
    host_b+=("$(where CONFIG=$preset $vars)|$cfg")
  fi
done
for r in $(seq 1 "$rounds"); do
  if [ -n "$gpu_b" ]; then
    step "STREAM CUDA double, round $r" "$gpu_b/bench_stream" "${gpu_stream[@]}" --csv "$stream_csv"
    step "STREAM CUDA float, round $r" "$gpu_b/bench_stream" "${gpu_stream[@]}" --float \
      --csv "$stream_csv"
  fi
  for gb in "${gpu_vb[@]}"; do
    step "STREAM CUDA double ${gb#*|}, round $r" "${gb%%|*}/bench_stream" "${gpu_stream[@]}" \
      --csv "$stream_csv"
    step "STREAM CUDA float ${gb#*|}, round $r" "${gb%%|*}/bench_stream" "${gpu_stream[@]}" \
      --float --csv "$stream_csv"
  done
  for hb in "${host_b[@]}"; do
    step "STREAM C ${hb#*|}, round $r" "${host_env[@]}" "${hb%%|*}/bench_stream" \
      "${host_stream[@]}" --csv "$stream_csv"
  done
done
# The D2Q9 port (bench_d2q9) against its serial original on 1 and 2 host
# threads: the default build, SoA VVL 8, 4 and 1 (docs/performance.md,
# "the default CPU idiom"; each run prints the recipe port and the split one).
d2q9_args=(--size 2048 --reps 10)
[ "${BENCH_QUICK:-0}" = 1 ] && d2q9_args=(--size 67 --reps 2)
for cfg in "gcc-openmp" "gcc-openmp LAYOUT=SOA VVL=8" "gcc-openmp LAYOUT=SOA VVL=4" \
  "gcc-openmp LAYOUT=SOA VVL=1"; do
  read -r preset vars <<<"$cfg"
  # shellcheck disable=SC2086
  if step "build C $cfg" build CONFIG=$preset $vars; then
    # shellcheck disable=SC2086
    b=$(where CONFIG=$preset $vars)
    for t in 1 2; do
      step "D2Q9 C $cfg, $t thread(s)" env OMP_NUM_THREADS=$t OMP_PROC_BIND=close \
        OMP_PLACES=cores "$b/bench_d2q9" "${d2q9_args[@]}" --csv "$out/d2q9.csv"
    done
  fi
done
# scans (goal: >= 80% of Copy at 2^27), compaction, 3-D box vs 1-D launches
if [ -n "$gpu_b" ]; then
  step "blocks CUDA" "$gpu_b/bench_blocks" "${gpu_stream[@]}" --csv "$blocks_csv"
fi
if [ ${#host_b[@]} -gt 0 ]; then
  step "blocks C ${host_b[0]#*|}" "${host_env[@]}" "${host_b[0]%%|*}/bench_blocks" \
    "${host_stream[@]}" --csv "$blocks_csv"
fi
[ "$gpu" = 1 ] && step "layout sweep CUDA" benchmarks/sweep_layout.sh --target cuda --jobs 8 \
  --layouts "AOS SOA AOSOA" --vvls "1 2 4 8 16" --tpbs 256 \
  --also "SOA:1:64 SOA:1:128 SOA:1:512" --csv "$layout_csv" "${sweep[@]}"

# --- host CPU layout sweeps: all cores, one thread per core, spread --------
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_PROC_BIND=spread OMP_PLACES=cores
optional "layout sweep C gcc-openmp" benchmarks/sweep_layout.sh --target c --config gcc-openmp \
  --csv "$layout_csv" "${sweep[@]}"
if grep -qw avx512f /proc/cpuinfo; then
  optional "layout sweep C gcc-avx512" benchmarks/sweep_layout.sh --target c \
    --config gcc-avx512 --csv "$layout_csv" "${sweep[@]}"
fi

# --- tables ---------------------------------------------------------------
py=$(command -v python3 || true)
if [ -n "$py" ]; then
  step "tables" "$py" benchmarks/plot.py --stream "$stream_csv" --layout "$layout_csv" \
    --markdown "$out/tables.md"
fi

echo
echo "=== done in $(elapsed) s; wrote: $(cd "$out" && ls | tr '\n' ' ')"
if [ ${#skipped[@]} -gt 0 ]; then
  echo "=== skipped (recorded, not failures):"
  printf '  %s\n' "${skipped[@]}"
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "=== ${#failed[@]} step(s) failed or skipped:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "=== all steps passed"
