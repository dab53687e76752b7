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
#   3. host, weak scaling: 1, 2, 4, 8, 16 ranks x 1 thread, 64^3 per rank, and
#      128^3 split over the cores as ranks x threads (1x16 ... 16x1): the halo's
#      share of the step (halo_ms / seq_step_ms) and what overlapping hid;
#   4. GPUs (one rank each, when there are two or more), all with the
#      shear wave (a wrong halo changes the fields):
#      a. correctness: 128x64x64 on 1 GPU and on 2 (2x1x1) with the module's
#         transport, staged, overlap 0 and overlap 1; 256x64x64 on 1 and 4
#         GPUs (4x1x1) when there are four: each run's checkpoint bitwise
#         equal to the 1-GPU run's (lbcmp, tolerance 0: the hard check);
#      b. timings: 256^3 on 1 GPU, 512x256x256 on 1 and on 2 GPUs (weak:
#         256^3 per GPU; strong: the same lattice on 1 and 2), with the
#         transport the module picks (IPC where MPI is not CUDA-aware) and,
#         for comparison, staged; 1024x256x256 on 4 GPUs when there are four.
#         Per row: update, pack, transfer, unpack ms per step and hidden_pct.
#         Each run: mass conserved to 1e-12.
#      The printed observation lines (mass, max|u|, amplitude) of a 2- and a
#      1-GPU run must be equal as text: the global sums are exact and
#      rank-independent (targetDP_exact.h); LB_CMP_PRINTED=0 makes a
#      difference a note instead.
#      "ok - / not ok -" lines.
# LB_PARTS (default "gpu host multi") picks sections: gpu = 0 and 1, host =
# 2 and 3, multi = 4; scripts/run_multigpu.sh runs "gpu multi" on 2 GPUs.
# LB_SMOKE=1: a CPU rehearsal of section 4 for make test (lb_safety.sh):
# the default C build for every build, host ranks standing in for 4 GPUs,
# 16^3 sites per rank, 20 steps; what needs a GPU is skipped and said.
# Then apps/lb/lb_model.py fits the step-time model to the rows: $OUT/lb_model.txt
# and $OUT/lb_model_weak_strong.svg (for docs/img/).
# docs/lb.md explains the columns and how the numbers were used.
set -uo pipefail
LB_PARTS=${LB_PARTS:-gpu host multi}
LB_SMOKE=${LB_SMOKE:-0}
[ "$LB_SMOKE" = 1 ] && LB_PARTS=multi
# The global sums are exact (issue 25 item 9): printed numbers are checked.
LB_CMP_PRINTED=${LB_CMP_PRINTED:-1}
part() { [[ " $LB_PARTS " == *" $1 "* ]]; }
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
[ "$LB_SMOKE" = 1 ] && ngpu=4 # host ranks stand in for GPUs
echo "== lb device runs: $(date -u +%FT%TZ), $cores cores, $ngpu GPU(s)$([ "$LB_SMOKE" = 1 ] &&
  echo ", CPU rehearsal (LB_SMOKE=1): section 4 only, host ranks for GPUs")"
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
if [ "$LB_SMOKE" = 1 ]; then
  build cuda # the default C build under the GPU build's name
else
  build cuda TARGET=cuda LAYOUT=AOSOA SAL=256 TPB=256
  build cuda-soa TARGET=cuda
  build c-soa8x CONFIG=gcc-avx512 LAYOUT=SOA VVL=8
  build c-soa8 LAYOUT=SOA VVL=8
  build c-default
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
  # several ranks of several threads: each rank its own block of cores
  local bind=(--bind-to core --map-by core)
  [ "$threads" -gt 1 ] && bind=(--bind-to none --map-by core)
  [ "$threads" -gt 1 ] && [ "$np" -gt 1 ] && bind=(--bind-to core --map-by "slot:PE=$threads")
  [ "$LB_SMOKE" = 1 ] && bind=(--oversubscribe --bind-to none) # more ranks than cores
  OMP_NUM_THREADS=$threads OMP_PROC_BIND=close OMP_PLACES=cores \
    timeout "$limit" mpirun "${bind[@]}" -np "$np" "$b/lb" \
    --params apps/lb/input/benchmark.params --output "$OUT/run" --summary "$csv" "$@" \
    >"$OUT/last.log" 2>&1
  local rc=$?
  grep -v '^step ' "$OUT/last.log"
  [ "$rc" -eq 0 ] || echo "RUN FAILED or timed out (limit $limit s)"
  return $rc
}

