#!/usr/bin/env bash
# Suite: examples/scale.c (the paper's example) builds and scales a field
# correctly in a few configurations and site counts; examples/heat_targetDP.c
# agrees with examples/heat_serial.c to round-off in each. Prints `ok - name` /
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
       paste "$build/heat_serial.txt" "$build/heat_targetDP.txt" | awk -v n=$((nx * ny)) '
         function abs(x) { return x < 0 ? -x : x }
         { d = abs($1 - $2); if (d > dmax) dmax = d; if (abs($1) > umax) umax = abs($1) }
         END { printf "max |diff| %g of max |u| %g\n", dmax, umax; exit !(NR == n && umax > 0 && dmax <= 1e-12 * umax) }'; then
      echo "ok - $name"
    else
      echo "not ok - $name"
    fi
  done
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
