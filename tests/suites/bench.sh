#!/usr/bin/env bash
# Suite: the benchmarks (benchmarks/) build, validate their results at tiny
# sizes in a few configurations, and fail loudly when a result is wrong
# (--inject-error corrupts one element; the run must then exit non-zero
# and name the kernel and element). Not a timing test. Also: the CSV has
# its rows, the sweep script and plot.py work, and the CUDA build compiles
# where nvcc exists (and runs where a GPU does).
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok, failsLoudly

check() { # check NAME COMMAND...: ok if the command succeeds
  local name=$1
  shift
  if out=$("$@" 2>&1); then
    echo "ok - $name"
  else
    echo "not ok - $name"
    tail -n 20 <<<"$out"
  fi
}

# run_tiny BUILD LABEL: the benchmarks at sizes that exercise the tail
# stride (not multiples of VVL or SAL), double and float.
run_tiny() {
  local b=$1 label=$2 csv=$tmp/$RANDOM.csv
  check "bench_stream validates, $label, n=1003" "$b/bench_stream" --size 1003 --reps 3 --csv "$csv"
  check "bench_stream validates, $label, n=1" "$b/bench_stream" --size 1 --reps 2
  check "bench_stream --float validates, $label" "$b/bench_stream" --size 1003 --reps 3 --float
  check "bench_layout validates, $label, 1003 sites" \
    "$b/bench_layout" --size 1003 --triad-size 1001 --reps 3 --csv "$csv"
  # exact sums (issue 25 item 9): the exact forms agree bitwise, the plain ones within 1e-10
  check "bench_exact validates, $label, n=100003" "$b/bench_exact" --size 100003 --reps 2
  check "bench_exact --float --hard validates, $label" "$b/bench_exact" --size 4097 --reps 2 --float --hard
  failsLoudly "bench_exact --inject-error: an exact sum one ulp off fails the run, $label" \
    "SumExact vs targetDoubleSumExact" "validation passed" "$b/bench_exact" --size 1003 --reps 2 --inject-error
  # 6 STREAM kernels x 2 + the extra rows, 4 layout rows, 1 header
  local rows
  rows=$(wc -l <"$csv" 2>/dev/null || echo 0)
  if [ "$rows" -ge 18 ] && head -n 1 "$csv" | grep -q '^bench,backend,config,'; then
    echo "ok - benchmark CSV has a header and every row, $label"
  else
    echo "not ok - benchmark CSV has a header and every row, $label ($rows lines)"
  fi

  failsLoudly "bench_stream fails on a wrong element and prints no bandwidth, $label" \
    "VALIDATION FAILED: Triad targetDP double: element 1002" "GB/s" \
    "$b/bench_stream" --size 1003 --reps 2 --inject-error
  check "bench_blocks validates, $label, n=1003" "$b/bench_blocks" --size 1003 --reps 3
  check "bench_blocks validates, $label, n=27" "$b/bench_blocks" --size 27 --reps 2
  check "bench_blocks validates, $label, n=100003" "$b/bench_blocks" --size 100003 --reps 2
  failsLoudly "bench_blocks fails on a wrong element and prints no bandwidth, $label" \
    "VALIDATION FAILED: ScanInclDouble targetDP: element 1002" "GB/s" \
    "$b/bench_blocks" --size 1003 --reps 2 --inject-error
  failsLoudly "bench_stream validates every native candidate, $label" \
    "VALIDATION FAILED: Triad native candidate .*element 501" "GB/s" \
    "$b/bench_stream" --size 1003 --reps 2 --inject-native-error
  check "bench_d2q9 validates, $label" "$b/bench_d2q9" --size 67 --reps 2
  failsLoudly "bench_d2q9 fails on a wrong element, $label" \
    "VALIDATION FAILED: d2q9 targetDP" "MLUPS" "$b/bench_d2q9" --size 67 --reps 2 --inject-error
  # the same step in float (d2q9_kernels.h once per type), validated to 1e-5, a "float" CSV row
  check "bench_d2q9 --float validates, $label" \
    "$b/bench_d2q9" --size 67 --reps 2 --float --csv "$tmp/d2q9f.csv"
  if grep -q '^d2q9,.*,float,4489,2,D2Q9,targetDP,' "$tmp/d2q9f.csv" 2>/dev/null; then
    echo "ok - bench_d2q9 --float writes a float CSV row, $label"
  else
    echo "not ok - bench_d2q9 --float writes a float CSV row, $label"
  fi
  rm -f "$tmp/d2q9f.csv"
  failsLoudly "bench_d2q9 --float fails on a wrong element, $label" \
    "VALIDATION FAILED: d2q9 targetDP" "MLUPS" "$b/bench_d2q9" --size 67 --reps 2 --float --inject-error
  failsLoudly "bench_layout fails on a wrong element, $label" \
    "VALIDATION FAILED: LBCollide site 1002 component 18" "" \
    "$b/bench_layout" --size 1003 --triad-size 1001 --reps 2 --inject-error
}

