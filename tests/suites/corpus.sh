#!/usr/bin/env bash
# Suite: the legacy-kernel corpus (benchmarks/corpus/, issue 28) at small
# sizes on every host preset: each shape's port, prototype and native code
# validated against its serial original (bitwise where the arithmetic is
# the same), dimensions that are not multiples of VVL (the short strides)
# and a lattice of a few sites; a wrong value must fail the run and print
# no rate; the CSV has its rows. A preset whose compiler is absent is
# skipped. The CUDA build is compiled and linked (run where a GPU is).
# Not a timing test: benchmarks/corpus/run_bench.sh (make corpus-bench) is.
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok, failsLoudly

SHAPES=$(sed -n 's/^CORPUS_SHAPES := //p' benchmarks/corpus/build.mk)

# run_shapes BUILD LABEL [ENV=VALUE ...]: every shape at two sizes, one line each
run_shapes() {
  local b=$1 label=$2 s out
  shift 2
  for s in $SHAPES; do
    # 3001 sites: 54 x 55 (2-D), 14 x 14 x 15 (3-D); 50: 7 x 7, 3 x 3 x 5
    if out=$(env "$@" timeout -k 5 120 "$b/bench_corpus" --shape "$s" --sites 3001 --reps 2 2>&1) &&
       grep -q "validated" <<<"$out" &&
       out=$(env "$@" timeout -k 5 120 "$b/bench_corpus" --shape "$s" --sites 50 --reps 1 2>&1); then
      ok "corpus $s validates against its serial original, $label"
    else
      echo "not ok - corpus $s validates against its serial original, $label"
      grep -E 'FAILED|wrong|error' <<<"$out" | head -n 5
    fi
  done
}

