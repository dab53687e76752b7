#!/usr/bin/env bash
# The README's main job: Poiseuille flow between two walls, driven by a body
# force, on 2 MPI ranks from rest to steady state, checked against the
# analytic profile. Usage: apps/lb/run.sh BUILD_DIR [extra lb options]
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [lb options]}
shift
if ! command -v mpirun >/dev/null; then
  echo "run.sh: mpirun not found: install openmpi-bin libopenmpi-dev (scripts/install_deps.sh)" >&2
  exit 1
fi
# OpenMPI refuses to start as root unless told; containers and CI run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# 2 ranks x threads must not exceed the cores, or OpenMP threads fight.
cores=$(nproc 2>/dev/null || echo 2)
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(( cores / 2 > 0 ? cores / 2 : 1 ))}
out="$build/run"
mkdir -p "$out"
echo "== lb: Poiseuille flow, 2 MPI ranks x $OMP_NUM_THREADS OpenMP thread(s); output in $out/"
# Open MPI binds each of 2 ranks to one core: its threads need more (the
# layer warns when the mask holds fewer CPUs than threads).
bind=()
[ "$OMP_NUM_THREADS" -gt 1 ] && bind=(--bind-to none)
mpirun --oversubscribe "${bind[@]}" -np 2 "$build/lb" --params apps/lb/input/poiseuille.params \
  --output "$out/poiseuille" "$@"
