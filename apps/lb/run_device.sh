#!/usr/bin/env bash
# Performance runs of apps/lb on the lent GPU machine (H100 + 16-core Xeon
# host, OpenMPI, nvcc; no internet). Run from the repository root:
#     bash apps/lb/run_device.sh            (OUT defaults to ./build/lb-device)
# Writes $OUT/lb_perf.csv (one row per run: MLUPS, per-kernel ms and GB/s,
# the STREAM triad measured in the same run, % of it) and $OUT/lb_device.log.
# Takes about a minute: builds first (in parallel), then every run under a
# time limit. The recommended configurations (docs/lb.md) are the headline:
#   GPU:  make lb TARGET=cuda LAYOUT=AOSOA SAL=256 TPB=256
#   host: make lb CONFIG=gcc-avx512 LAYOUT=SOA VVL=8
#   0. correctness on the GPU: Poiseuille and shear wave PASS, and the GPU's
#      checkpoint equals the CPU's to 1e-12 (1 and 2 ranks, split kernels, both
#      GPU layouts): lines "ok - ..."
#   1. GPU: 128^3 and 256^3, fused and split, recommended build; 256^3 fused
#      with the preset's SoA for comparison;
#   2. host CPU, 1 rank x 16 threads: 128^3 and 256^3 fused, 128^3 split,
#      recommended build; 128^3 fused with gcc-openmp SoA VVL 8 and with the
#      default preset (AoSoA VVL 4) for comparison;
#   3. weak scaling on the host: 1, 2, 4, 8, 16 ranks x 1 thread, 64^3 per rank;
#   4. weak scaling over GPUs (one rank each) when the machine has more than one.
# docs/lb.md explains the columns and how the numbers were used.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
OUT=${OUT:-build/lb-device}
mkdir -p "$OUT"
csv=$OUT/lb_perf.csv
log=$OUT/lb_device.log
rm -f "$csv"
exec > >(tee "$log") 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TARGETDP_QUIET=1
cores=$(nproc)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
echo "== lb device runs: $(date -u +%FT%TZ), $cores cores, $ngpu GPU(s)"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA node\(s\))' || true
mpirun --version | head -n 1

# ---------------------------------------------------------------- builds
# All at once, each with a few make jobs (nvcc compiles one file per job).
t0=$(date +%s)
declare -A B
keys=()
pids=()
build() { # build KEY make-args...
  local key=$1
  shift
  B[$key]=$(make -s "$@" lb-build-dir)
  keys+=("$key")
  make -s -j4 "$@" lb >"$OUT/build-$key.tmp" 2>&1 &
  pids+=($!)
}
build cuda TARGET=cuda LAYOUT=AOSOA SAL=256 TPB=256
build cuda-soa TARGET=cuda
build c-soa8x CONFIG=gcc-avx512 LAYOUT=SOA VVL=8
build c-soa8 LAYOUT=SOA VVL=8
build c-default
aware=0
if [ "$ngpu" -gt 1 ] && ompi_info --parsable --all 2>/dev/null |
   grep -q 'mpi_built_with_cuda_support:value:true'; then
  aware=1
  build cuda-aware TARGET=cuda LAYOUT=AOSOA SAL=256 TPB=256 CUDA_AWARE_MPI=1 \
    BUILD=build/lb-cuda-aware
fi
for i in "${!pids[@]}"; do
  key=${keys[$i]}
  if wait "${pids[$i]}"; then
    echo "built $key: ${B[$key]}"
  else
    echo "BUILD FAILED: $key"
    tail -n 30 "$OUT/build-$key.tmp"
    unset "B[$key]"
  fi
  rm -f "$OUT/build-$key.tmp"
done
echo "builds took $(( $(date +%s) - t0 )) s"

# lbrun LIMIT NP THREADS BUILDKEY ARGS...: one timed run, a row in $csv
lbrun() {
  local limit=$1 np=$2 threads=$3 key=$4
  shift 4
  local b=${B[$key]:-}
  [ -n "$b" ] || { echo "skip ($key not built): $*"; return; }
  echo
  echo "== $key: $np rank(s) x $threads thread(s): $*"
  OMP_NUM_THREADS=$threads OMP_PROC_BIND=close OMP_PLACES=cores \
    timeout "$limit" mpirun --bind-to "$([ "$threads" -gt 1 ] && echo none || echo core)" \
    --map-by core -np "$np" "$b/lb" --params apps/lb/input/benchmark.params \
    --output "$OUT/run" --summary "$csv" "$@" | grep -v '^step ' ||
    echo "RUN FAILED or timed out (limit $limit s)"
}

