#!/usr/bin/env bash
# Suite: targetDP.h compiles clean (-Wall -Wextra -Werror) as C99 and C11
# with gcc and clang, as C++17 with g++ and clang++, and as CUDA with nvcc;
# with and without OpenMP (without it: no unknown-pragma warnings). With
# -DTDP_NO_LEGACY_NAMES a C++17 file that includes targetDP.h and then
# <immintrin.h> and <random> compiles (issue 9 item 8: the 2014 names
# began with two underscores and broke clang's __attribute__((__target__))).
# The 2014 names still compile by default. Every public-looking name of the
# headers is in docs/api.md (scripts/check_api_names.sh, shown to fail on a
# planted one). Contract: tests/README.md.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
H=tests/headers
OUTD=build/test-headers
mkdir -p "$OUTD"
NVCC_BIN=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
W=(-Wall -Wextra -Werror -I.)

check() { # name command...
  local name=$1 log
  shift
  log="$OUTD/$(echo "$name" | tr -c 'A-Za-z0-9_.-' _).log"
  if "$@" >"$log" 2>&1; then
    echo "ok - $name"
  else
    echo "not ok - $name"
    head -n 15 "$log"
  fi
}
have() { command -v "$1" >/dev/null 2>&1; }

for cc in gcc clang; do
  if ! have $cc; then echo "ok - header as C with $cc # SKIP no $cc"; continue; fi
  for std in c99 c11; do
    for omp in "" -fopenmp; do
      [ "$cc" = clang ] && [ -n "$omp" ] && ! echo 'int main(void){return 0;}' |
        clang -fopenmp -x c - -o /dev/null 2>/dev/null && continue
      check "header as $std with $cc ${omp:-(no OpenMP)}" \
        $cc -std=$std "${W[@]}" $omp -c $H/header_only.c -o "$OUTD/h.o"
    done
  done
  check "2014 names compile with $cc" $cc -std=c99 "${W[@]}" -fopenmp -c $H/legacy_names.c -o "$OUTD/l.o"
done
for cxx in g++ clang++; do
  if ! have $cxx; then echo "ok - header as C++17 with $cxx # SKIP no $cxx"; continue; fi
  for omp in "" -fopenmp; do
    [ "$cxx" = clang++ ] && [ -n "$omp" ] && ! echo 'int main(){return 0;}' |
      clang++ -fopenmp -x c++ - -o /dev/null 2>/dev/null && continue
    check "header as C++17 with $cxx ${omp:-(no OpenMP)}" \
      $cxx -std=c++17 -x c++ "${W[@]}" $omp -c $H/header_only.c -o "$OUTD/h.o"
    check "TDP_NO_LEGACY_NAMES: <immintrin.h> and <random> after targetDP.h, $cxx ${omp:-(no OpenMP)}" \
      $cxx -std=c++17 "${W[@]}" $omp -c $H/reserved_names.cpp -o "$OUTD/r.o"
  done
done
if [ -x "$NVCC_BIN" ]; then
  NW=(-std=c++17 -arch=sm_90 -Xcompiler -Wall,-Wextra -Werror all-warnings -I.)
  check "header as CUDA with nvcc" "$NVCC_BIN" -x cu "${NW[@]}" -c $H/header_only.c -o "$OUTD/h.o"
  check "TDP_NO_LEGACY_NAMES: <immintrin.h> and <random> after targetDP.h, nvcc" \
    "$NVCC_BIN" -x cu "${NW[@]}" -c $H/reserved_names.cpp -o "$OUTD/r.o"
  check "2014 names compile with nvcc" "$NVCC_BIN" -x cu "${NW[@]}" -c $H/legacy_names.c -o "$OUTD/l.o"
else
  echo "ok - header as CUDA with nvcc # SKIP no nvcc"
fi

# Reduction misuse that must fail to compile (tests/headers/reduce_misuse.c).
refused() { # name command...: ok when the command fails
  local name=$1
  shift
  if "$@" >/dev/null 2>&1; then echo "not ok - $name (it compiled)"; else echo "ok - $name"; fi
}
for c in 1 2; do
  what=$([ $c = 1 ] && echo "TDP_ILP inside TDP_TLP_SUM" || echo "a ninth reduction variable")
  refused "$what does not compile, gcc -fopenmp" \
    gcc -std=c99 "${W[@]}" -fopenmp -DCASE=$c -c $H/reduce_misuse.c -o "$OUTD/m.o"
  refused "$what does not compile, gcc (no OpenMP)" \
    gcc -std=c99 "${W[@]}" -DCASE=$c -c $H/reduce_misuse.c -o "$OUTD/m.o"
  if [ -x "$NVCC_BIN" ]; then
    refused "$what does not compile, nvcc" \
      "$NVCC_BIN" -x cu "${NW[@]}" -DCASE=$c -c $H/reduce_misuse.c -o "$OUTD/m.o"
  fi
done
# ... and the file itself is fine without a misuse (so the refusals above
# are the misuse's, not a broken file's).
check "reduce_misuse.c without a misuse compiles, gcc -fopenmp" \
  gcc -std=c99 "${W[@]}" -fopenmp -DCASE=0 -c $H/reduce_misuse.c -o "$OUTD/m.o"

# Every public-looking name of the installed headers is in docs/api.md
# (internal names end in _): scripts/check_api_names.sh. It must also fail
# on a name planted in a header beside them, or it proves nothing.
check "every public name of the headers is in docs/api.md (scripts/check_api_names.sh)" \
  scripts/check_api_names.sh
printf '#define TDP_PLANTED_UNDOCUMENTED 1\nint tdpPlantedUndocumented(void);\n' >"$OUTD/planted.h"
planted=$(scripts/check_api_names.sh targetDP.h "$OUTD/planted.h"); rc=$?
if [ $rc = 1 ] && grep -q "undocumented: TDP_PLANTED_UNDOCUMENTED " <<<"$planted" &&
   grep -q "undocumented: tdpPlantedUndocumented " <<<"$planted"; then
  echo "ok - check_api_names.sh fails on a planted undocumented macro and function, naming both"
else
  echo "not ok - check_api_names.sh fails on a planted undocumented macro and function (rc $rc)"
  echo "$planted" | head -5
fi
exit 0
