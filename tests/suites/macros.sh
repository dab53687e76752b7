#!/usr/bin/env bash
# Suite: the loop and layout macros (issue 9 items 9 and 10).
# - break in a TDP_TLP / TDP_TLP_NOSTRIDE / TDP_TLP_SUM body does not compile
#   under OpenMP, and the error names the break (serial C and CUDA stop at
#   run time instead: tests/test_break.c);
# - VVL and SAL given as expressions (-DVVL=2+2) build and give right answers;
# - the loop macros as unbraced if bodies: no dangling-else warning.
# Contract: tests/README.md.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
M=tests/macros
OUTD=build/test-macros
mkdir -p "$OUTD"
NVCC_BIN=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
W=(-std=c99 -O2 -Wall -Wextra -Werror -I.)
have() { command -v "$1" >/dev/null 2>&1; }
log_of() { echo "$OUTD/$(echo "$1" | tr -c 'A-Za-z0-9_.-' _).log"; }

check() { # name command...: must succeed
  local name=$1 log
  shift
  log=$(log_of "$name")
  if "$@" >"$log" 2>&1; then echo "ok - $name"; else echo "not ok - $name"; head -n 15 "$log"; fi
}
check_fails() { # name pattern command...: must fail, its output matching pattern
  local name=$1 pat=$2 log
  shift 2
  log=$(log_of "$name")
  if "$@" >"$log" 2>&1; then
    echo "not ok - $name (compiled)"
  elif grep -qiE "$pat" "$log"; then
    echo "ok - $name"
  else
    echo "not ok - $name (failed, but not with /$pat/)"
    head -n 15 "$log"
  fi
}

for cc in gcc clang; do
  if ! have $cc || ! echo 'int main(void){return 0;}' | $cc -fopenmp -x c - -o /dev/null 2>/dev/null; then
    echo "ok - break in TLP bodies with $cc # SKIP no $cc with OpenMP"
    continue
  fi
  for vvl in 1 4; do
    for loop in 1 2 3; do
      name=$(echo "TDP_TLP TDP_TLP_NOSTRIDE TDP_TLP_SUM" | cut -d' ' -f$loop)
      check_fails "break in a $name body does not compile ($cc -fopenmp, VVL $vvl)" \
        "break.*(OpenMP|omp)|(OpenMP|omp).*break" \
        $cc "${W[@]}" -fopenmp -DVVL=$vvl -DLOOP=$loop -c $M/break_in_tlp.c -o "$OUTD/b.o"
    done
  done
  for omp in "" -fopenmp; do
    check "loop macros as unbraced if bodies, $cc ${omp:-(no OpenMP)}" \
      $cc "${W[@]}" $omp -c $M/unbraced_if.c -o "$OUTD/u.o"
    check "loop macros as unbraced if bodies, $cc ${omp:-(no OpenMP)} -DTDP_ILP_SIMD" \
      $cc "${W[@]}" $omp -DTDP_ILP_SIMD -c $M/unbraced_if.c -o "$OUTD/u.o"
  done
done

# VVL and SAL as expressions: the program and the library built together.
# every C source of the library but the MPI halo module
LIBSRC=()
for f in targetDP_C.c targetDP/targetDP_*.c; do case $f in */targetDP_halo.c | */targetDP_exact_mpi.c | */targetDP_devcomm.c) ;; *) LIBSRC+=("$f") ;; esac; done # MPI modules: not here
for cfg in "2+2 2+2" "2+2 4*2" "1+1 2+2" "2+2 2+2 -DTDP_ILP_SIMD"; do
  read -r vvl sal ilp <<<"$cfg"
  for omp in "" -fopenmp; do
    exe="$OUTD/vvl_expr"
    name="-DVVL=$vvl -DSAL=$sal${ilp:+ $ilp} AoSoA builds and is right (gcc ${omp:-serial})"
    check "$name" bash -c "gcc ${W[*]} $omp $ilp -DTARGETDP_AOSOA '-DVVL=$vvl' '-DSAL=$sal' \
      $M/vvl_expression.c ${LIBSRC[*]} -o $exe -lm && $exe"
  done
done
# Sizes the compiler knows (issue 25 item 5): constants and host arrays
# passed by name are held to their size by every call at -O0 as at -O2, in
# C and C++ (tests/macros/object_sizes.c; the library built once, serial).
LIBOBJ=()
libok=1
for f in "${LIBSRC[@]}"; do
  o="$OUTD/os_$(basename "$f" .c).o"
  gcc "${W[@]}" -c "$f" -o "$o" >"$OUTD/os_lib.log" 2>&1 || { libok=0; break; }
  LIBOBJ+=("$o")
done
for cc in gcc clang g++ clang++; do
  if ! have $cc || [ "$libok" = 0 ]; then
    echo "ok - sizes the compiler knows, $cc # SKIP no $cc or the library did not build"
    continue
  fi
  lang=(-std=c99)
  case $cc in *++) lang=(-x c++ -std=c++17) ;; esac
  for opt in -O0 -O2; do
    check "constants and host arrays held to their size at $opt, $cc" bash -c "
      $cc ${lang[*]} $opt -Wall -Wextra -Werror -I. -c $M/object_sizes.c -o $OUTD/os.o &&
      $cc $OUTD/os.o ${LIBOBJ[*]} -o $OUTD/os -lm && $OUTD/os | grep -q PASS"
  done
done

if [ -x "$NVCC_BIN" ]; then
  check "-DVVL=1+1 -DSAL=2+2 AoSoA compiles with nvcc" "$NVCC_BIN" -x cu -std=c++17 \
    -arch=sm_90 -Xcompiler -Wall,-Wextra -Werror all-warnings -I. -DTARGETDP_AOSOA \
    '-DVVL=1+1' '-DSAL=2+2' -c $M/vvl_expression.c -o "$OUTD/v.o"
  check "loop macros as unbraced if bodies, nvcc" "$NVCC_BIN" -x cu -std=c++17 -arch=sm_90 \
    -Xcompiler -Wall,-Wextra -Werror all-warnings -I. -c $M/unbraced_if.c -o "$OUTD/u.o"
else
  echo "ok - nvcc cases # SKIP no nvcc"
fi