# ---------------------------------------------------------------- GPU correctness
val=$(mktemp -d)
vcheck() { # vcheck NAME NP BUILDKEY ARGS...: the run must succeed
  local name=$1 np=$2 key=$3
  shift 3
  if [ -n "${B[$key]:-}" ] && OMP_NUM_THREADS=1 timeout 120 mpirun --oversubscribe -np "$np" \
       "${B[$key]}/lb" "$@" >"$val/out.log" 2>&1; then
    echo "ok - $name $(grep -E '^(PASS|FAIL)' "$val/out.log" | cut -c1-120)"
  else
    echo "not ok - $name"
    tail -n 15 "$val/out.log"
  fi
}
echo
echo "== correctness on the GPU"
vcheck "GPU Poiseuille (2 ranks on one GPU)" 2 cuda --params apps/lb/input/poiseuille.params \
  --vtk_every 0 --output "$val/p"
vcheck "GPU shear wave" 1 cuda --params apps/lb/input/shearwave.params --output "$val/s"
flow=(--case shearwave --amplitude 0.01 --walls z --force 0,1e-4,0 --size 32x24x16 --steps 100
      --print_every 0 --checkpoint_every 100 --validate 0)
vcheck "CPU reference run" 1 c-soa8x "${flow[@]}" --output "$val/cpu"
vcheck "GPU run" 1 cuda "${flow[@]}" --output "$val/gpu1"
vcheck "GPU run, 2 ranks" 2 cuda "${flow[@]}" --output "$val/gpu2"
vcheck "GPU split kernels" 1 cuda "${flow[@]}" --kernel split --output "$val/gpus"
vcheck "GPU run, SoA" 1 cuda-soa "${flow[@]}" --output "$val/gpusoa"
for run in gpu1 gpu2 gpus gpusoa; do
  if cmp_out=$("${B[c-soa8x]:-/nonexistent}/lbcmp" "$val/cpu.chk" "$val/$run.chk" 1e-12 2>&1); then
    echo "ok - $run equals the CPU run to 1e-12: $cmp_out"
  else
    echo "not ok - $run equals the CPU run to 1e-12: $cmp_out"
  fi
done
rm -rf "$val"

# ---------------------------------------------------------------- GPU performance
for n in 128 256; do
  for k in fused split; do
    lbrun 90 1 1 cuda --size ${n}x${n}x${n} --kernel $k --steps $((n == 128 ? 400 : 100)) \
      --triad 67108864
  done
done
lbrun 90 1 1 cuda-soa --size 256x256x256 --kernel fused --steps 100 --triad 67108864

# ---------------------------------------------------------------- host CPU
for k in fused split; do
  lbrun 60 1 "$cores" c-soa8x --size 128x128x128 --kernel $k --steps 40
done
lbrun 90 1 "$cores" c-soa8x --size 256x256x256 --kernel fused --steps 10
lbrun 60 1 "$cores" c-soa8 --size 128x128x128 --kernel fused --steps 40
lbrun 60 1 "$cores" c-default --size 128x128x128 --kernel fused --steps 40

# ---------------------------------------------------------------- weak scaling, host
# 64^3 per rank, one thread each; the triad runs on every rank at once.
for spec in "1 1,1,1" "2 2,1,1" "4 2,2,1" "8 2,2,2" "16 4,2,2"; do
  set -- $spec
  np=$1
  IFS=, read -r px py pz <<<"$2"
  [ "$np" -le "$cores" ] || continue
  lbrun 60 "$np" 1 c-soa8x --size $((64 * px))x$((64 * py))x$((64 * pz)) --decomposition "$2" \
    --steps 60 --triad $((1 << 23))
done

# ---------------------------------------------------------------- weak scaling, GPUs
if [ "$ngpu" -gt 1 ]; then
  for np in 1 2 4 8; do
    [ "$np" -le "$ngpu" ] || continue
    lbrun 90 "$np" 1 cuda --size $((256 * np))x256x256 --decomposition "$np,1,1" --steps 100 \
      --triad 67108864
    [ "$aware" = 1 ] && lbrun 90 "$np" 1 cuda-aware --size $((256 * np))x256x256 \
      --decomposition "$np,1,1" --steps 100 --triad 67108864
  done
fi
rm -f "$OUT"/run.csv "$OUT"/run.chk
echo
echo "== done in $(( $(date +%s) - t0 )) s; results: $csv"
column -s, -t <"$csv" 2>/dev/null | cut -c1-200 || cat "$csv"
