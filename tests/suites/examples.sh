#!/usr/bin/env bash
# Suite: examples/scale.c (the paper's example) builds and scales a field
# correctly in a few configurations and site counts. Prints `ok - name` /
# `not ok - name` lines and exits 0 (the contract in tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

for cfg in "AOSOA 4" "SOA 1" "AOS 8"; do
  read -r layout vvl <<<"$cfg"
  args=(CONFIG=gcc-openmp LAYOUT="$layout" VVL="$vvl")
  build=$(make -s "${args[@]}" tests-print-build)
  if ! make -s -j2 "${args[@]}" "$build/scale" >"$build.scale-build.log" 2>&1; then
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
done
exit 0