# SOA 8 simd: TDP_ILP under "omp simd" (make ILP=simd; "GCC ivdep" is the default, targetDP.h)
for cfg in "AOSOA 4" "SOA 1" "AOS 8" "SOA 8 simd"; do
  read -r layout vvl ilp <<<"$cfg"
  args=(CONFIG=gcc-openmp LAYOUT="$layout" VVL="$vvl" ${ilp:+ILP=$ilp})
  label="c $layout VVL=$vvl${ilp:+ ILP=$ilp}"
  build=$(make -s "${args[@]}" bench-where)
  if make -s -j2 "${args[@]}" bench-build >"$tmp/build.log" 2>&1; then
    echo "ok - benchmarks build, $label"
    run_tiny "$build" "$label"
  else
    echo "not ok - benchmarks build, $label"
    tail -n 20 "$tmp/build.log"
  fi
done

check "sweep_layout.sh runs two configurations into one CSV" \
  benchmarks/sweep_layout.sh --layouts "AOS SOA" --vvls 2 --jobs 2 --csv "$tmp/sweep.csv" \
  -- --size 1003 --triad-size 1001 --reps 2
if [ "$(grep -c '^layout,.*,LBCollide,' "$tmp/sweep.csv" 2>/dev/null)" = 2 ]; then
  echo "ok - sweep CSV holds one LBCollide row per configuration"
else
  echo "not ok - sweep CSV holds one LBCollide row per configuration"
fi

if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  b=$(make -s CONFIG=gcc-openmp bench-where)
  "$b/bench_stream" --size 1003 --reps 2 --csv "$tmp/stream.csv" >/dev/null 2>&1
  check "plot.py draws the charts and tables from the CSVs" \
    /usr/bin/python3 benchmarks/plot.py --stream "$tmp/stream.csv" --layout "$tmp/sweep.csv" \
    --outdir "$tmp/img" --markdown "$tmp/tables.md"
  n=$(ls "$tmp/img"/*.png 2>/dev/null | wc -l)
  if [ "$n" -ge 2 ] && grep -q "Triad" "$tmp/tables.md"; then
    echo "ok - plot.py wrote PNGs and markdown tables"
  else
    echo "not ok - plot.py wrote PNGs and markdown tables ($n PNGs)"
  fi
else
  echo "ok - plot.py # SKIP /usr/bin/python3 has no matplotlib (apt-get install python3-matplotlib)"
fi

nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
if [ -n "$nvcc" ] && [ -f targetDP_CUDA.cu ]; then
  build=$(make -s TARGET=cuda bench-where)
  if make -s -j2 TARGET=cuda NVCC="$nvcc" bench-build >"$tmp/cuda.log" 2>&1; then
    echo "ok - benchmarks build with TARGET=cuda"
    if nvidia-smi -L >/dev/null 2>&1; then
      run_tiny "$build" "cuda SOA VVL=1"
    else
      echo "ok - CUDA benchmarks run # SKIP no GPU here"
    fi
  else
    echo "not ok - benchmarks build with TARGET=cuda"
    tail -n 20 "$tmp/cuda.log"
  fi
else
  echo "ok - benchmarks build with TARGET=cuda # SKIP no nvcc or no targetDP_CUDA.cu"
fi
exit 0
