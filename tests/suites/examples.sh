#!/usr/bin/env bash
# Suite: examples/scale.c (the paper's example) builds and scales a field
# correctly in a few configurations and site counts; examples/heat_targetDP.c
# agrees with examples/heat_serial.c to round-off in each, and so does
# examples/heat_mpi.c at 1 and 4 MPI ranks (2x2 and 4x1, the gathered field:
# max |difference| <= 1e-12 max |u|). Prints `ok - name` /
# `not ok - name` lines and exits 0 (the contract in tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

# TDP_GPU=1 (tests/run_device.sh): the CUDA builds, run on the GPU.
if [ "${TDP_GPU:-0}" = 1 ]; then
  cfgs=("SOA 1" "AOS 1")
  base=(TARGET=cuda)
else
  cfgs=("AOSOA 4" "SOA 1" "AOS 8")
  base=(CONFIG=gcc-openmp)
fi
# agree A B N: files A and B hold N values each, not all zero, equal to
# 1e-12 of the largest |value| (round-off: FMA contraction differs on GPUs).
agree() {
  paste "$1" "$2" | awk -v n="$3" '
    function abs(x) { return x < 0 ? -x : x }
    { d = abs($1 - $2); if (d > dmax) dmax = d; if (abs($1) > umax) umax = abs($1) }
    END { printf "max |diff| %g of max |u| %g\n", dmax, umax; exit !(NR == n && umax > 0 && dmax <= 1e-12 * umax) }'
}
have_mpi=0
command -v mpirun >/dev/null && command -v mpicc >/dev/null && have_mpi=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# 4 ranks on one GPU (tests/run_device.sh) or on 2 cores: oversubscribed on purpose.
export TARGETDP_OVERSUBSCRIBE=1

for cfg in "${cfgs[@]}"; do
  read -r layout vvl <<<"$cfg"
  args=("${base[@]}" LAYOUT="$layout" VVL="$vvl")
  build=$(make -s "${args[@]}" tests-print-build)
  if ! make -s -j2 "${args[@]}" examples-build >"$build.scale-build.log" 2>&1; then
    echo "not ok - examples/scale builds with LAYOUT=$layout VVL=$vvl"
    tail -n 20 "$build.scale-build.log"
    continue
  fi
  for n in 1 7 1003 100003; do
    name="examples/scale LAYOUT=$layout VVL=$vvl nsites=$n"
    out=$("$build/scale" "$n" 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ] && grep -q "scale: $n sites, .*layout=$layout VVL=$vvl.*: correct" <<<"$out"; then
      echo "ok - $name"
    else
      echo "not ok - $name (exit $rc: $out)"
    fi
  done
  for size in "64 48 200" "37 29 150" "3 5 10"; do
    read -r nx ny n <<<"$size"
    name="examples/heat_targetDP = heat_serial to round-off, LAYOUT=$layout VVL=$vvl, $nx x $ny, $n steps"
    if "$build/heat_serial" "$nx" "$ny" "$n" "$build/heat_serial.txt" >/dev/null &&
       "$build/heat_targetDP" "$nx" "$ny" "$n" "$build/heat_targetDP.txt" >/dev/null &&
       agree "$build/heat_serial.txt" "$build/heat_targetDP.txt" $((nx * ny)) >/dev/null; then
      echo "ok - $name"
    else
      echo "not ok - $name"
    fi
  done
  if [ "$have_mpi" != 1 ]; then
    echo "ok - examples/heat_mpi LAYOUT=$layout VVL=$vvl # SKIP no MPI (scripts/install_deps.sh installs openmpi-bin libopenmpi-dev)"
    continue
  fi
  # Sizes that 4 ranks split evenly both ways; 6 x 4 leaves 3 x 2 sites a rank.
  for run in "64 48 200 1 0 0" "64 48 200 4 2 2" "64 48 200 4 4 1" "40 36 150 4 0 0" "6 4 5 4 2 2"; do
    read -r nx ny n np px py <<<"$run"
    name="examples/heat_mpi = heat_serial to round-off, $np ranks (dims ${px}x$py, 0 = chosen), LAYOUT=$layout VVL=$vvl, $nx x $ny, $n steps"
    log="$build/heat_mpi.log"
    if "$build/heat_serial" "$nx" "$ny" "$n" "$build/heat_serial.txt" >/dev/null &&
       rm -f "$build/heat_mpi.txt" &&
       OMP_NUM_THREADS=1 timeout -k 5 120 mpirun --oversubscribe -np "$np" \
         "$build/heat_mpi" "$nx" "$ny" "$n" "$build/heat_mpi.txt" "$px" "$py" >"$log" 2>&1 &&
       grep -q "heat_mpi: $nx x $ny, $n steps, $np ranks as " "$log" &&
       agree "$build/heat_serial.txt" "$build/heat_mpi.txt" $((nx * ny)) >>"$log"; then
      echo "ok - $name"
    else
      echo "not ok - $name"
      tail -n 20 "$log"
    fi
  done
  # A grid the ranks cannot split: a clear message and a non-zero exit, never a hang.
  name="examples/heat_mpi: 37 x 29 on 4 ranks is refused with the reason, LAYOUT=$layout VVL=$vvl"
  if ! OMP_NUM_THREADS=1 timeout -k 5 60 mpirun --oversubscribe -np 4 "$build/heat_mpi" 37 29 10 >"$log" 2>&1 &&
     grep -q "heat_mpi: grid 37 x 29 cannot be split" "$log"; then
    echo "ok - $name"
  else
    echo "not ok - $name"
    tail -n 20 "$log"
  fi
done

# A code outside the repository with the same rules: make app APP_DIR=...
if [ "${TDP_GPU:-0}" != 1 ]; then
  ext=$(mktemp -d "${TMPDIR:-/tmp}/tdp-app.XXXXXX")
  cp examples/heat_targetDP.c "$ext/"
  args=(CONFIG=gcc-openmp LAYOUT=SOA VVL=2)
  build=$(make -s "${args[@]}" tests-print-build)
  if make -s -j2 "${args[@]}" app APP_DIR="$ext" APP_NAME=heat_ext heat_serial >"$ext/log" 2>&1 &&
     ! grep -q warning "$ext/log" &&
     "$build/heat_ext" 40 30 50 "$ext/a.txt" >/dev/null && "$build/heat_serial" 40 30 50 "$ext/b.txt" >/dev/null &&
     paste "$ext/a.txt" "$ext/b.txt" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d; if ($1 > u) u = $1 }
       END { exit !(NR == 1200 && u > 0 && m <= 1e-12 * u) }'; then
    echo "ok - make app APP_DIR=<outside the repository>: builds with the repository's rules and agrees"
  else
    echo "not ok - make app APP_DIR=<outside the repository>: builds with the repository's rules and agrees"
    tail -n 20 "$ext/log"
  fi
  rm -rf "$ext" "$build/obj/app/$(printf %s "$ext" | tr / _)"
fi
exit 0