# The validation of a timed scaling run: its mass conserved to 1e-12
# (relative, the progress line). Given a reference log, its last
# observation (mass, max|u|, shear amplitude) is compared with the
# reference run's as text: a hard check (a note with LB_CMP_PRINTED=0);
# section 4a compares the fields bitwise too. lbvalid NAME [REFLOG]
lbvalid() {
  local name=$1 ref=${2:-} last
  last=$(grep '^step ' "$OUT/last.log" | tail -n 1 | sed 's/ *MLUPS.*//')
  if [ -z "$last" ]; then
    echo "not ok - $name: no observation"
    return
  fi
  if ! awk -v l="$last" 'BEGIN { match(l, /rel. change [-+0-9.e]+/); v = substr(l, RSTART + 12, RLENGTH - 12) + 0;
                                 exit !(v <= 1e-12 && v >= -1e-12) }'; then
    echo "not ok - $name: mass not conserved: $last"
  elif [ -n "$ref" ] && [ "$last" != "$(grep '^step ' "$ref" | tail -n 1 | sed 's/ *MLUPS.*//')" ]; then
    if [ "$LB_CMP_PRINTED" = 1 ]; then
      echo "not ok - $name: differs from the 1-GPU run: $last"
    else
      echo "ok - $name: mass conserved: $last"
      echo "# note - $name: its printed observation differs from the 1-GPU run's (LB_CMP_PRINTED=0)"
    fi
  else
    echo "ok - $name: $last"
  fi
}

# The scaling runs of sections 3 and 4: a shear wave (varying along x, the
# split axis, so that a wrong halo changes the fields and the observation),
# force on, one observation at the end. Defined here, for every section:
# set inside one, it was empty in the others (section 4 then ran the
# uniform case of benchmark.params).
sw=(--case shearwave --amplitude 0.01 --force 1e-7,0,0 --validate 0)

