#!/usr/bin/env bash
# Suite: the element types of the typed host helpers are checked at compile
# time (issue 25 item 4). tests/headers/type_misuse.c holds one misuse per
# CASE (a scan, reduction, fill, subset/masked/3-D copy, conversion, pack
# or compaction given an array of another element type, or a result of
# the wrong width); each must fail to compile, with an error about the
# type, as C (gcc, clang: C11 _Generic, also under -std=c99), as C++17
# (g++, clang++: typed overloads) and as CUDA C++ (nvcc). No -Werror: a
# warning is not a refusal. CASE 0 (every call right, incl. const sources
# and, in C, void * buffers) compiles with -Werror everywhere, so the
# refusals are the misuses'. Contract: tests/README.md.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
H=tests/headers
OUTD=build/test-types
mkdir -p "$OUTD"
NVCC_BIN=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
NCASES=19
# what a compiler says about a pointer of the wrong type
PAT='_Generic|generic association|incompatible|cannot convert|cannot initialize|no matching|invalid conversion|no suitable conversion'
have() { command -v "$1" >/dev/null 2>&1; }

compilers=()
for cc in gcc clang; do
  have $cc && compilers+=("C $cc -std=c99 -x c" "C11 $cc -std=c11 -x c")
done
for cxx in g++ clang++; do
  have $cxx && compilers+=("C++17 $cxx -std=c++17 -x c++")
done
[ -x "$NVCC_BIN" ] && compilers+=("CUDA $NVCC_BIN -x cu -std=c++17 -arch=sm_90")

for entry in "${compilers[@]}"; do
  read -r lang cc args <<<"$entry"
  label="$lang $(basename "$cc")"
  warn="-Wall -Wextra"
  [ "$lang" = CUDA ] && warn="-Xcompiler -Wall,-Wextra"
  werror="-Werror"
  [ "$lang" = CUDA ] && werror="-Werror all-warnings"
  log="$OUTD/case0.log"
  # shellcheck disable=SC2086
  if "$cc" $args $warn $werror -I. -DCASE=0 -c $H/type_misuse.c -o "$OUTD/t.o" >"$log" 2>&1; then
    echo "ok - type_misuse.c with every call right compiles, $label -Werror"
  else
    echo "not ok - type_misuse.c with every call right compiles, $label -Werror"
    head -n 15 "$log"
  fi
  refused=0 missed=()
  for c in $(seq 1 $NCASES); do
    log="$OUTD/case$c.log"
    # shellcheck disable=SC2086
    if "$cc" $args $warn -I. -DCASE=$c -c $H/type_misuse.c -o "$OUTD/t.o" >"$log" 2>&1; then
      missed+=("$c (compiled)")
    elif ! grep -qE "$PAT" "$log"; then
      missed+=("$c (failed, but not about the type: $(grep -m1 -i error "$log" | head -c 120))")
    else
      refused=$((refused + 1))
    fi
  done
  if [ ${#missed[@]} -eq 0 ]; then
    echo "ok - all $NCASES element-type misuses refused at compile time, $label"
  else
    echo "not ok - element-type misuses refused at compile time, $label: $refused of $NCASES; not: ${missed[*]}"
  fi
done
exit 0