# The host presets (config/*.mk) and the compiler each needs.
for cfg in gcc-openmp:gcc gcc-avx512:gcc gcc-serial:gcc clang-openmp:clang gxx-openmp:g++ \
           clangxx-openmp:clang++; do
  preset=${cfg%%:*} cc=${cfg#*:}
  if ! command -v "$cc" >/dev/null 2>&1; then
    ok "corpus, $preset # SKIP no $cc"
    continue
  fi
  b=$(make -s CONFIG="$preset" bench-where)
  if make -s -j2 CONFIG="$preset" corpus-build >"$tmp/build-$preset.log" 2>&1 &&
     ! grep -q "warning:" "$tmp/build-$preset.log"; then
    ok "corpus builds warning-free, $preset"
  else
    notok "corpus builds warning-free, $preset" "$tmp/build-$preset.log"
    continue
  fi
  if [ "$preset" = gcc-avx512 ] && ! grep -q avx512f /proc/cpuinfo; then
    ok "corpus runs, $preset # SKIP this CPU has no AVX-512"
    continue
  fi
  run_shapes "$b" "$preset"
done

# The default preset: two threads, other layouts, the failure path and the CSV.
b=$(make -s bench-where)
run_shapes "$b" "gcc-openmp, 2 threads" OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
for cfg in "AOS 4" "AOSOA 4"; do
  read -r layout vvl <<<"$cfg"
  lb=$(make -s LAYOUT="$layout" VVL="$vvl" bench-where)
  if make -s -j2 LAYOUT="$layout" VVL="$vvl" corpus-build >"$tmp/build-$layout.log" 2>&1; then
    if out=$("$lb/bench_corpus" --sites 3001 --reps 2 2>&1); then
      ok "corpus validates, gcc-openmp $layout VVL=$vvl"
    else
      notok "corpus validates, gcc-openmp $layout VVL=$vvl"
      grep -E 'FAILED|wrong' <<<"$out" | head -n 5
    fi
  else
    notok "corpus builds, gcc-openmp $layout VVL=$vvl" "$tmp/build-$layout.log"
  fi
done
# (the port's line then says WRONG and carries no rate; the others keep theirs)
for s in $SHAPES; do
  failsLoudly "corpus $s fails on a wrong value and prints no rate for it" \
    "VALIDATION FAILED: $s port" "^port  *port  *[0-9]" "$b/bench_corpus" --shape "$s" \
    --sites 3001 --reps 1 --inject-error
done
failsLoudly "bench_corpus refuses an unknown shape" "no shape 'jacobi3d'" "" \
  "$b/bench_corpus" --shape jacobi2d,jacobi3d --sites 100
failsLoudly "bench_corpus refuses an unknown --order" "apart or rotate" "" \
  "$b/bench_corpus" --shape masked --sites 100 --order first

# The order of the steps (--steps): on more than one thread no timed step of a
# parallel implementation may follow the one-thread serial original (in the
# rotating order the port followed it in all but one repetition of n, and on
# the 16-core host most ports ran 1.02-1.45x slower there: benchmarks/results/h100-order/);
# every implementation runs reps + 1 times; --order rotate keeps the old order.
# check_order FILE REPS WANT: WANT apart (no parallel step after serial in a
# timed repetition) or rotate (the port after serial in a timed repetition).
check_order() {
  awk -F, -v reps="$2" -v want="$3" '
    NR == 1 { next }
    { n[$1 "," $5]++; shapes[$1] = 1 }
    $4 > 0 && $3 > 0 && $6 == "serial" && $5 != "serial" { after[$1]++; if ($5 == "port") port[$1]++ }
    END {
      bad = 0
      for (k in n) if (n[k] != reps + 1) { print "  " k " ran " n[k] " times"; bad = 1 }
      for (s in shapes) {
        if (want == "apart" && after[s] > 0) { print "  " s ": " after[s] " timed steps after serial"; bad = 1 }
        if (want == "rotate" && !port[s]) { print "  " s ": the port never after serial"; bad = 1 }
      }
      if (length(shapes) < 9) { print "  only " length(shapes) " shapes"; bad = 1 }
      exit bad
    }' "$1"
}
for order in apart rotate; do
  rm -f "$tmp/steps-$order.csv"
  args=(--sites 3001 --reps 3 --steps "$tmp/steps-$order.csv")
  [ "$order" = rotate ] && args+=(--order rotate)
  if OMP_NUM_THREADS=2 "$b/bench_corpus" "${args[@]}" >"$tmp/order.log" 2>&1 &&
     head -n 1 "$tmp/steps-$order.csv" | grep -q '^shape,threads,rep,pos,impl,prev,seconds$' &&
     check_order "$tmp/steps-$order.csv" 3 "$order" >"$tmp/order-check.log"; then
    ok "corpus --order $order on 2 threads: the steps in that order (--steps)"
  else
    notok "corpus --order $order on 2 threads: the steps in that order (--steps)" \
      "$tmp/order-check.log"
  fi
done

csv=$tmp/corpus.csv
"$b/bench_corpus" --sites 3001 --reps 2 --csv "$csv" >/dev/null 2>&1
nimpl=$("$b/bench_corpus" --sites 3001 --reps 1 | grep -cE '^(serial|port|proto|box|omp|cuda)')
if head -n 1 "$csv" 2>/dev/null | grep -q '^bench,device,commit,compiler,config,' &&
   [ "$(($(wc -l <"$csv") - 1))" = "$nimpl" ] && [ "$nimpl" -ge 27 ]; then
  ok "corpus CSV has a header and a row per implementation ($nimpl)"
else
  notok "corpus CSV has a header and a row per implementation"
  head -n 3 "$csv" 2>/dev/null
fi
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  if /usr/bin/python3 benchmarks/corpus/plot.py "$csv" --out "$tmp/corpus.png" \
       --markdown "$tmp/corpus.md" >"$tmp/plot.log" 2>&1 &&
     [ -s "$tmp/corpus.png" ] && grep -q "jacobi2d" "$tmp/corpus.md"; then
    ok "corpus plot.py draws the chart and the table"
  else
    notok "corpus plot.py draws the chart and the table" "$tmp/plot.log"
  fi
else
  ok "corpus plot.py # SKIP /usr/bin/python3 has no matplotlib"
fi

# CUDA: compiled and linked with nvcc; run where there is a GPU.
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
if [ -n "$nvcc" ]; then
  cb=$(make -s TARGET=cuda bench-where)
  if make -s -j2 TARGET=cuda NVCC="$nvcc" corpus-build >"$tmp/cuda.log" 2>&1 &&
     ! grep -q "warning" "$tmp/cuda.log"; then
    ok "corpus builds warning-free with TARGET=cuda (nvcc)"
    if nvidia-smi -L >/dev/null 2>&1; then
      run_shapes "$cb" "cuda"
    else
      ok "corpus CUDA runs # SKIP no GPU here"
    fi
  else
    notok "corpus builds warning-free with TARGET=cuda (nvcc)" "$tmp/cuda.log"
  fi
else
  ok "corpus builds with TARGET=cuda # SKIP no nvcc"
fi
exit 0
