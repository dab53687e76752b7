#!/usr/bin/env bash
# scripts/device_issue25.sh -- the CUDA side of issue 25 items 4, 5, 6 and 8
# on a GPU machine, in about 3 minutes (the full tests/run_device.sh runs
# every unit test in 8 builds; this runs the ones these items touched).
#   1. the CUDA unit tests of the items (plain): test_errors (host object
#      sizes, end pointer), test_const (constant sizes), test_launch
#      (negative extents, every launch form, bad boxes), test_pack (face
#      boxes), test_abort (forked: the 2014 launch before init, after
#      finalize, negative), test_compat (2014 init per session),
#      test_lifecycle (box launch before init), test_types, test_scan,
#      test_streams, test_box; test_launch, test_errors and test_const
#      again under compute-sanitizer memcheck (a refused launch launches
#      nothing; no access past an object);
#   2. tests/macros/object_sizes.c built by nvcc at -O0 and -O3 and run
#      (constants and host arrays held to their size by every call);
#   3. tests/mpi/halo_misuse.c on 2 ranks (TARGETDP_OVERSUBSCRIBE=1 on one
#      GPU): each disagreement refused on both ranks, the control exchanges,
#      calls on a freed halo stop with file:line.
# Usage (repository root): OUT=/some/dir bash scripts/device_issue25.sh
# Writes $OUT/issue25_device.log and $OUT/issue25_device.csv (check,result).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH=/usr/local/cuda/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export TARGETDP_QUIET=1 TARGETDP_OVERSUBSCRIBE=1
OUTDIR=${OUT:-build}
mkdir -p "$OUTDIR"
LOG=$OUTDIR/issue25_device.log
CSV=$OUTDIR/issue25_device.csv
echo "check,result" >"$CSV"
J=$(nproc)
pass=0 fail=0
res() { # name ok|fail
  echo "$1,$2" >>"$CSV"
  if [ "$2" = ok ]; then pass=$((pass + 1)); echo "ok - $1"; else fail=$((fail + 1)); echo "not ok - $1"; fi
}
{
  date -u +"%Y-%m-%dT%H:%MZ"
  git rev-parse --short HEAD 2>/dev/null
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  CFG=(TARGET=cuda LAYOUT=SOA VVL=1)
  B=$(make -s "${CFG[@]}" tests-print-build)
  if make -j"$J" "${CFG[@]}" tests-build tests-mpi >"$OUTDIR/issue25_build.log" 2>&1; then
    res "build (TARGET=cuda tests-build tests-mpi)" ok
  else
    res "build (TARGET=cuda tests-build tests-mpi)" fail
    tail -n 30 "$OUTDIR/issue25_build.log"
  fi

  # 1. unit tests
  for t in test_errors test_const test_launch test_pack test_abort test_compat test_lifecycle \
           test_types test_scan test_streams test_box; do
    out=$(CMOCKA_MESSAGE_OUTPUT=TAP timeout 120 "$B/tests/$t" 2>&1)
    rc=$?
    if [ "$rc" -eq 0 ] && ! grep -E '^not ok' <<<"$out" | grep -qv '# SKIP'; then
      res "$t (plain)" ok
    else
      res "$t (plain, exit $rc)" fail
      grep -E '^not ok|ERROR|error' <<<"$out" | head -n 10
    fi
  done
  for t in test_launch test_errors test_const; do
    if TDP_TEST_NO_BIG=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 \
         --report-api-errors no "$B/tests/$t" >"$OUTDIR/issue25_memcheck_$t.log" 2>&1; then
      res "$t (compute-sanitizer memcheck)" ok
    else
      res "$t (compute-sanitizer memcheck)" fail
      tail -n 15 "$OUTDIR/issue25_memcheck_$t.log"
    fi
  done

  # 2. sizes the compiler knows, with nvcc at -O0 and -O3
  for opt in -O0 -O3; do
    exe=$OUTDIR/object_sizes$opt
    if nvcc -x cu -std=c++17 -arch=sm_90 $opt -Xcompiler "$opt,-Wall,-Wextra" -I. -DTARGETDP_SOA \
         -DVVL=1 -DSAL=1 -DTARGET_TPB="$(make -s "${CFG[@]}" -f Makefile --eval 'p: ; @echo $(TPB)' p)" \
         tests/macros/object_sizes.c "$B/libtargetDP.a" -o "$exe" -lm >"$OUTDIR/issue25_os.log" 2>&1 &&
       "$exe" 2>&1 | tee -a "$OUTDIR/issue25_os.log" | grep -q PASS; then
      res "object_sizes nvcc $opt" ok
    else
      res "object_sizes nvcc $opt" fail
      tail -n 15 "$OUTDIR/issue25_os.log"
    fi
  done

  # 3. halo misuse on 2 ranks
  hm=$B/tests/mpi/halo_misuse
  for m in extents ncomp nhalo periodic dims ndim type pack; do
    o=$(timeout 60 mpirun --oversubscribe -np 2 "$hm" "$m" 2>&1)
    rc=$?
    n=$(grep -c "the ranks disagree on" <<<"$o")
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$n" -eq 2 ]; then
      res "halo ranks disagree on $m" ok
    else
      res "halo ranks disagree on $m (exit $rc, $n messages)" fail
      tail -n 8 <<<"$o"
    fi
  done
  o=$(timeout 60 mpirun --oversubscribe -np 2 "$hm" none 2>&1)
  if [ $? -eq 0 ] && grep -q "exchange rc 0" <<<"$o"; then res "halo control" ok; else
    res "halo control" fail; tail -n 8 <<<"$o"; fi
  for m in freed freed-wait freed-info freed-free; do
    o=$(timeout 60 mpirun --oversubscribe -np 2 "$hm" "$m" 2>&1)
    rc=$?
    n=$(grep -c "failed at tests/mpi/halo_misuse.c:[0-9]*: .*not a live halo" <<<"$o")
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && [ "$n" -eq 2 ]; then res "halo $m" ok; else
      res "halo $m (exit $rc, $n messages)" fail; tail -n 8 <<<"$o"; fi
  done
  echo "issue25 device: $pass passed, $fail failed"
} 2>&1 | tee "$LOG"
