#!/usr/bin/env bash
# clang's box rows, A/B on the device host (issue 28, one thread): the
# corpus's box-loop shapes built three ways with clang, timed interleaved,
# every implementation validated against its serial original by
# bench_corpus before its numbers are printed:
#   sites    the default since branch clanghost: one-lane strides, each row
#            segment one "omp simd" loop, a box row's at clang's own width,
#            an edge row's at clang's own width interleaved 4 times
#            (targetDP_C.h, TDP_ROW_SITES_, TDP_EDGE_IC_; VVL wide before 861d2dd)
#   sites4   every row at clang's own width (-DTDP_EDGE_SIMDLEN_=0)
#   sites8   every row 8 wide (-DTDP_ROW_SIMDLEN_=8)
#   strides  -DTDP_ROW_STRIDES_: VVL strides, the ILP loop 8 wide (a567685)
# and gcc (gcc-openmp) beside them for reference. About 3 minutes with the
# defaults on the 16-core host (6 builds in parallel, 5 shapes x 5 builds
# x 3 rounds).
#
#   OUT=/some/folder bash benchmarks/corpus/run_rows_ab.sh   (from the repository root)
#
# ROWS_CC=gcc: gcc's forms instead: gcc (the default: box rows in strides
# of 4, targetDP_C.h TDP_ROW_VVL_, edge rows in the sites form,
# TDP_EDGE_SITES_), grow8 (box rows in VVL strides, -DTDP_ROW_VVL_=8: the
# form before 947dc35), gedge8 (edge rows in VVL strides,
# -DTDP_EDGE_STRIDES_: 947dc35's) and gsites (every row in the sites form,
# -DTDP_ROW_SITES_=1). ROWS_CPU_TIME=1: bench_corpus --cpu-time (process
# CPU seconds, less of the VM's steal in one-thread ratios).
# ROWS_ROUNDS (default 3), ROWS_MB (default 64), ROWS_REPS (default 4),
# ROWS_SHAPES (default heat3d,stencil27,d2q9,d3q19,jacobi2d). Writes
# $OUT/rows.log (the summary: per shape and build, port / serial and port /
# best native of each round) and $OUT/run-BUILD-ROUND.log. Exit status 1 if
# a build or a validation failed.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-$PWD/bench-out-rows}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
exec > >(tee "$out/rows.log") 2>&1
rounds=${ROWS_ROUNDS:-3} mb=${ROWS_MB:-64} reps=${ROWS_REPS:-4}
shapes=${ROWS_SHAPES:-heat3d,stencil27,d2q9,d3q19,jacobi2d}
nthreads=$(nproc)
status=0
cc=${ROWS_CC:-clang}
timing=()
[ "${ROWS_CPU_TIME:-0}" = 1 ] && timing=(--cpu-time)
echo "=== $cc rows A/B, $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short=12 HEAD 2>/dev/null)${timing:+, CPU time}"
. benchmarks/corpus/lib.sh
builds=()
if [ "$cc" = gcc ]; then
  echo "gcc: $(gcc --version | head -n 1)"
  declare -A flags=([gcc]="" [grow8]="-DTDP_ROW_VVL_=8" [gedge8]="-DTDP_EDGE_STRIDES_"
                    [gsites]="-DTDP_ROW_SITES_=1")
  forms=(gcc grow8 gedge8 gsites) preset=gcc-openmp
else
  corpus_clang || exit 1
  command -v clang >/dev/null 2>&1 || { echo "=== FAILED: no clang"; exit 1; }
  echo "clang: $(clang --version | head -n 1); gcc: $(gcc --version | head -n 1)"
  declare -A flags=([sites]="" [sites4]="-DTDP_EDGE_SIMDLEN_=0" [sites8]="-DTDP_ROW_SIMDLEN_=8"
                    [strides]="-DTDP_ROW_STRIDES_")
  forms=(sites sites4 sites8 strides) preset=clang-openmp
fi
for b in "${forms[@]}"; do
  c=$cc
  [ "$b" = gcc ] || c="$cc ${flags[$b]}"
  if make -s -j"$nthreads" BUILD="build/rows-$b" CONFIG=$preset CC="$c" \
       corpus-build >"$out/build-$b.log" 2>&1; then
    builds+=("$b")
  else
    echo "=== FAILED: build $b (log: $out/build-$b.log)"
    status=1
  fi
done
if [ "$cc" != gcc ]; then
  if make -s -j"$nthreads" BUILD=build/rows-gcc CONFIG=gcc-openmp corpus-build >"$out/build-gcc.log" 2>&1; then
    builds+=(gcc)
  else
    echo "=== FAILED: build gcc (log: $out/build-gcc.log)"
    status=1
  fi
fi

for r in $(seq 1 "$rounds"); do
  for b in "${builds[@]}"; do
    log=$out/run-$b-$r.log
    if ! env TARGETDP_QUIET=1 OMP_NUM_THREADS=1 OMP_PROC_BIND=close OMP_PLACES=cores \
         timeout -k 10 300 "build/rows-$b/bench_corpus" --shape "$shapes" --mb "$mb" --reps "$reps" "${timing[@]}" \
         >"$log" 2>&1; then
      echo "=== FAILED: $b round $r (log: $log)"
      grep -E 'FAILED|wrong' "$log" | head -n 5
      status=1
    fi
  done
done

# The port's row of each shape: x serial and x native (bench_corpus's last two columns).
echo "=== port / serial and port / best native, one thread, --mb $mb, rounds 1..$rounds"
for s in ${shapes//,/ }; do
  for b in "${builds[@]}"; do
    line="$s $b:"
    for r in $(seq 1 "$rounds"); do
      line+=" $(awk -v s="$s" '$1 == "#" && $2 == s":" {on = 1; next}
                              $1 == "#" && $2 ~ /:$/ {on = 0}
                              on && $1 == "port" {printf "%s/%s", $(NF-1), $NF; exit}' \
                "$out/run-$b-$r.log" 2>/dev/null)"
    done
    echo "$line"
  done
done
exit $status