# ---------------------------------------------------------------- GPU correctness
if part gpu; then
val=$(mktemp -d)
vcheck() { # vcheck NAME NP BUILDKEY ARGS...: the run must succeed
  local name=$1 np=$2 key=$3
  shift 3
  # ranks may share a GPU here (correctness, not speed): allowed explicitly
  if [ -n "${B[$key]:-}" ] && OMP_NUM_THREADS=1 TARGETDP_OVERSUBSCRIBE=1 timeout 120 \
       mpirun --oversubscribe -np "$np" \
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
# Issue 11: one GPU, 256^3 fused (the row above) must cost at most 5% over
# its update (the self-exchange: a batch of face kernels, self_ms); for
# comparison the same forced to overlap (its wait_ms: the exchange queued
# behind the interior kernel).
if [ -f "$csv" ] && awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
     $c["backend"] == "cuda" && $c["layout"] == "AOSOA" && $c["ranks"] == 1 && $c["nx"] == 256 &&
     $c["kernel"] == "fused" { r = $c["step_ms"] / $c["update_ms"]; s = $c["self_ms"] }
     END { printf "1 GPU 256^3 fused: step/update %.3f, self-exchange %.4f ms\n", r, s; exit !(r > 0 && r <= 1.05) }' "$csv"; then
  echo "ok - one GPU: step within 5% of the update (issue 11)"
else
  echo "not ok - one GPU: step within 5% of the update (issue 11)"
fi
lbrun 90 1 1 cuda --size 256x256x256 --kernel fused --steps 100 --overlap 1

fi # part gpu

# ---------------------------------------------------------------- host CPU
if part host; then
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
    --steps 60 --triad $((1 << 23)) "${sw[@]}" --print_every 60 && lbvalid "host weak $np rank(s)"
done
# 128^3 over the cores: ranks x threads (docs/lb.md says which split to use)
for spec in "1 16" "2 8" "4 4" "8 2" "16 1"; do
  set -- $spec
  [ $(($1 * $2)) -le "$cores" ] || continue
  lbrun 60 "$1" "$2" c-soa8x --size 128x128x128 --steps 40 "${sw[@]}" --print_every 40 &&
    lbvalid "host 128^3 as $1 x $2"
done

fi # part host

# ---------------------------------------------------------------- several GPUs
if part multi && [ "$ngpu" -gt 1 ]; then
  # 4a. Correctness: the fields of 2 (and 4) GPUs bitwise those of 1 GPU,
  # by checkpoint (lbcmp, tolerance 0; the file order is independent of
  # the decomposition). Small lattices: a checkpoint of the timed ones
  # would be gigabytes.
  bit=$(mktemp -d)
  bn=64
  [ "$LB_SMOKE" = 1 ] && bn=16
  bsteps=100
  [ "$LB_SMOKE" = 1 ] && bsteps=20
  bflow=(--params apps/lb/input/benchmark.params "${sw[@]}" --steps "$bsteps"
         --print_every "$bsteps" --checkpoint_every "$bsteps" --triad 0)
  # bitrun NAME NP ARGS...: a correctness run (no summary row); its
  # checkpoint $bit/NAME.chk, its log $bit/NAME.log
  bitrun() {
    local name=$1 np=$2
    shift 2
    OMP_NUM_THREADS=1 timeout 120 mpirun --oversubscribe -np "$np" "${B[cuda]:-/nonexistent}/lb" \
      "${bflow[@]}" --output "$bit/$name" "$@" >"$bit/$name.log" 2>&1
  }
  # bitsame NAME REF: NAME.chk bitwise equal to REF.chk; printed lines too
  # (a note only with LB_CMP_PRINTED=0)
  bitsame() {
    local name=$1 ref=$2 cmp_out a b
    grep '^# case' "$bit/$name.log"
    if ! cmp_out=$("${B[cuda]:-/nonexistent}/lbcmp" "$bit/$ref.chk" "$bit/$name.chk" 0 2>&1); then
      echo "not ok - $name: checkpoint bitwise equal to 1 rank's: $cmp_out"
      tail -n 5 "$bit/$name.log"
      return
    fi
    echo "ok - $name: checkpoint bitwise equal to 1 rank's ($cmp_out)"
    a=$(grep '^step ' "$bit/$ref.log" | tail -n 1 | sed 's/ *MLUPS.*//')
    b=$(grep '^step ' "$bit/$name.log" | tail -n 1 | sed 's/ *MLUPS.*//')
    if [ "$a" != "$b" ] && [ "$LB_CMP_PRINTED" = 1 ]; then
      echo "not ok - $name: printed observation equal to 1 rank's: '$b' vs '$a'"
    elif [ "$a" != "$b" ]; then
      echo "# note - $name: printed observation differs from 1 rank's (LB_CMP_PRINTED=0)"
    fi
  }
  echo
  echo "== 4a. correctness on several GPUs: checkpoints bitwise"
  if bitrun ref2 1 --size $((2 * bn))x${bn}x${bn} --decomposition 1,1,1; then
    grep '^# case' "$bit/ref2.log"
    bitrun two 2 --size $((2 * bn))x${bn}x${bn} --decomposition 2,1,1 && bitsame two ref2
    TARGETDP_HALO=staged bitrun staged 2 --size $((2 * bn))x${bn}x${bn} --decomposition 2,1,1 &&
      bitsame staged ref2
    bitrun ovl0 2 --size $((2 * bn))x${bn}x${bn} --decomposition 2,1,1 --overlap 0 &&
      bitsame ovl0 ref2
    bitrun ovl1 2 --size $((2 * bn))x${bn}x${bn} --decomposition 2,1,1 --overlap 1 &&
      bitsame ovl1 ref2
  else
    echo "not ok - correctness reference run on 1 GPU"
    tail -n 5 "$bit/ref2.log"
  fi
  if [ "$ngpu" -ge 4 ]; then
    if bitrun ref4 1 --size $((4 * bn))x${bn}x${bn} --decomposition 1,1,1; then
      grep '^# case' "$bit/ref4.log"
      bitrun four 4 --size $((4 * bn))x${bn}x${bn} --decomposition 4,1,1 && bitsame four ref4
    else
      echo "not ok - correctness reference run on 1 GPU (4-GPU lattice)"
      tail -n 5 "$bit/ref4.log"
    fi
  fi
  for f in "$bit"/*.log; do # a run that failed: say so
    grep -q '^# checkpoint: ' "$f" || { echo "not ok - $(basename "$f" .log) ran"; tail -n 5 "$f"; }
  done
  rm -rf "$bit"

  # 4b. Timings: 256^3 on 1 GPU; 512x256x256 on 1 GPU and on 2 (weak:
  # 256^3 per GPU, strong: the same lattice). The 2-GPU runs with the
  # module's choice (IPC here) and forced staged.
  n=256
  [ "$LB_SMOKE" = 1 ] && n=16
  steps=300
  [ "$LB_SMOKE" = 1 ] && steps=20
  tri=67108864
  [ "$LB_SMOKE" = 1 ] && tri=65536
  g=(--steps "$steps" --print_every "$steps" --triad "$tri" "${sw[@]}")
  echo
  echo "== 4b. timings on several GPUs"
  lbrun 120 1 1 cuda --size ${n}x${n}x${n} --decomposition 1,1,1 "${g[@]}" && lbvalid "GPU ${n}^3, 1 GPU"
  if lbrun 120 1 1 cuda --size $((2 * n))x${n}x${n} --decomposition 1,1,1 "${g[@]}"; then
    lbvalid "GPU $((2 * n))x${n}x${n}, 1 GPU"
    cp "$OUT/last.log" "$OUT/ref1.log"
    lbrun 120 2 1 cuda --size $((2 * n))x${n}x${n} --decomposition 2,1,1 "${g[@]}" &&
      lbvalid "GPU $((2 * n))x${n}x${n}, 2 GPUs, $(grep -o 'halo [a-z]*$' "$OUT/last.log" | head -n 1)" "$OUT/ref1.log"
    TARGETDP_HALO=staged lbrun 120 2 1 cuda --size $((2 * n))x${n}x${n} --decomposition 2,1,1 "${g[@]}" &&
      lbvalid "GPU $((2 * n))x${n}x${n}, 2 GPUs, halo staged" "$OUT/ref1.log"
    lbrun 120 2 1 cuda --size $((2 * n))x${n}x${n} --decomposition 2,1,1 "${g[@]}" --overlap 0 &&
      lbvalid "GPU $((2 * n))x${n}x${n}, 2 GPUs, not overlapped" "$OUT/ref1.log"
    lbrun 120 2 1 cuda --size $((2 * n))x${n}x${n} --decomposition 2,1,1 "${g[@]}" --overlap 1 &&
      lbvalid "GPU $((2 * n))x${n}x${n}, 2 GPUs, overlapped throughout" "$OUT/ref1.log"
    rm -f "$OUT/ref1.log"
  fi
  if [ "$ngpu" -ge 4 ]; then # weak scaling to 4: 256^3 per GPU
    lbrun 120 4 1 cuda --size $((4 * n))x${n}x${n} --decomposition 4,1,1 "${g[@]}" &&
      lbvalid "GPU $((4 * n))x${n}x${n}, 4 GPUs"
  fi
  # more ranks than GPUs: a clear error at start, no hang (a lattice that
  # the ranks divide, so that the GPU count is what is refused)
  if [ "$LB_SMOKE" = 1 ]; then
    echo "ok - more ranks than GPUs refused # SKIP CPU rehearsal: no GPU to count"
  elif timeout 60 mpirun -np $((ngpu + 1)) "${B[cuda]:-/nonexistent}/lb" --size 48x48x48 --steps 2 \
       --output "$OUT/run" >"$OUT/last.log" 2>&1; then
    echo "not ok - $((ngpu + 1)) ranks on $ngpu GPUs: refused"
  elif grep -q "lb: error: halo exchange: .*GPU.*TARGETDP_OVERSUBSCRIBE=1" "$OUT/last.log"; then
    echo "ok - $((ngpu + 1)) ranks on $ngpu GPUs refused: $(grep -o 'lb: error: .*' "$OUT/last.log" | head -c 150)"
  else
    echo "not ok - $((ngpu + 1)) ranks on $ngpu GPUs: no clear error"
    tail -n 5 "$OUT/last.log"
  fi
fi
rm -f "$OUT"/run.csv "$OUT"/run.chk "$OUT"/last.log
echo
echo "== done in $(( $(date +%s) - t0 )) s; results: $csv"
column -s, -t <"$csv" 2>/dev/null | cut -c1-250 || cat "$csv"
python3 apps/lb/plot_scaling.py "$csv" || echo "plot_scaling.py failed"
# the model's fit and prediction; the plot lands in $OUT (copy it to docs/img/)
python3 apps/lb/lb_model.py "$csv" --plot "$OUT" | tee "$OUT/lb_model.txt" || echo "lb_model.py failed"
