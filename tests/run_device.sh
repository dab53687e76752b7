#!/usr/bin/env bash
# tests/run_device.sh -- the unit tests on a GPU machine: the CUDA build of
# tests/ run plainly and under compute-sanitizer (memcheck + racecheck).
# Run from the repository root; the log goes to $OUT (or build/).
# The machine needs cmocka: the Makefile finds an unpacked Debian package in
# .deps/root when the system has none (see tests/README.md).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=/usr/local/cuda/bin:$PATH
OUTDIR=${OUT:-build}
mkdir -p "$OUTDIR"
{
  date -u +"%Y-%m-%dT%H:%MZ"; git rev-parse --short HEAD 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  TDP_GPU=1 TDP_SKIP_DEPS=1 TDP_JOBS=$(nproc) bash tests/run_tests.sh
  echo "== examples on the GPU (scale; heat_targetDP against heat_serial to round-off)"
  TDP_GPU=1 bash tests/suites/examples.sh
} 2>&1 | tee "$OUTDIR/tests_gpu.log"
