#!/usr/bin/env bash
# Every benchmark on the lent GPU machine, in one go (about 5 minutes; a
# time budget skips the optional steps rather than run past 8):
#
#   OUT=/some/folder benchmarks/run_device.sh       (from the repository root)
#
#   1. STREAM, CUDA build on the GPU (double, then float), and bench_blocks
#      (scans, compaction, 3-D box launches beside a copy)
#   2. the layout x VVL sweep on the GPU at TPB 256, plus a TPB sweep of SoA VVL 1
#      (not 1024: the D3Q19 collision's registers do not fit a 1024-thread block)
#   3. STREAM, C build on all host cores: gcc-openmp (-march=native, AoSoA
#      VVL 4), the same at SoA VVL 1, and gcc-avx512 (AoSoA VVL 8) if the
#      CPU has AVX-512; bench_blocks with gcc-openmp
#   4. the layout x VVL sweep on the host (gcc-openmp; gcc-avx512 if time allows)
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

t0=$(date +%s)
budget=${BENCH_BUDGET_S:-330} # seconds after which optional steps are skipped
elapsed() { echo $(($(date +%s) - t0)); }
failed=()
step() { # step NAME COMMAND...: run, log and record one step
  local name=$1 rc
  shift
  echo
  echo "=== [$(elapsed) s] $name"
  echo "\$ $*"
  "$@"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "=== FAILED (exit $rc): $name"
    failed+=("$name")
  fi
  return "$rc"
}
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
gpu_stream=() host_stream=(--size $((1 << 27))) sweep=() # 1 GiB arrays on the host: beyond a big L3
if [ "${BENCH_QUICK:-0}" = 1 ]; then
  gpu_stream=(--size 1003 --reps 2) host_stream=(--size 1003 --reps 2)
  sweep=(-- --size 1003 --triad-size 1003 --reps 2)
fi

# --- GPU ------------------------------------------------------------------
if step "build CUDA (preset defaults: SoA VVL 1 TPB 256)" build TARGET=cuda; then
  b=$(where TARGET=cuda)
  step "STREAM CUDA double" "$b/bench_stream" "${gpu_stream[@]}" --csv "$stream_csv"
  step "STREAM CUDA float" "$b/bench_stream" "${gpu_stream[@]}" --float --csv "$stream_csv"
  # scans (goal: >= 80% of Copy at 2^27), compaction, 3-D box vs 1-D launches
  step "blocks CUDA" "$b/bench_blocks" "${gpu_stream[@]}" --csv "$blocks_csv"
fi
step "layout sweep CUDA" benchmarks/sweep_layout.sh --target cuda --jobs 8 \
  --layouts "AOS SOA AOSOA" --vvls "1 2 4 8 16" --tpbs 256 \
  --also "SOA:1:64 SOA:1:128 SOA:1:512" --csv "$layout_csv" "${sweep[@]}"

# --- host CPU: all cores, one thread per core, spread --------------------
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_PROC_BIND=spread OMP_PLACES=cores
echo "host runs: OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES"
for cfg in "gcc-openmp" "gcc-openmp LAYOUT=SOA VVL=1" "gcc-avx512"; do
  read -r preset vars <<<"$cfg"
  if [ "$preset" = gcc-avx512 ] && ! grep -qw avx512f /proc/cpuinfo; then
    echo "=== no avx512f on this CPU: no gcc-avx512 run"
    continue
  fi
  # shellcheck disable=SC2086  # vars is a list of make variables
  if step "build C $cfg" build CONFIG=$preset $vars; then
    # shellcheck disable=SC2086
    b=$(where CONFIG=$preset $vars)
    step "STREAM C $cfg" "$b/bench_stream" "${host_stream[@]}" --csv "$stream_csv"
    if [ "$cfg" = gcc-openmp ]; then
      step "blocks C $cfg" "$b/bench_blocks" "${host_stream[@]}" --csv "$blocks_csv"
    fi
  fi
done
step "layout sweep C gcc-openmp" benchmarks/sweep_layout.sh --target c --config gcc-openmp \
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
if [ ${#failed[@]} -gt 0 ]; then
  echo "=== ${#failed[@]} step(s) failed or skipped:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "=== all steps passed"
