#!/usr/bin/env bash
# tests/run_tests.sh -- the whole targetDP test suite; `make test` runs it
# (and CI runs `make test`). Run from anywhere; it works in the repository.
#
#   1. scripts/install_deps.sh (installs missing Debian packages as root)
#   2. C backend unit tests (tests/test_*.c, cmocka) built and run for every
#      LAYOUT in AOS SOA AOSOA x VVL in 1 2 4 8, plus: the serial preset,
#      a checked build (CHECK=1), one configuration with 3 OpenMP threads,
#      SoA VVL 8 with TDP_ILP under "omp simd" (ILP=simd; "GCC ivdep" is the default),
#      and the test programs compiled as C++17 by g++ and by clang++
#      (presets gxx-openmp, clangxx-openmp; the library stays C); the
#      reduction tests (test_reduce_matrix and the other reduction and
#      atomics binaries) with the host presets that the rest does not
#      use: gcc-avx512 (skipped without AVX-512) and clang-openmp (skipped
#      without clang and libomp-dev)
#   3. the same under AddressSanitizer + UBSan (SAN=1): six layout x VVL
#      pairs covering every layout and every VVL (TDP_SAN_VVLS="1 2 4 8"
#      runs the full product) and the checked build; any sanitizer
#      report fails; and the serial preset under valgrind memcheck for
#      SoA VVL 4 and the checked build (zero errors, zero definite or
#      indirect leaks)
#   4. the CUDA backend and the CUDA test binaries compiled and linked with
#      nvcc (no GPU needed): LAYOUT=SOA VVL=1 and LAYOUT=AOSOA VVL=2; a
#      SKIP while targetDP_CUDA.cu or nvcc is missing
#   5. every executable tests/suites/*.sh (benchmarks, apps, ...)
#
# Counting. Every test case of every unit-test binary in every
# configuration counts once: binaries print TAP (CMOCKA_MESSAGE_OUTPUT=TAP),
# `ok` passes, `not ok` fails, `# SKIP` skips. A binary that crashes, times
# out, exits non-zero without a failing case, prints a sanitizer report or
# whose TAP plan (1..N) does not match the cases it printed counts as
# failed (once per missing case, at least once). A build that fails counts
# as one failure. Each CUDA compile-and-link counts as one case.
#
# Suite contract (tests/suites/*.sh). A suite is an executable script run
# from the repository root with no arguments. It prints one line per check:
#     ok - <name>
#     not ok - <name>
#     ok - <name> # SKIP <why>
# (other lines are shown but not counted) and exits 0 when it could run its
# checks, whatever their outcome; a non-zero exit counts as one more
# failure. It may use `make -j2 ...` in the usual configurations (build/ is
# shared) and must finish within TDP_SUITE_TIMEOUT seconds (default 600).
# A *.sh file that is not executable is reported as skipped.
#
# The run ends with exactly one line `N passed, M failed` (or `N passed,
# M failed, K skipped`) and exits non-zero if M > 0. Logs of every build
# and binary are in build/test-logs/.
#
# Environment: TDP_QUICK=1 (make check) runs only the unit tests in the
# default configuration and the CUDA compile of SoA VVL 1 (the edit loop's
# tier, see the block before the GPU one); TDP_GPU=1 runs the CUDA tests on a GPU instead (see the
# block before step 2; TDP_TEST_ONLY="test_a test_b" runs only those
# binaries there; TDP_GPU_RUNS picks plain, memcheck, racecheck);
# TDP_LOGS (default build/test-logs) the log folder; TDP_SKIP_DEPS=1 skips step 1; TDP_SAN_VVLS (unset: six
# pairs; set: every layout with those VVLs); TDP_TEST_TIMEOUT seconds per binary (default 300);
# TDP_SUITE_TIMEOUT seconds per suite (default 600).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
# A nested `make test -jN` must not hand its job server or variables down.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL GNUMAKEFLAGS
# Nor the build knobs of its command line, which make exports: `make CHECK=1
# test` once turned every configuration into a checked one and left the
# unchecked paths untested. Each configuration below names its own.
unset CHECK SAN LAYOUT VVL SAL TPB CONFIG TARGET BUILD

