#!/usr/bin/env bash
# tests/run_device.sh -- the unit tests on a GPU machine: the CUDA build of
# tests/ run plainly and under compute-sanitizer (memcheck + racecheck).
# Run from the repository root; the log goes to $OUT (or build/).
# The machine needs cmocka: the Makefile finds an unpacked Debian package in
# .deps/root when the system has none (see tests/README.md).
set -uo pipefail
# TESTS_PARTS (default "unit halo"): unit = the unit tests and examples,
# halo = targetDP_halo on the GPUs (scripts/run_multigpu.sh asks for halo).
# TDP_TEST_ONLY="test_a test_b": the unit part builds and runs only those
# binaries (in every GPU configuration, plainly and under the sanitizers),
# e.g. the reduction tests of issue 25:
#   TESTS_PARTS=unit TDP_TEST_ONLY="test_reduce_matrix test_atomics test_inkernel_reduce
#     test_reduce test_checked" bash tests/run_device.sh
TESTS_PARTS=${TESTS_PARTS:-unit halo}
part() { [[ " $TESTS_PARTS " == *" $1 "* ]]; }
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=/usr/local/cuda/bin:$PATH
OUTDIR=${OUT:-build}
mkdir -p "$OUTDIR"
# The exit status: 1 if a unit configuration failed a case or did not end
# with its total line, or an example printed "not ok"; the halo part is read
# from its log.
rc=0
if part unit; then {
  st=0
  date -u +"%Y-%m-%dT%H:%MZ"; git rev-parse --short HEAD 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  # The plain runs, memcheck and racecheck as three processes side by side
  # (one after another they took 461 s of a 600 s device call); the build
  # the sanitizers share is made first so that they do not race on it.
  sb=$(make -s TARGET=cuda LAYOUT=SOA VVL=1 CHECK=0 tests-print-build)
  targets=(tests-build)
  [ -n "${TDP_TEST_ONLY:-}" ] && { targets=(); for b in $TDP_TEST_ONLY; do targets+=("$sb/tests/$b"); done; }
  make -s -j"$(nproc)" TARGET=cuda LAYOUT=SOA VVL=1 CHECK=0 "${targets[@]}" >/dev/null 2>&1
  for r in plain memcheck racecheck; do
    TDP_GPU=1 TDP_SKIP_DEPS=1 TDP_JOBS=$(nproc) TDP_GPU_RUNS=$r TDP_LOGS=build/test-logs-$r \
      bash tests/run_tests.sh >"$OUTDIR/tests_gpu_$r.log" 2>&1 &
  done
  wait
  for r in plain memcheck racecheck; do echo "== $r"; cat "$OUTDIR/tests_gpu_$r.log"; done
  # one total line, as tests/run_tests.sh prints it
  for r in plain memcheck racecheck; do tail -n 1 "$OUTDIR/tests_gpu_$r.log"; done |
    awk '{p += $1; f += $3; s += $5} END {printf "%d passed, %d failed, %d skipped (GPU, all three)\n", p, f, s}'
  for r in plain memcheck racecheck; do
    tail -n 1 "$OUTDIR/tests_gpu_$r.log" | grep -qE '^[0-9]+ passed, 0 failed' || st=1
  done
  echo "== examples on the GPU (scale; heat_targetDP against heat_serial to round-off)"
  TDP_GPU=1 bash tests/suites/examples.sh | tee "$OUTDIR/examples_gpu.log"
  grep -q '^not ok' "$OUTDIR/examples_gpu.log" && st=1
  exit $st
} 2>&1 | tee "$OUTDIR/tests_gpu.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi

# targetDP_halo on the GPUs (tests/mpi/halo_check.c): bit-for-bit exchange
# with each transport, the errors for an unavailable forced transport and
# for more ranks than GPUs, and the time of a 256^3 x 19 exchange (2 ranks).
if part halo; then {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
  ngpu=$(nvidia-smi -L | wc -l)
  echo "== halo on $ngpu GPU(s)"
  make -s -j"$(nproc)" TARGET=cuda LAYOUT=SOA VVL=1 tests-mpi >/dev/null || echo "not ok - build halo_check (TARGET=cuda)"
  hc=$(make -s TARGET=cuda LAYOUT=SOA VVL=1 tests-print-build)/tests/mpi/halo_check
  np=$((ngpu >= 2 ? 2 : 1))
  for t in auto ipc staged direct put; do
    echo "-- TARGETDP_HALO=$t, $np ranks"
    TARGETDP_HALO=$t timeout 120 mpirun --oversubscribe -np $np "$hc" 3 64x32x48 0x0x0 1 19 111
    TARGETDP_HALO=$t timeout 120 mpirun --oversubscribe -np $np "$hc" 4 8x8x8x16 0x0x0x0 2 24 1111
    TARGETDP_HALO=$t timeout 300 mpirun --oversubscribe -np $np "$hc" 3 $((256 * np))x256x256 ${np}x1x1 1 19 111 50
  done
  echo "-- more ranks than GPUs: must be refused on every rank, then allowed"
  timeout 120 mpirun --oversubscribe -np $((ngpu + 1)) "$hc" 3 12x12x12 0x0x0 1 3 111
  TARGETDP_OVERSUBSCRIBE=1 timeout 120 mpirun --oversubscribe -np $((ngpu + 1)) "$hc" 3 12x12x12 0x0x0 1 3 111
} 2>&1 | tee "$OUTDIR/halo_gpu.log"
fi
exit $rc
