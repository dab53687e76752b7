#!/usr/bin/env bash
# The legacy-kernel corpus (issue 28) on the lent GPU machine (16-core
# host, H100, nvcc, gcc 13; clang if carried), in about four minutes:
#
#   OUT=/some/folder benchmarks/corpus/run_device.sh      (from the repository root)
#
#   1. builds, in parallel: the CUDA build (nvcc, the default TARGET=cuda
#      configuration) and a host build per compiler: gcc (gcc-openmp) and,
#      if .deps/clang (or CORPUS_CLANG_DEBS) holds scripts/clang_carry.sh's
#      .deb files, the carried clang, 14 or the version fetched
#      (clang-openmp), else any clang in PATH;
#   2. every build validated at small sizes (3001 and 50 sites: the short
#      strides and a lattice of a few sites), every shape;
#   3. CORPUS_ROUNDS (default 3) interleaved rounds; each round runs the GPU
#      (--mb GPU_MB, default 512: beyond the H100's 50 MB L2) and every host
#      build at 1 thread and at all cores (--mb HOST_MB, default 64, --reps
#      HOST_REPS, default 4; the GPU --reps GPU_REPS, default 10). Every
#      run validates every implementation against the serial original
#      before it writes a CSV row (a wrong shape gets no row, the others
#      go on). A round is started only if, judged by the last one, it ends
#      before CORPUS_END_S (default 225) seconds: about four minutes in all,
#      with at least one round.
#   4. the tables (plot.py: per build and thread count, every shape's
#      implementations beside serial and the fastest native) in corpus.md,
#      corpus.png where matplotlib is, and a compact summary printed last:
#      per configuration the worst and median port / native, best proto /
#      native, port / serial, and a line per shape.
# Writes to $OUT (default ./bench-out-corpus-device): corpus.csv, corpus.md,
# run_device.log (machine, commit, every command), build-*.log, run-*.log.
# Without a GPU (nvidia-smi lists none) the GPU runs are skipped and
# recorded. The exit status is 1 if any step failed. CORPUS_QUICK=1: tiny
# sizes and one round (a test of the script). CORPUS_SHAPE=a,b: those
# shapes only (bench_corpus --shape), e.g. CORPUS_SHAPE=heat3d,stencil27
# CORPUS_ROUNDS=5 for a targeted check in about two minutes.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-$PWD/bench-out-corpus-device}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
exec > >(tee "$out/run_device.log") 2>&1
. benchmarks/corpus/lib.sh
failed=() builds=()
t0=$(date +%s)
rounds=${CORPUS_ROUNDS:-3} end=${CORPUS_END_S:-225}
gpu_args=(--mb "${GPU_MB:-512}" --reps "${GPU_REPS:-10}")
host_args=(--mb "${HOST_MB:-64}" --reps "${HOST_REPS:-4}")
check_args=(--sites 3001 --reps 2)
if [ "${CORPUS_QUICK:-0}" = 1 ]; then
  gpu_args=(--sites 20000 --reps 2) host_args=(--sites 20000 --reps 2) rounds=1
fi
tiny_args=(--sites 50 --reps 1)
if [ -n "${CORPUS_SHAPE:-}" ]; then
  gpu_args+=(--shape "$CORPUS_SHAPE") host_args+=(--shape "$CORPUS_SHAPE")
  check_args+=(--shape "$CORPUS_SHAPE") tiny_args+=(--shape "$CORPUS_SHAPE")
fi
nthreads=$(nproc)

export BENCH_COMMIT
BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
echo "=== targetDP corpus on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), commit $BENCH_COMMIT"
echo "command: OUT=$out benchmarks/corpus/run_device.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>/dev/null
lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA node\(s\)|L2|L3)'
echo "nproc: $nthreads"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$nvcc" --version 2>/dev/null | tail -n 2
gcc --version | head -n 1

# --- clang: the carried one (scripts/clang_carry.sh), else the machine's ---
corpus_clang || failed+=("clang unpack")
command -v clang >/dev/null 2>&1 && echo "clang: $(command -v clang), $(clang --version | head -n 1)"

# --- 1. builds: CUDA in the background, the host compilers beside it ------
gpu=0
nvidia-smi -L 2>/dev/null | grep -q GPU && gpu=1
cuda_dir=$(make -s TARGET=cuda bench-where)
(make -s -j"$nthreads" TARGET=cuda NVCC="$nvcc" corpus-build >"$out/build-cuda.log" 2>&1) &
cuda_pid=$!
corpus_build gcc
command -v clang >/dev/null 2>&1 && corpus_build clang
if wait "$cuda_pid"; then
  echo "=== [$(($(date +%s) - t0)) s] CUDA build done: $cuda_dir/bench_corpus"
  [ "$gpu" = 1 ] || { echo "=== no GPU here: the GPU runs are skipped"; failed+=("no GPU"); }
else
  echo "=== FAILED: CUDA build (log: $out/build-cuda.log)"
  grep -m 5 -E 'error' "$out/build-cuda.log"
  failed+=("build cuda")
  gpu=0
fi

# --- 2. validation at small sizes (no CSV rows: a separate folder) ---------
csv_out=$out
out=$out/check
mkdir -p "$out"
if [ "$gpu" = 1 ]; then
  corpus_run "$cuda_dir" check-cuda "" "${check_args[@]}"
  corpus_run "$cuda_dir" check-cuda-tiny "" "${tiny_args[@]}"
fi
for b in "${builds[@]}"; do
  read -r cc dir <<<"$b"
  corpus_run "$dir" "check-$cc" "$nthreads" "${check_args[@]}"
  corpus_run "$dir" "check-$cc-tiny" 1 "${tiny_args[@]}"
done
out=$csv_out

# --- 3. interleaved rounds ---------------------------------------------------
for ((r = 1; r <= rounds; r++)); do
  now=$(date +%s)
  # another round only if, judged by the last one, it ends by $end s
  if [ "$r" -gt 1 ] && [ $((now - t0 + now - round_start)) -gt "$end" ]; then
    echo "=== round $r and later skipped: a round takes $((now - round_start)) s, the end is at $end s"
    failed+=("rounds $r-$rounds (time)")
    break
  fi
  round_start=$now
  [ "$gpu" = 1 ] && corpus_run "$cuda_dir" "cuda-r$r" "" "${gpu_args[@]}"
  for b in "${builds[@]}"; do
    read -r cc dir <<<"$b"
    for t in 1 "$nthreads"; do
      corpus_run "$dir" "$cc-t$t-r$r" "$t" "${host_args[@]}"
    done
  done
done

# --- 4. tables ---------------------------------------------------------------
echo
corpus_table
echo "=== [$(($(date +%s) - t0)) s] done; results in $out"
if [ ${#failed[@]} -gt 0 ]; then
  echo "=== failed or skipped: ${failed[*]}"
  exit 1
fi
