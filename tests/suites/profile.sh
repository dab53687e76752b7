#!/usr/bin/env bash
# Suite: the profiling build (make PROFILE=1). The unit tests build and pass
# with it in two configurations (test_profile then checks the table that
# targetFinalize prints: one line per kernel and library call, the call
# counts, GB/s where bytes were declared); a program built without
# PROFILE=1 is refused by a PROFILE=1 library; the CUDA profiling build
# (NVTX ranges, event timing) compiles where nvcc exists.
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for cfg in "gcc-openmp AOSOA 4" "gcc-serial SOA 1"; do
  read -r preset layout vvl <<<"$cfg"
  args=(CONFIG="$preset" LAYOUT="$layout" VVL="$vvl" PROFILE=1)
  label="$preset $layout VVL=$vvl"
  build=$(make -s "${args[@]}" tests-print-build)
  # Only the binaries run below (all 31 took most of the suite's 121 s in CI).
  bins=()
  for b in test_profile test_scan test_box test_kernels test_memory; do bins+=("$build/tests/$b"); done
  if ! make -s -j2 "${args[@]}" "${bins[@]}" >"$tmp/build.log" 2>&1; then
    echo "not ok - PROFILE=1 tests build, $label"
    tail -n 20 "$tmp/build.log"
    continue
  fi
  if grep -qi "warning" "$tmp/build.log"; then
    echo "not ok - PROFILE=1 tests build without warnings, $label"
    grep -i -m 5 "warning" "$tmp/build.log"
  else
    echo "ok - PROFILE=1 tests build without warnings, $label"
  fi
  for t in "$build"/tests/test_profile "$build"/tests/test_scan "$build"/tests/test_box \
           "$build"/tests/test_kernels "$build"/tests/test_memory; do
    name=$(basename "$t")
    if out=$("$t" 2>&1) && grep -q "PASSED" <<<"$out" && ! grep -q "FAILED" <<<"$out"; then
      echo "ok - $name passes with PROFILE=1, $label"
    else
      echo "not ok - $name passes with PROFILE=1, $label"
      tail -n 15 <<<"$out"
    fi
  done
  # the table at targetFinalize of a whole test binary
  out=$("$build/tests/test_scan" 2>&1)
  if grep -Eq "^targetDP profile: targetScanInclusiveDouble +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.e+]+ +[0-9.]+$" <<<"$out" &&
     grep -q "^targetDP profile: name " <<<"$out"; then
    echo "ok - targetFinalize prints the table with GB/s for library calls, $label"
  else
    echo "not ok - targetFinalize prints the table with GB/s for library calls, $label"
    grep "targetDP profile" <<<"$out" | head -n 5
  fi
done

# A program compiled without PROFILE=1 against a PROFILE=1 library: refused.
pbuild=$(make -s CONFIG=gcc-openmp LAYOUT=AOSOA VVL=4 PROFILE=1 tests-print-build)
nbuild=$(make -s CONFIG=gcc-openmp LAYOUT=AOSOA VVL=4 tests-print-build)
if make -s -j2 CONFIG=gcc-openmp LAYOUT=AOSOA VVL=4 "$nbuild/obj/tests/test_box.o" >/dev/null 2>&1 &&
   gcc -fopenmp "$nbuild/obj/tests/test_box.o" "$pbuild/libtargetDP.a" -o "$tmp/mixed" -lcmocka -lm \
     >/dev/null 2>&1; then
  out=$("$tmp/mixed" 2>&1)
  if grep -q "targetInit failed.* profile" <<<"$out"; then
    echo "ok - a program built without PROFILE=1 is refused by a PROFILE=1 library"
  else
    echo "not ok - a program built without PROFILE=1 is refused by a PROFILE=1 library"
    head -n 5 <<<"$out"
  fi
else
  echo "ok - mixed profile/plain link # SKIP could not link (cmocka not in the default paths)"
fi

nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
if [ -n "$nvcc" ] && [ -f targetDP_CUDA.cu ]; then
  if make -s -j2 TARGET=cuda PROFILE=1 NVCC="$nvcc" lib >"$tmp/cuda.log" 2>&1 &&
     ! grep -qi "warning" "$tmp/cuda.log"; then
    echo "ok - the CUDA PROFILE=1 library (NVTX, events) compiles without warnings"
    if nvidia-smi -L >/dev/null 2>&1; then
      cbuild=$(make -s TARGET=cuda PROFILE=1 tests-print-build)
      if make -s -j2 TARGET=cuda PROFILE=1 NVCC="$nvcc" "$cbuild/tests/test_profile" \
           >"$tmp/cuda-t.log" 2>&1 && out=$("$cbuild/tests/test_profile" 2>&1) &&
         grep -q "PASSED" <<<"$out" && ! grep -q "FAILED" <<<"$out"; then
        echo "ok - test_profile passes on the GPU with PROFILE=1 (event timing)"
      else
        echo "not ok - test_profile passes on the GPU with PROFILE=1 (event timing)"
        tail -n 15 "$tmp/cuda-t.log"
        tail -n 15 <<<"${out:-}"
      fi
    else
      echo "ok - test_profile on the GPU with PROFILE=1 # SKIP no GPU here"
    fi
  else
    echo "not ok - the CUDA PROFILE=1 library (NVTX, events) compiles without warnings"
    tail -n 20 "$tmp/cuda.log"
  fi
else
  echo "ok - the CUDA PROFILE=1 library compiles # SKIP no nvcc"
fi
exit 0
