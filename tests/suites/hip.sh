#!/usr/bin/env bash
# Suite: `make TARGET=hip` (no HIP backend yet) fails, names docs/hip.md,
# and that document exists and covers the constructs a port must change;
# and the backend interface runs one way, which is what makes a third
# backend one header + one source: the C backend's objects (targetDP_C.o
# and the modules' _C parts) call nothing of the common half
# (targetDP_common.o), only the error unit (targetDP_error.o).
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

out=$(make TARGET=hip lib 2>&1)
rc=$?
if [ "$rc" -ne 0 ] && grep -q "docs/hip.md" <<<"$out"; then
  echo "ok - make TARGET=hip fails with a pointer to docs/hip.md"
else
  echo "not ok - make TARGET=hip fails with a pointer to docs/hip.md (exit $rc: $out)"
fi
missing=""
for w in "wavefront" "__launch_bounds__" "__shfl_down" "hipcub" "cudaGetSymbolAddress" \
         "cudaMemcpyFromSymbol" "atomicAdd" "roctx"; do
  grep -q -- "$w" docs/hip.md || missing="$missing $w"
done
if [ -z "$missing" ]; then
  echo "ok - docs/hip.md maps the CUDA constructs a port must change"
else
  echo "not ok - docs/hip.md maps the CUDA constructs a port must change (missing:$missing)"
fi

# The default configuration's library (built by the unit tests already).
build=$(make -s tests-print-build)
if make -j2 --no-print-directory lib >/dev/null 2>&1; then
  common=$(nm --defined-only "$build/obj/targetDP/targetDP_common.o" | awk '$2 ~ /[TD]/ { print $3 }' | sort)
  back=$(for o in "$build/obj/targetDP_C.o" "$build"/obj/targetDP/targetDP_*_C.o; do
           nm --undefined-only "$o" | awk '{ print $2 }'
         done | sort -u)
  calls=$(comm -12 <(echo "$common") <(echo "$back") | tr '\n' ' ')
  if [ -z "$calls" ]; then
    echo "ok - the C backend calls nothing of targetDP_common.c (one direction)"
  else
    echo "not ok - the C backend calls back into targetDP_common.c: $calls"
  fi
else
  echo "not ok - the C backend calls nothing of targetDP_common.c (make lib failed)"
fi
exit 0
