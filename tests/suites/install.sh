#!/usr/bin/env bash
# Suite: adopting targetDP without its build (issue 14). `make install` into
# a temporary prefix, the C and (with nvcc) CUDA backends side by side;
# the installed configuration header gives a plain -I$PREFIX/include build
# the library's configuration (CUDA: TPB 256 from the preset, not the
# header's 128); pkg-config and targetDP-config agree; examples/ built out of
# tree with its plain Makefile (pkg-config) and with CMake
# (find_package(targetDP)): on the C backend the programs run (scale in C
# and C++, heat_targetDP against heat_serial to round-off), the CUDA
# variants compile and link; `make uninstall` leaves nothing behind.
# Contract: tests/README.md.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL GNUMAKEFLAGS
T=$(mktemp -d "${TMPDIR:-/tmp}/tdp-install.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
P=$T/prefix
LOG=$T/log
NVCC_BIN=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
have_nvcc=0; [ -x "$NVCC_BIN" ] && [ -f targetDP_CUDA.cu ] && have_nvcc=1
export PATH="$(dirname "$NVCC_BIN"):$PATH"

# check NAME CMD...: ok when CMD succeeds, else not ok and the log's tail.
check() {
  local name=$1
  shift
  if "$@" >"$LOG" 2>&1; then
    echo "ok - $name"
  else
    echo "not ok - $name"
    tail -n 20 "$LOG" | sed 's/^/    /'
  fi
}
skip() { echo "ok - $1 # SKIP $2"; }
# no warnings in a build log
clean_build() { # CMD...
  "$@" >"$T/build.log" 2>&1 || { cat "$T/build.log"; return 1; }
  if grep -iE 'warning' "$T/build.log"; then return 1; fi
}

# ---- install
check "make install PREFIX=<tmp> (C backend, gcc-openmp)" \
  make -s -j2 CONFIG=gcc-openmp install PREFIX="$P"
if [ "$have_nvcc" = 1 ]; then
  check "make install PREFIX=<tmp> TARGET=cuda beside it" make -s -j2 TARGET=cuda install PREFIX="$P"
else
  skip "make install TARGET=cuda" "no nvcc"
fi
backends=c
[ "$have_nvcc" = 1 ] && backends="c cuda"
for b in $backends; do
  check "installed files of the $b backend" test -f "$P/include/targetDP.h" -a \
    -f "$P/include/targetDP/targetDP_compat.h" -a -f "$P/include/targetDP/config_$b.h" -a \
    -f "$P/include/targetDP/targetDP_lanes.h" -a -f "$P/include/targetDP/targetDP_atomics.h" -a \
    -f "$P/include/targetDP/targetDP_types.h" -a -f "$P/include/targetDP/targetDP_scan.h" -a \
    -f "$P/include/targetDP/targetDP_async.h" -a -f "$P/include/targetDP/targetDP_box.h" -a \
    -f "$P/include/targetDP_halo.h" -a -f "$P/include/targetDP_exact_mpi.h" -a \
    -f "$P/include/targetDP_devcomm.h" -a ! -f "$P/include/targetDP/targetDP_devcomm.h" -a \
    ! -f "$P/include/targetDP_internal.h" -a ! -f "$P/include/targetDP/targetDP_internal.h" -a \
    -f "$P/lib/libtargetDP_$b.a" -a -f "$P/lib/pkgconfig/targetDP-$b.pc" -a \
    -f "$P/lib/cmake/targetDP/targetDP-$b.cmake" -a -x "$P/bin/targetDP-config"
done

# ---- configuration: pkg-config, targetDP-config, the installed header
export PKG_CONFIG_PATH=$P/lib/pkgconfig
for b in $backends; do
  check "targetDP-config --backend $b --cflags --libs equals pkg-config targetDP-$b" bash -c '
    a=$("$1/bin/targetDP-config" --backend "$2" --cflags --libs | tr " " "\n" | sed "/^$/d" | sort -u)
    b=$(pkg-config --cflags --libs "targetDP-$2" | tr " " "\n" | sed "/^$/d" | sort -u)
    echo "targetDP-config: $a"; echo "pkg-config: $b"; [ -n "$a" ] && [ "$a" = "$b" ]' _ "$P" "$b"
done
cfg_c=$("$P/bin/targetDP-config" --backend c --config)
check "targetDP-config --config names the library's build (c: $cfg_c)" \
  test "$cfg_c" = "backend=c $(make -s CONFIG=gcc-openmp -f Makefile \
    --eval 'pcfg: ; @echo layout=$(LAYOUT) VVL=$(VVL) SAL=$(SAL) TPB=$(TPB)' pcfg) arch=portable"

# ---- the CPU it targets (issue 25 item 10): portable unless ARCH is given.
# A library built with -march=native on a login node dies with an illegal
# instruction on a compute node of an older CPU. The library's own code is
# read back: no VEX/EVEX (AVX) instruction in a portable build (the
# compiler's default x86-64 target has none), some in ARCH=native where
# this CPU has AVX2 (the reductions and fills vectorise).
avx_count() { # library: AVX (v-prefixed) instructions and ymm/zmm operands in its code
  objdump -d --no-show-raw-insn "$1" | awk -F'\t' 'NF >= 2 && ($2 ~ /^v[a-z]/ || $2 ~ /%[yz]mm/) { n++ }
    END { print n + 0 }'
}
arch_c=$("$P/bin/targetDP-config" --backend c --arch 2>&1)
check "targetDP-config --arch says the default install is portable ($arch_c)" \
  grep -q '^portable' <<<"$arch_c"
check "the installed config header says what the library targets" \
  grep -q 'TARGETDP_INSTALL_ARCH "portable"' "$P/include/targetDP/config_c.h"
if command -v objdump >/dev/null 2>&1; then
  n=$(avx_count "$P/lib/libtargetDP_c.a")
  check "the default install (no ARCH) has no AVX instruction: no -march=native ($n found)" test "$n" -eq 0
else
  skip "the default install has no AVX instruction" "no objdump"
fi
check "make install ARCH=native: the library for this CPU, and it says so" bash -c \
  'make -s -j2 CONFIG=gcc-openmp install ARCH=native PREFIX="$1" >/dev/null &&
   "$1/bin/targetDP-config" --arch | grep -q "^native" &&
   grep -q "TARGETDP_INSTALL_ARCH \"native\"" "$1/include/targetDP/config_c.h"' _ "$T/native"
if command -v objdump >/dev/null 2>&1 && grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  n=$(avx_count "$T/native/lib/libtargetDP_c.a")
  check "make install ARCH=native uses this CPU's AVX ($n instructions)" test "$n" -gt 0
else
  skip "make install ARCH=native uses AVX" "no objdump or no AVX2 here"
fi
rm -rf "$T/native"
check "in-tree builds keep the preset's -march=native (the benchmarks want it)" bash -c \
  'make -s CONFIG=gcc-openmp -f Makefile --eval "pf: ; @echo \$(CFLAGS)" pf | grep -q -- -march=native'
check "targetDP-config refuses a backend that is not installed" bash -c \
  '! "$1/bin/targetDP-config" --backend hip --cflags 2>&1 && "$1/bin/targetDP-config" --backend hip --cflags 2>&1 | grep -q "not installed"' _ "$P"

# The header alone (-I$PREFIX/include, no -D) must carry the library's
# configuration: TARGETDP_CONFIG as the compiler sees it.
printf '#include "targetDP.h"\nconst char *probe = TARGETDP_CONFIG;\n' >"$T/probe.c"
seen_config() { # compiler-preprocess-command...: the joined TARGETDP_CONFIG string
  "$@" | sed -n 's/^const char \*probe = \(.*\);$/\1/p' | sed 's/" *"//g; s/"//g'
}
got=$(seen_config gcc -E -I"$P/include" "$T/probe.c")
check "gcc -I<prefix>/include alone sees the C library's configuration ($got)" test "$got" = "${cfg_c% arch=*}"
if [ "$have_nvcc" = 1 ]; then
  cfg_cuda=$("$P/bin/targetDP-config" --backend cuda --config)
  got=$(seen_config "$NVCC_BIN" -x cu -E -I"$P/include" "$T/probe.c" 2>/dev/null)
  check "nvcc -I<prefix>/include alone sees the CUDA library's configuration ($got)" \
    test "$got" = "${cfg_cuda% arch=*}"
  check "the CUDA library's TPB comes from its preset (256), not the header default (128)" \
    grep -q 'TPB=256' <<<"$cfg_cuda"
fi
# ... and a program built that way is accepted by targetInit.
cat >"$T/init.c" <<'C'
#include "targetDP.h"
int main(void) {
  targetSetErrorAbort(0);
  int rc = targetInit();
  printf("%s\n", rc ? targetLastErrorString() : "init ok");
  double *p = (double *) malloc(8); /* <stdlib.h> through the header */
  free(p);
  return rc != 0 || targetFinalize() != 0;
}
C
check "a C program built with -I<prefix>/include -ltargetDP_c only passes targetInit" bash -c \
  'gcc -std=c99 -Wall -Wextra -Werror -fopenmp -I"$1/include" "$2/init.c" -o "$2/init" -L"$1/lib" -ltargetDP_c -lm &&
   "$2/init" | grep -q "init ok"' _ "$P" "$T"
# The same without -fopenmp: the link fails (the library's OpenMP runtime
# calls), and names what is missing, not only GOMP_* / omp_* symbols.
check "a C program built without -fopenmp fails to link, naming -fopenmp" bash -c \
  '! gcc -std=c99 -I"$1/include" "$2/init.c" -o "$2/init_noomp" -L"$1/lib" -ltargetDP_c -lm \
     >"$2/noomp.log" 2>&1 &&
   grep -q "targetDP_library_uses_OpenMP__compile_and_link_the_program_with_fopenmp" "$2/noomp.log"' \
  _ "$P" "$T"

# ---- out of tree: plain Makefile with pkg-config
cp -r examples "$T/src"
heat_agree() { # dir: heat_targetDP agrees with heat_serial to round-off
  local d=$1 nx ny n
  for size in "64 48 200" "37 29 150"; do
    read -r nx ny n <<<"$size"
    "$d/heat_serial" "$nx" "$ny" "$n" "$T/serial.txt" >/dev/null || return 1
    "$d/heat_targetDP" "$nx" "$ny" "$n" "$T/tdp.txt" || return 1
    paste "$T/serial.txt" "$T/tdp.txt" | awk -v size="$nx x $ny, $n steps" '
      function abs(x) { return x < 0 ? -x : x }
      { d = abs($1 - $2); if (d > dmax) dmax = d; if (abs($1) > umax) umax = abs($1); n++ }
      END { printf "%s: %d sites, max |diff| %g, max |u| %g\n", size, n, dmax, umax;
            exit !(n == '"$nx"' * '"$ny"' && umax > 0.1 && dmax <= 1e-12 * umax) }' || return 1
  done
}
run_examples() { # dir label
  local d=$1
  "$d/scale" 1003 | grep -q ': correct' && "$d/scale" 100003 | grep -q ': correct' &&
    "$d/scale_cxx" 1003 | grep -q ': correct' && heat_agree "$d"
}
check "examples/Makefile (pkg-config), C backend: builds without warnings" clean_build make -C "$T/src"
check "examples/Makefile (pkg-config), C backend: scale, scale_cxx run; heat_targetDP = heat_serial to round-off" \
  run_examples "$T/src"
if [ "$have_nvcc" = 1 ]; then
  make -s -C "$T/src" clean
  check "examples/Makefile (pkg-config), CUDA backend: compiles and links without warnings" \
    clean_build make -C "$T/src" BACKEND=cuda scale scale_cxx heat_targetDP
else
  skip "examples/Makefile, CUDA backend" "no nvcc"
fi

# ---- out of tree: CMake
if command -v cmake >/dev/null 2>&1; then
  check "examples/CMakeLists.txt (find_package(targetDP)), C backend: builds without warnings" \
    clean_build bash -c 'cmake -S "$1/src" -B "$1/cm-c" -DCMAKE_PREFIX_PATH="$2" &&
                         cmake --build "$1/cm-c" -j2' _ "$T" "$P"
  check "examples/CMakeLists.txt, C backend: programs run and agree" run_examples "$T/cm-c"
  check "CMake: targetDP::c carries the configuration's compile definitions" \
    grep -q -- "-DTARGETDP_$(make -s CONFIG=gcc-openmp -f Makefile --eval 'pl: ; @echo $(LAYOUT).*-DVVL=$(VVL)' pl)" \
    "$T/cm-c/CMakeFiles/scale.dir/flags.make"
  if [ "$have_nvcc" = 1 ]; then
    check "examples/CMakeLists.txt, CUDA backend (targetDP::cuda): compiles and links without warnings" \
      clean_build bash -c 'cmake -S "$1/src" -B "$1/cm-cuda" -DCMAKE_PREFIX_PATH="$2" \
                             -DTDP_BACKEND=cuda -DCMAKE_CUDA_COMPILER="$3" &&
                           cmake --build "$1/cm-cuda" -j2' _ "$T" "$P" "$NVCC_BIN"
    check "CMake: targetDP::cuda carries TARGET_TPB=256" \
      grep -q -- '-DTARGET_TPB=256' "$T/cm-cuda/CMakeFiles/scale.dir/flags.make"
  fi
  check "CMake: a backend that is not installed is a clear error" bash -c \
    '! cmake -S "$1/src" -B "$1/cm-bad" -DCMAKE_PREFIX_PATH="$2" -DTDP_BACKEND=hip >"$1/bad.log" 2>&1 &&
     grep -q "not installed" "$1/bad.log"' _ "$T" "$P"
else
  skip "examples/CMakeLists.txt" "no cmake (scripts/install_deps.sh installs it)"
fi

# ---- the 2014 dispatch refuses what it cannot mean (compile errors, not silence)
printf '#include "targetDP.h"\nint f(void) { return targetInit(3); }\n' >"$T/init1.c"
check "targetInit(x) with one argument is a compile error" bash -c \
  '! gcc -std=c99 -fsyntax-only -I"$1/include" "$2/init1.c" 2>/dev/null' _ "$P"  "$T"
printf '#include "targetDP.h"\ndouble f(double *t) { return targetDoubleSum(t, 10); }\n' >"$T/sum2.c"
check "the 2014 targetDoubleSum(t, n) is a compile error (docs/migration.md)" bash -c \
  '! gcc -std=c99 -fsyntax-only -I"$1/include" "$2/sum2.c" 2>/dev/null' _ "$P" "$T"

# ---- CMake without components, and a version that is not there
if command -v cmake >/dev/null 2>&1; then
  mkdir -p "$T/cm-any"
  cat >"$T/cm-any/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(any LANGUAGES C)
find_package(targetDP 0.1 REQUIRED)
if(NOT TARGET targetDP::c)
  message(FATAL_ERROR "no targetDP::c")
endif()
find_package(targetDP 99.0 QUIET)
if(targetDP_FOUND)
  message(FATAL_ERROR "version 99.0 accepted")
endif()
CM
  check "CMake: find_package(targetDP 0.1) without components; version 99 refused" \
    cmake -S "$T/cm-any" -B "$T/cm-any/b" -DCMAKE_PREFIX_PATH="$P"
fi

# ---- a staged install (DESTDIR): files under the stage, paths for PREFIX
check "make install DESTDIR=<stage> PREFIX=/opt/tdp: staged files name /opt/tdp" bash -c \
  'make -s CONFIG=gcc-openmp install DESTDIR="$1/stage" PREFIX=/opt/tdp >/dev/null &&
   test -f "$1/stage/opt/tdp/lib/libtargetDP_c.a" &&
   grep -qx "prefix=/opt/tdp" "$1/stage/opt/tdp/lib/pkgconfig/targetDP-c.pc" && test ! -e /opt/tdp' _ "$T"

# ---- uninstall
check "make uninstall PREFIX=<tmp> removes every installed file" bash -c \
  'make -s uninstall PREFIX="$1" && [ -z "$(find "$1" -type f 2>/dev/null)" ]' _ "$P"
exit 0