START=$(date +%s)
LOGS=${TDP_LOGS:-build/test-logs}
rm -rf "$LOGS"
mkdir -p "$LOGS"
TEST_TIMEOUT=${TDP_TEST_TIMEOUT:-300}
SUITE_TIMEOUT=${TDP_SUITE_TIMEOUT:-600}
SAN_VVLS=${TDP_SAN_VVLS:-"1 2 4 8"}
MAKE=(make -j"${TDP_JOBS:-2}" --no-print-directory)
RUN_WRAP=()   # a command that runs each test binary (valgrind)

PASS=0
FAIL=0
SKIP=0
FAILED=()     # names of failed cases, listed at the end
SUMMARY=()    # one line per configuration

elapsed() { echo $(($(date +%s) - $1)); }

fail_case() { # name
  FAIL=$((FAIL + 1))
  FAILED+=("$1")
  echo "not ok - $1"
}

finish() {
  echo
  echo "== summary ($(elapsed "$START") s)"
  for line in "${SUMMARY[@]}"; do echo "  $line"; done
  if [ ${#FAILED[@]} -gt 0 ]; then
    echo "failed:"
    for f in "${FAILED[@]}"; do echo "  $f"; done
  fi
  if [ "$SKIP" -gt 0 ]; then
    echo "$PASS passed, $FAIL failed, $SKIP skipped"
  else
    echo "$PASS passed, $FAIL failed"
  fi
  [ "$FAIL" -eq 0 ]
  exit $?
}

# ---------------------------------------------------------------------------
echo "== dependencies"
if ! bash scripts/install_deps.sh; then
  fail_case "scripts/install_deps.sh"
  finish
fi

# run_binary LABEL BINARY [ENV=VALUE ...]: run one cmocka binary, count
# its TAP output. Sets BIN_PASS BIN_FAIL BIN_SKIP.
run_binary() {
  local label=$1 bin=$2 name out err rc
  shift 2
  name=$(basename "$bin")
  out="$LOGS/$label.$name.out"
  err="$LOGS/$label.$name.err"
  env "$@" CMOCKA_MESSAGE_OUTPUT=TAP timeout -k 10 "$TEST_TIMEOUT" ${RUN_WRAP[@]+"${RUN_WRAP[@]}"} \
    "$bin" >"$out" 2>"$err"
  rc=$?
  # plan, passed, failed, skipped
  local counts plan ok notok skip
  counts=$(awk '
    /^1\.\.[0-9]+/ { split($0, a, "."); plan += a[3]; hasplan = 1 }
    /^(not )?ok [0-9]+.*# SKIP/ { skip++; next }
    /^ok [0-9]+/ { ok++ }
    /^not ok [0-9]+/ { notok++ }
    END { printf "%d %d %d %d %d", hasplan ? plan : -1, ok, notok, skip, 0 }' "$out")
  read -r plan ok notok skip _ <<<"$counts"
  BIN_PASS=$ok
  BIN_FAIL=$notok
  BIN_SKIP=$skip
  local why=""
  if [ "$plan" -lt 0 ]; then
    why="no TAP plan"
  elif [ $((ok + notok + skip)) -ne "$plan" ]; then
    why="TAP plan $plan but $((ok + notok + skip)) results"
  fi
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    why="${why:+$why; }timed out after ${TEST_TIMEOUT}s"
  elif [ "$rc" -ge 128 ]; then
    why="${why:+$why; }killed by signal $((rc - 128))"
  elif [ "$rc" -ne 0 ] && [ "$notok" -eq 0 ]; then
    why="${why:+$why; }exit status $rc"
  fi
  if grep -qE 'ERROR: (Address|Leak|Thread|Memory|Undefined)Sanitizer|runtime error:|SUMMARY: (Address|Undefined)' "$err" "$out"; then
    why="${why:+$why; }sanitizer report"
  fi
  if [ ${#RUN_WRAP[@]} -gt 0 ] && grep -qE '^==[0-9]+== ' "$err"; then
    why="${why:+$why; }valgrind report"
  fi
  local t
  while IFS= read -r t; do
    FAILED+=("$label $name: $t")
    echo "not ok - $label $name: $t"
  done < <(grep -E '^not ok [0-9]+' "$out" | grep -v '# SKIP' | sed 's/^not ok [0-9]* - //')
  if [ -n "$why" ]; then
    local missing=1
    if [ "$plan" -gt $((ok + notok + skip)) ]; then missing=$((plan - ok - notok - skip)); fi
    BIN_FAIL=$((BIN_FAIL + missing))
    FAILED+=("$label $name: $why")
    echo "not ok - $label $name: $why"
  fi
  if [ "$BIN_FAIL" -gt 0 ]; then
    echo "---- $out (tail)"; tail -n 25 "$out"
    echo "---- $err (tail)"; tail -n 25 "$err"
  fi
}

# run_config LABEL [ENV=VALUE ...] -- MAKE_ARGS...: build the tests of one
# configuration and run them all (ONLY_BINS="test_a test_b": only those).
run_config() {
  local label=$1 t0 envs=() build bin cp=0 cf=0 cs=0 nbin=0 targets=(tests-build) b
  shift
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  t0=$(date +%s)
  # CHECK explicit in every configuration: checked where asked, else not.
  [[ " $* " == *" CHECK="* ]] || set -- "$@" CHECK=0
  if [ -n "${ONLY_BINS:-}" ]; then
    build=$(make -s "$@" tests-print-build)
    targets=()
    for b in $ONLY_BINS; do targets+=("$build/tests/$b"); done
  fi
  if ! "${MAKE[@]}" "$@" "${targets[@]}" >"$LOGS/$label.build.log" 2>&1; then
    fail_case "$label: build (make $*)"
    tail -n 30 "$LOGS/$label.build.log"
    SUMMARY+=("$(printf '%-28s BUILD FAILED (make %s)' "$label" "$*")")
    return
  fi
  if grep -qE 'warning:' "$LOGS/$label.build.log"; then
    fail_case "$label: compiler warnings (see $LOGS/$label.build.log)"
    grep -E 'warning:' "$LOGS/$label.build.log" | head -n 10
  fi
  build=$(make -s "$@" tests-print-build)
  local src
  for src in tests/test_*.c; do
    bin="$build/tests/$(basename "$src" .c)"
    if [ -n "${ONLY_BINS:-}" ] && [[ " $ONLY_BINS " != *" $(basename "$src" .c) "* ]]; then
      continue
    fi
    if [ -n "${SKIP_BINS:-}" ] && [[ " $SKIP_BINS " == *" $(basename "$src" .c) "* ]]; then
      cs=$((cs + 1))
      echo "ok - $label $(basename "$src" .c) # SKIP $SKIP_WHY"
      continue
    fi
    if [ ! -x "$bin" ]; then
      FAILED+=("$label: $bin was not built")
      echo "not ok - $label: $bin was not built"
      cf=$((cf + 1))
      continue
    fi
    nbin=$((nbin + 1))
    run_binary "$label" "$bin" "${envs[@]}"
    cp=$((cp + BIN_PASS)); cf=$((cf + BIN_FAIL)); cs=$((cs + BIN_SKIP))
  done
  if [ "$nbin" -eq 0 ]; then
    FAILED+=("$label: no test binaries in $build/tests")
    echo "not ok - $label: no test binaries in $build/tests"
    cf=$((cf + 1))
  fi
  PASS=$((PASS + cp)); FAIL=$((FAIL + cf)); SKIP=$((SKIP + cs))
  local line
  line=$(printf '%-28s %4d passed, %d failed%s  (%d binaries, %ds)' "$label" "$cp" "$cf" \
         "$([ "$cs" -gt 0 ] && echo ", $cs skipped")" "$nbin" "$(elapsed "$t0")")
  SUMMARY+=("$line")
  echo "$line"
}

# cuda_compile LAYOUT VVL: the CUDA backend and every test binary compiled
# and linked with nvcc (no GPU needed); one case.
NVCC_BIN=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
cuda_compile() {
  local layout=$1 vvl=$2 label t0 build nbin nsrc
  label="cuda-$layout-vvl$vvl"
  if [ ! -f targetDP_CUDA.cu ]; then
    SKIP=$((SKIP + 1))
    echo "ok - $label: build # SKIP targetDP_CUDA.cu does not exist yet"
    SUMMARY+=("$(printf '%-28s skipped (no targetDP_CUDA.cu)' "$label")")
    return
  fi
  if [ ! -x "$NVCC_BIN" ]; then
    SKIP=$((SKIP + 1))
    echo "ok - $label: build # SKIP no nvcc (PATH or /usr/local/cuda/bin)"
    SUMMARY+=("$(printf '%-28s skipped (no nvcc)' "$label")")
    return
  fi
  t0=$(date +%s)
  if "${MAKE[@]}" TARGET=cuda LAYOUT=$layout VVL=$vvl tests-build >"$LOGS/$label.build.log" 2>&1; then
    build=$(make -s TARGET=cuda LAYOUT=$layout VVL=$vvl tests-print-build)
    nbin=$(find "$build/tests" -maxdepth 1 -name 'test_*' -type f -perm -u+x | wc -l)
    nsrc=$(find tests -maxdepth 1 -name 'test_*.c' | wc -l)
    if [ "$nbin" -ne "$nsrc" ]; then
      fail_case "$label: build: $nbin binaries for $nsrc test sources"
      SUMMARY+=("$(printf '%-28s BUILD INCOMPLETE' "$label")")
    elif grep -qE 'warning' "$LOGS/$label.build.log"; then
      fail_case "$label: compiler warnings (see $LOGS/$label.build.log)"
      grep -E 'warning' "$LOGS/$label.build.log" | head -n 10
      SUMMARY+=("$(printf '%-28s built with warnings' "$label")")
    else
      PASS=$((PASS + 1))
      echo "ok - $label: library and $nbin test binaries built"
      SUMMARY+=("$(printf '%-28s    1 passed (compiled and linked %d binaries, %ds)' "$label" "$nbin" "$(elapsed "$t0")")")
    fi
  else
    fail_case "$label: build (make TARGET=cuda LAYOUT=$layout VVL=$vvl tests-build)"
    tail -n 30 "$LOGS/$label.build.log"
    SUMMARY+=("$(printf '%-28s BUILD FAILED' "$label")")
  fi
}

# ---------------------------------------------------------------------------
# TDP_QUICK=1 (make check): the edit loop's tier, a few minutes on 2 cores:
# the unit tests in the default configuration (gcc-openmp, SoA, VVL 8) and
# one CUDA compile and link (SoA VVL 1). `make test` runs everything.
if [ "${TDP_QUICK:-0}" = 1 ]; then
  echo "== quick tier: default configuration, one CUDA compile"
  run_config "c-default-SOA-vvl8" -- CONFIG=gcc-openmp LAYOUT=SOA VVL=8
  cuda_compile SOA 1
  finish
fi

# ---------------------------------------------------------------------------
# TDP_GPU=1: on a machine with an NVIDIA GPU (tests/run_device.sh sets it),
# the same test sources built with TARGET=cuda run on the GPU, then under
# compute-sanitizer memcheck (with leak check) and racecheck.
if [ "${TDP_GPU:-0}" = 1 ]; then
  echo "== CUDA backend on the GPU${TDP_TEST_ONLY:+ (only $TDP_TEST_ONLY)}"
  ONLY_BINS=${TDP_TEST_ONLY:-}
  # TPB 1024: every kernel fits its launch bounds (or would not compile)
  # and runs with the largest block (issue 9 item 7). SoA VVL 4: lanes a
  # block apart (test_lanes checks the map; issue 10 item 2).
  # TDP_GPU_RUNS (default "plain memcheck racecheck"): which of the three
  # to run; tests/run_device.sh runs them as three processes side by side.
  GPU_RUNS=${TDP_GPU_RUNS:-plain memcheck racecheck}
  if [[ " $GPU_RUNS " == *" plain "* ]]; then
    for cfg in "SOA 1 128" "AOSOA 2 128" "SOA 4 256" "AOS 1 256" "SOA 1 1024"; do
      read -r layout vvl tpb <<<"$cfg"
      run_config "gpu-$layout-vvl$vvl-tpb$tpb" -- TARGET=cuda LAYOUT=$layout VVL=$vvl TPB=$tpb
    done
    run_config "gpu-checked-SOA-vvl1" -- TARGET=cuda LAYOUT=SOA VVL=1 CHECK=1
  fi
  for tool in memcheck racecheck; do
    [[ " $GPU_RUNS " == *" $tool "* ]] || continue
    # TDP_TEST_NO_BIG: test_extents skips its 2 GiB field under the tool.
    RUN_WRAP=(env TDP_TEST_NO_BIG=1 compute-sanitizer --tool "$tool" --error-exitcode 99)
    # The error-path tests provoke CUDA API errors on purpose (a 2^60-byte
    # cudaMalloc); the layer checks and reports every API call itself.
    [ "$tool" = memcheck ] && RUN_WRAP+=(--leak-check full --report-api-errors no)
    # TDP_TEST_SMALL: test_scan's compactions stop at 100003 sites under
    # racecheck (every staged position is a tracked shared-memory access);
    # test_reduce_matrix leaves out its 100003-site size there.
    # TDP_TEST_NO_FORK (TU_SKIP_IF_NO_FORK): test_team's and test_stencil's
    # forked cases that trap on the device are skipped under both
    # tools; they run plainly, where their messages are checked. Their
    # kernels trap on purpose and the children exit holding their target
    # memory: memcheck counted 40 errors and 4 leaks in them (H100,
    # 2026-11-26), none in the parent.
    RUN_WRAP=(env TDP_TEST_NO_FORK=1 "${RUN_WRAP[@]}")
    [ "$tool" = racecheck ] && RUN_WRAP=(env TDP_TEST_SMALL=1 "${RUN_WRAP[@]}")
    # racecheck looks for shared-memory hazards inside kernels; test_abort
    # runs no kernel in its parent, only forked children that exit on
    # purpose, and under racecheck its parent crashed once in five runs
    # (SIGSEGV in the tool's fork handling; 2026-11-22, H100), never
    # without it. It runs plainly and under memcheck above. test_break
    # forks the same way (its kernels are trivial).
    if [ "$tool" = racecheck ]; then
      SKIP_BINS="test_abort test_break"
      SKIP_WHY="no kernels worth race-checking; forks under racecheck are unreliable"
    else
      # test_break's kernels trap on purpose (a break in a TLP body stops
      # the program), and memcheck counts each trapping thread as an error:
      # it runs plainly above, where the trap and its message are checked.
      SKIP_BINS="test_break"
      SKIP_WHY="its kernels trap on purpose; checked in the plain GPU runs"
    fi
    run_config "gpu-$tool-SOA-vvl1" -- TARGET=cuda LAYOUT=SOA VVL=1
    SKIP_BINS=""
  done
  RUN_WRAP=()
  finish
fi

# ---------------------------------------------------------------------------
echo "== C backend: every layout x VVL"
for layout in AOS SOA AOSOA; do
  for vvl in 1 2 4 8; do
    run_config "c-$layout-vvl$vvl" -- CONFIG=gcc-openmp LAYOUT=$layout VVL=$vvl
  done
done
echo "== C backend: other presets and modes"
run_config "c-serial-AOSOA-vvl4" -- CONFIG=gcc-serial LAYOUT=AOSOA VVL=4
# Also gcc's edge rows in strides (-DTDP_EDGE_STRIDES_; every other gcc
# build at VVL > 1 takes the sites form for them, targetDP_C.h), so that
# form stays tested beyond VVL 1.
run_config "c-AOSOA-vvl4-sal8" -- CONFIG=gcc-openmp LAYOUT=AOSOA VVL=4 SAL=8 \
  CC="gcc -DTDP_EDGE_STRIDES_" BUILD=build/gcc-openmp-AOSOA-vvl4-sal8-tpb128-edgestrides
run_config "c-checked-AOSOA-vvl4" -- CONFIG=gcc-openmp LAYOUT=AOSOA VVL=4 CHECK=1
run_config "c-SOA-vvl8-simd" -- CONFIG=gcc-openmp LAYOUT=SOA VVL=8 ILP=simd
run_config "c-AOSOA-vvl4-3threads" OMP_NUM_THREADS=3 TARGETDP_QUIET=1 -- \
  CONFIG=gcc-openmp LAYOUT=AOSOA VVL=4

echo "== C backend, test programs compiled as C++17 (g++, clang++)"
run_config "cxx-g++-AOSOA-vvl4" -- CONFIG=gxx-openmp LAYOUT=AOSOA VVL=4
if echo 'int main(){return 0;}' | clang++ -fopenmp -x c++ - -o /dev/null 2>/dev/null; then
  run_config "cxx-clang++-SOA-vvl2" -- CONFIG=clangxx-openmp LAYOUT=SOA VVL=2
else
  SKIP=$((SKIP + 1))
  echo "ok - cxx-clang++-SOA-vvl2 # SKIP no clang++ with OpenMP (clang, libomp-dev)"
  SUMMARY+=("$(printf '%-28s skipped (no clang++ -fopenmp)' "cxx-clang++-SOA-vvl2")")
fi

echo "== C backend: the reduction tests with the other host presets"
# Every in-kernel and library reduction against its serial reference
# (test_reduce_matrix) on every host compiler: clang 14 returned a third of
# a conditional sum through the layer's first OpenMP form (issue 25). The
# presets above run every test; these two only the reduction binaries, so
# they cost ~1 min on 2 cores.
ONLY_BINS="test_reduce_matrix test_inkernel_reduce test_reduce test_atomics test_box_reduce"
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  run_config "c-avx512-SOA-vvl8" -- CONFIG=gcc-avx512 LAYOUT=SOA VVL=8
else
  SKIP=$((SKIP + 1))
  echo "ok - c-avx512-SOA-vvl8 # SKIP this CPU has no AVX-512"
  SUMMARY+=("$(printf '%-28s skipped (no AVX-512)' "c-avx512-SOA-vvl8")")
fi
if printf '#include <omp.h>\nint main(void) { return omp_get_max_threads() < 1; }\n' |
   clang -fopenmp ${CLANG_OMP_LIB:+-L"$CLANG_OMP_LIB"} -x c - -o /dev/null 2>/dev/null; then
  run_config "c-clang-SOA-vvl8" -- CONFIG=clang-openmp LAYOUT=SOA VVL=8
else
  SKIP=$((SKIP + 1))
  echo "ok - c-clang-SOA-vvl8 # SKIP no clang with OpenMP (clang, libomp-dev)"
  SUMMARY+=("$(printf '%-28s skipped (no clang -fopenmp)' "c-clang-SOA-vvl8")")
fi
ONLY_BINS=""

echo "== C backend under AddressSanitizer + UBSan"
SAN_ENV=(ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
         UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1)
# Each VVL in some layout and each layout once (with the checked build
# below: AOS 1, SOA 2, AOSOA 8, checked AOSOA 4); every layout x VVL runs
# unsanitized above. The full product took 13 x ~95 s of the CI run's 74
# minutes, and six of these ~65 s each kept CI at 48-51 minutes;
# TDP_SAN_VVLS="1 2 4 8" asks for the product.
SAN_CFGS=()
if [ -n "${TDP_SAN_VVLS:-}" ]; then
  for layout in AOS SOA AOSOA; do
    for vvl in $SAN_VVLS; do SAN_CFGS+=("$layout $vvl"); done
  done
else
  SAN_CFGS=("AOS 1" "SOA 2" "AOSOA 8")
fi
for cfg in "${SAN_CFGS[@]}"; do
  read -r layout vvl <<<"$cfg"
  run_config "san-$layout-vvl$vvl" "${SAN_ENV[@]}" -- SAN=1 CONFIG=gcc-openmp LAYOUT=$layout VVL=$vvl
done
# The checked build's own tests (test_checked) plant bugs in forked
# children: under the sanitizers too, nothing but the planted bug may show.
run_config "san-checked-AOSOA-vvl4" "${SAN_ENV[@]}" -- SAN=1 CHECK=1 CONFIG=gcc-openmp \
  LAYOUT=AOSOA VVL=4

echo "== C backend under valgrind memcheck (serial preset: no OpenMP runtime noise)"
if command -v valgrind >/dev/null 2>&1; then
  # AVX2 at most: valgrind does not decode AVX-512.
  # Any valgrind line in a binary's stderr fails it (run_binary), and a
  # definite or indirect leak or a memory error makes it exit 99. Each
  # configuration costs ~10 s to run and ~30 s to build on 2 cores.
  RUN_WRAP=(env TDP_TEST_NO_BIG=1 valgrind -q --error-exitcode=99 --leak-check=full
            --errors-for-leak-kinds=definite,indirect --track-origins=yes)
  # valgrind finds what ASan does not (uninitialised reads): one plain and
  # the checked build, whose tests reach the most paths; ~190 s each.
  for cfg in "SOA 4 0" "AOSOA 4 1"; do
    read -r layout vvl check <<<"$cfg"
    label="valgrind-$([ "$check" = 1 ] && echo checked || echo serial)-$layout-vvl$vvl"
    run_config "$label" -- CONFIG=gcc-serial LAYOUT=$layout VVL=$vvl CHECK=$check \
      BUILD=build/$label \
      CFLAGS="-std=c99 -O2 -g -march=x86-64-v3 -Wall -Wextra -Wno-unknown-pragmas"
  done
  RUN_WRAP=()
else
  SKIP=$((SKIP + 1))
  echo "ok - valgrind-serial # SKIP no valgrind"
  SUMMARY+=("$(printf '%-28s skipped (no valgrind)' "valgrind-serial")")
fi

# ---------------------------------------------------------------------------
echo "== CUDA backend: compile and link (no GPU needed)"
for cfg in "SOA 1" "AOSOA 2"; do
  read -r layout vvl <<<"$cfg"
  cuda_compile "$layout" "$vvl"
done

# ---------------------------------------------------------------------------
echo "== extra suites (tests/suites/*.sh)"
shopt -s nullglob
for suite in tests/suites/*.sh; do
  sname=$(basename "$suite" .sh)
  if [ ! -x "$suite" ]; then
    SKIP=$((SKIP + 1))
    echo "ok - suite $sname # SKIP $suite is not executable (chmod +x)"
    SUMMARY+=("$(printf '%-28s skipped (not executable)' "suite $sname")")
    continue
  fi
  t0=$(date +%s)
  log="$LOGS/suite-$sname.log"
  timeout -k 10 "$SUITE_TIMEOUT" "./$suite" >"$log" 2>&1
  rc=$?
  sp=0; sf=0; ss=0
  while IFS= read -r line; do
    case "$line" in
      "ok - "*"# SKIP"*) ss=$((ss + 1)) ;;
      "ok - "*) sp=$((sp + 1)) ;;
      "not ok - "*) sf=$((sf + 1)); FAILED+=("suite $sname: ${line#not ok - }") ;;
    esac
  done <"$log"
  grep -E '^(not )?ok - ' "$log" | sed "s/^/  [$sname] /"
  if [ "$rc" -ne 0 ]; then
    sf=$((sf + 1))
    FAILED+=("suite $sname: exited with status $rc$([ "$rc" -eq 124 ] && echo " (timed out after ${SUITE_TIMEOUT}s)")")
    echo "not ok - suite $sname exited with status $rc; tail of $log:"
    tail -n 25 "$log"
  fi
  PASS=$((PASS + sp)); FAIL=$((FAIL + sf)); SKIP=$((SKIP + ss))
  SUMMARY+=("$(printf '%-28s %4d passed, %d failed%s  (%ds)' "suite $sname" "$sp" "$sf" \
            "$([ "$ss" -gt 0 ] && echo ", $ss skipped")" "$(elapsed "$t0")")")
done
shopt -u nullglob

finish
