#!/usr/bin/env bash
# scripts/run_lb_hosthalo.sh -- issue 11, host target: lb's halo at 16 ranks
# x 1 thread (64^3 per rank, 256x128x128 as 4,2,2) and 1 x 1 (64^3), the
# build of docs/lb.md (gcc-avx512 SoA VVL 8, OMP_NUM_THREADS=1, ranks bound
# to cores as apps/lb/run_device.sh binds them). Run from the repository
# root on the 16-core host (about 2 minutes):
#     OUT=... bash scripts/run_lb_hosthalo.sh
# "after" is this tree; "before" is main at 033dec7 (face kernels as 1-D
# launches with a division per site; an axis's sends waited for before its
# unpack), built from git when the tree has its history, else left out
# (docs/lb.md has the numbers measured at 033dec7). Per build, in turn:
#   lbhalo 16 ranks and 1 rank (50 reps each): the exchange alone
#     after a barrier, caches flushed before each (pack / transfer / unpack /
#     self ms), and each face kernel alone;
#   lb 16 ranks and 1 rank, 60 steps of the weak-scaling shear wave:
#     halo_ms / step_ms (the "# halo", "# step" lines), twice.
# $OUT: hosthalo.log (everything), hosthalo.txt (the summary lines).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-build/lb-hosthalo}
mkdir -p "$OUT"
log=$OUT/hosthalo.log
sum=$OUT/hosthalo.txt
: >"$sum"
exec > >(tee "$log") 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TARGETDP_QUIET=1
export OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores
scratch=$(mktemp -d)
# HH_MAKE, HH_NP, HH_SIZE, HH_DECOMP, HH_REPS: other builds and sizes (a
# small machine's dry run); the defaults are the issue's.
read -r -a mk <<<"${HH_MAKE:-CONFIG=gcc-avx512 LAYOUT=SOA VVL=8}"
np=${HH_NP:-16}
size=${HH_SIZE:-256x128x128}
decomp=${HH_DECOMP:-4,2,2}
reps=${HH_REPS:-50}
echo "== lb host halo: $(date -u +%FT%TZ), $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo 'no git')"
lscpu | grep -E '^Model name' || true

declare -A B
B[after]=build/hosthalo-after
make -s -j8 "${mk[@]}" BUILD=${B[after]} lb >"$scratch/build-after.log" 2>&1 &
pa=$!
pb=
if git rev-parse -q --verify "033dec7^{commit}" >/dev/null 2>&1; then
  mkdir -p "$scratch/before"
  git archive 033dec7 | tar -x -C "$scratch/before"
  B[before]=$scratch/before/build/b
  (cd "$scratch/before" && make -s -j8 "${mk[@]}" BUILD=build/b lb) >"$scratch/build-before.log" 2>&1 &
  pb=$!
else
  echo "no git history here: 'before' (033dec7) left out"
fi
wait $pa || { echo "BUILD FAILED: after"; tail -n 20 "$scratch/build-after.log"; exit 1; }
if [ -n "$pb" ] && ! wait "$pb"; then
  echo "BUILD FAILED: before"
  tail -n 20 "$scratch/build-before.log"
  unset "B[before]"
fi
bind=(--bind-to core --map-by core)
sw=(--case shearwave --amplitude 0.01 --force "1e-7,0,0" --validate 0)
keys=(before after)

halo() { # halo KEY NP SIZE DECOMP REPS
  local b=${B[$1]:-}
  [ -n "$b" ] || return 0
  echo "-- $1 lbhalo $2 rank(s) $3 $4"
  timeout 40 mpirun "${bind[@]}" -np "$2" "$b/lbhalo" --size "$3" --decomposition "$4" \
    --reps "$5" >"$scratch/h.log" 2>&1
  cat "$scratch/h.log"
  echo "$1 lbhalo np=$2: $(grep '^exchange' "$scratch/h.log")" >>"$sum"
}
step() { # step KEY NP SIZE DECOMP
  local b=${B[$1]:-}
  [ -n "$b" ] || return 0
  echo "-- $1 lb $2 rank(s) $3 $4"
  timeout 30 mpirun "${bind[@]}" -np "$2" "$b/lb" --params apps/lb/input/benchmark.params \
    --output "$scratch/run" --size "$3" --decomposition "$4" --steps 60 "${sw[@]}" \
    --print_every 60 >"$scratch/s.log" 2>&1
  grep -v '^step ' "$scratch/s.log" | grep -E '^# (halo|update|step) |rank|FAIL|rror'
  echo "$1 lb np=$2: $(grep -E '^# (halo|update|step) ' "$scratch/s.log" | tr -s ' ' | tr '\n' ' ')" \
    "| $(grep '^step ' "$scratch/s.log" | tail -n 1 | sed 's/ *MLUPS.*//')" >>"$sum"
}
for k in "${keys[@]}"; do
  halo "$k" "$np" "$size" "$decomp" "$reps"
  halo "$k" 1 64x64x64 1,1,1 "$reps"
done
for round in 1 2; do
  echo "== lb steps, round $round"
  for k in "${keys[@]}"; do
    step "$k" "$np" "$size" "$decomp"
    step "$k" 1 64x64x64 1,1,1
  done
done
echo "== summary"
cat "$sum"
rm -rf "$scratch"
