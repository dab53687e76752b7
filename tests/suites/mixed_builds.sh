#!/usr/bin/env bash
# Suite: objects compiled in different targetDP configurations (backend,
# layout, VVL, SAL, TPB, checked or not) do not link into one program, and
# the linker's message names both configurations (issue 9 item 4; the mark
# is in targetDP.h). A program object against a library built differently,
# and two program objects built differently, each fail; matching builds
# link and run. Contract: tests/README.md.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
source tests/suites/lib/common.bash

LIBARGS=(CONFIG=gcc-openmp LAYOUT=AOSOA VVL=4 SAL=4 TPB=128 CHECK=0)
LIBTAG=targetDP_config_c_AOSOA_VVL4_SAL4_TPB128_unchecked
if ! make -s -j2 "${LIBARGS[@]}" lib >"$tmp/lib.log" 2>&1; then
  notok "library builds (make ${LIBARGS[*]} lib)" "$tmp/lib.log"
  exit 0
fi
LIB=$(make -s "${LIBARGS[@]}" tests-print-build)/libtargetDP.a
NVCC_BIN=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)

cat >"$tmp/main.c" <<'SRC'
#include "targetDP.h"
int helper(void);
int main(void) {
  targetInit();
  int rc = helper();
  targetFinalize();
  return rc;
}
SRC
cat >"$tmp/helper.c" <<'SRC'
#include "targetDP.h"
int helper(void) {
  double *t = NULL, h = 2.5, back = 0.0;
  targetMalloc(&t, sizeof(double));
  copyToTarget(t, &h, sizeof(double));
  copyFromTarget(&back, t, sizeof(double));
  targetFree(t);
  return back == 2.5 ? 0 : 1;
}
SRC

# flags LAYOUT VVL SAL TPB CHECK: the -D options of one configuration
flags() {
  echo "-I. -DTARGETDP_$1 -DVVL=$2 -DSAL=$3 -DTARGET_TPB=$4 $([ "$5" = 1 ] && echo -DTARGETDP_CHECK)"
}
cc_obj() { # out src flags...
  local out=$1 src=$2
  shift 2
  gcc -std=c99 -O1 -fopenmp -Wall -Wextra "$@" -c "$src" -o "$out"
}

# expect_fail NAME TAG_A TAG_B LOG: the link (already run, status in $rc)
# failed, and its message names both configurations.
expect_fail() {
  local name=$1 a=$2 b=$3 log=$4
  if [ "$rc" -eq 0 ]; then
    notok "$name: link refused (it linked)" "$log"
  elif grep -q "multiple definition of .tdp_objects_built_with_different_targetDP_configurations" "$log" &&
       grep -q "$a" "$log" && grep -q "$b" "$log"; then
    ok "$name: link refused, naming $a and $b"
  else
    notok "$name: link refused, naming $a and $b" "$log"
  fi
}

# 1. matching objects and library link and run
cc_obj "$tmp/main.o" "$tmp/main.c" $(flags AOSOA 4 4 128 0)
cc_obj "$tmp/helper.o" "$tmp/helper.c" $(flags AOSOA 4 4 128 0)
if gcc -fopenmp "$tmp/main.o" "$tmp/helper.o" "$LIB" -lm -o "$tmp/same" >"$tmp/same.log" 2>&1 &&
   "$tmp/same" >>"$tmp/same.log" 2>&1; then
  ok "same configuration: links and runs"
else
  notok "same configuration: links and runs" "$tmp/same.log"
fi

# 2. a program object against a library built differently, one knob at a time
for cfg in "SOA 1 1 128 0" "AOSOA 4 8 128 0" "AOSOA 8 8 128 0" "AOSOA 4 4 256 0" "AOSOA 4 4 128 1"; do
  read -r layout vvl sal tpb check <<<"$cfg"
  tag=targetDP_config_c_${layout}_VVL${vvl}_SAL${sal}_TPB${tpb}_$([ "$check" = 1 ] && echo checked || echo unchecked)
  cc_obj "$tmp/m.o" "$tmp/main.c" $(flags "$layout" "$vvl" "$sal" "$tpb" "$check")
  cc_obj "$tmp/h.o" "$tmp/helper.c" $(flags "$layout" "$vvl" "$sal" "$tpb" "$check")
  gcc -fopenmp "$tmp/m.o" "$tmp/h.o" "$LIB" -lm -o "$tmp/prog" >"$tmp/lib-$tag.log" 2>&1
  rc=$?
  expect_fail "program $layout VVL=$vvl SAL=$sal TPB=$tpb CHECK=$check, library AOSOA VVL=4" \
    "$tag" "$LIBTAG" "$tmp/lib-$tag.log"
done

# 3. two program objects built differently (the library matches the first)
cc_obj "$tmp/h2.o" "$tmp/helper.c" $(flags AOS 2 2 128 0)
gcc -fopenmp "$tmp/main.o" "$tmp/h2.o" "$LIB" -lm -o "$tmp/prog" >"$tmp/two.log" 2>&1
rc=$?
expect_fail "two program objects (AOSOA VVL=4, AOS VVL=2)" "$LIBTAG" \
  targetDP_config_c_AOS_VVL2_SAL2_TPB128_unchecked "$tmp/two.log"

# 4. another backend: an object compiled as CUDA with the C library
if [ -x "$NVCC_BIN" ]; then
  cp "$tmp/helper.c" "$tmp/helper_cu.c"
  if "$NVCC_BIN" -x cu -arch=sm_90 $(flags AOSOA 4 4 128 0) -c "$tmp/helper_cu.c" \
       -o "$tmp/hcu.o" >"$tmp/cuda.log" 2>&1; then
    "$NVCC_BIN" -Xcompiler -fopenmp "$tmp/main.o" "$tmp/hcu.o" "$LIB" -lm -o "$tmp/prog" \
      >>"$tmp/cuda.log" 2>&1
    rc=$?
    expect_fail "CUDA object with the C library" "$LIBTAG" \
      targetDP_config_cuda_AOSOA_VVL4_SAL4_TPB128_unchecked "$tmp/cuda.log"
  else
    notok "CUDA object compiles" "$tmp/cuda.log"
  fi
else
  ok "CUDA object with the C library # SKIP no nvcc"
fi
exit 0
