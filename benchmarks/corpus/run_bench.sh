#!/usr/bin/env bash
# The corpus's timing run (make corpus-bench; make bench calls it): every
# compiler build at one thread and at all cores, in interleaved rounds, CSV
# rows, the tables (plot.py) and a chart where matplotlib is.
#
#   [OUT=dir] [OMP_WAIT_POLICY=passive] [CORPUS_ROUNDS=3] [CORPUS_MB=64] [CORPUS_REPS=5] [CORPUS_THREADS="1 N"]
#   [CORPUS_CCS="gcc clang clang-16"] [CORPUS_SHAPES=all] benchmarks/corpus/run_bench.sh
#
# Compilers: every name in CORPUS_CCS found in PATH (default: gcc, clang and
# any clang-NN beside it), each its own build: gcc with the gcc-openmp
# preset, a clang with clang-openmp (CC=that clang), in build/corpus-<cc>/.
# A clang whose OpenMP runtime is not where it looks can be given one:
# CLANG_OMP_ROOT_<cc with - as _>=/path/usr/lib/llvm-NN (omp.h in
# lib/clang/NN/include, libomp.so in lib). The default layout (SoA VVL 8).
# A round runs every build at every thread count once, so a disturbance of
# the machine hits one round of each rather than every round of one;
# plot.py combines the rounds (medians of the rounds' medians and ratios).
# The shapes' sizes: about CORPUS_MB megabytes moved per step (64: beyond
# L2, within a large L3; 256: beyond it). A build or run that fails is
# recorded and the rest goes on; the exit status is 1 if any failed.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-$PWD/bench-out-corpus}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
rounds=${CORPUS_ROUNDS:-3} mb=${CORPUS_MB:-64} reps=${CORPUS_REPS:-5}
threads=${CORPUS_THREADS:-"1 $(nproc)"} shapes=${CORPUS_SHAPES:-all}
csv=$out/corpus.csv
export BENCH_COMMIT
BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
git status --porcelain 2>/dev/null | grep -q . && BENCH_COMMIT="${BENCH_COMMIT%+modified}+modified"
failed=()

ccs=${CORPUS_CCS:-"gcc clang $(compgen -c clang- | grep -E '^clang-[0-9]+$' | sort -u | tr '\n' ' ')"}
builds=() # "cc folder"
for cc in $ccs; do
  command -v "$cc" >/dev/null 2>&1 || continue
  # the default clang is one of the clang-NN: build it once
  if [ "$cc" != gcc ] && [ "$cc" != clang ] && command -v clang >/dev/null &&
     [ "$(readlink -f "$(command -v "$cc")")" = "$(readlink -f "$(command -v clang)")" ]; then
    continue
  fi
  dir=build/corpus-$cc
  args=(BUILD="$dir")
  if [ "$cc" = gcc ]; then
    args+=(CONFIG=gcc-openmp)
  else
    args+=(CONFIG=clang-openmp)
    root_var=CLANG_OMP_ROOT_${cc//-/_}
    root=${!root_var:-}
    if [ -n "$root" ]; then
      inc=$(dirname "$(ls "$root"/lib/clang/*/include/omp.h | head -n 1)")
      args+=(CC="$cc -isystem $inc" CLANG_OMP_LIB="$root/lib")
    else
      args+=(CC="$cc")
    fi
  fi
  echo "=== build $cc: make ${args[*]} corpus-build"
  ok=0
  make -s -j"$(nproc)" "${args[@]}" corpus-build >"$out/build-$cc.log" 2>&1 && ok=1
  # clang 16 announces OpenMP 5.0 (_OPENMP 201811) and refuses "omp atomic
  # compare" (5.1) unless asked for 5.1, which targetDP_atomics.h uses for any
  # clang >= 16: a layer bug (issue 28 report); measure with 5.1 meanwhile.
  if [ "$ok" = 0 ] && grep -q "unexpected OpenMP clause 'compare'" "$out/build-$cc.log"; then
    echo "=== $cc refuses 'omp atomic compare' at its default OpenMP 5.0: again with -fopenmp-version=51"
    args=("${args[@]/#CC=$cc/CC=$cc -fopenmp-version=51}")
    make -s -j"$(nproc)" "${args[@]}" corpus-build >"$out/build-$cc.log" 2>&1 && ok=1
  fi
  if [ "$ok" = 1 ]; then
    builds+=("$cc $dir")
  else
    echo "=== FAILED: build $cc (log: $out/build-$cc.log)"
    tail -n 5 "$out/build-$cc.log"
    failed+=("build $cc")
  fi
done

echo "=== corpus: ${#builds[@]} builds, threads: $threads, $rounds rounds, --mb $mb --reps $reps"
echo "=== commit $BENCH_COMMIT, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), nproc $(nproc)"
for ((r = 1; r <= rounds; r++)); do
  for b in "${builds[@]}"; do
    read -r cc dir <<<"$b"
    for t in $threads; do
      echo "=== round $r: $cc, $t threads"
      # the OpenMP runtime's own wait policy (what a user gets) unless
      # OMP_WAIT_POLICY is set: "passive" on a shared machine, where
      # spinning threads stall every launch
      if ! env OMP_NUM_THREADS="$t" OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1 \
           "$dir/bench_corpus" --shape "$shapes" --mb "$mb" --reps "$reps" --csv "$csv" \
           >"$out/run-$cc-t$t-r$r.log" 2>&1; then
        echo "=== FAILED: $cc, $t threads, round $r (log: $out/run-$cc-t$t-r$r.log)"
        grep -E 'FAILED|wrong' "$out/run-$cc-t$t-r$r.log" | head -n 5
        failed+=("$cc t$t r$r")
      fi
    done
  done
done

if [ -s "$csv" ]; then
  py=/usr/bin/python3
  [ -x "$py" ] || py=python3
  plot=()
  "$py" -c 'import matplotlib' 2>/dev/null && plot=(--out "$out/corpus.png")
  "$py" benchmarks/corpus/plot.py "$csv" --markdown "$out/corpus.md" "${plot[@]}" ||
    failed+=("plot.py")
  [ -s "$out/corpus.md" ] && cat "$out/corpus.md"
fi
echo "=== results in $out (corpus.csv, corpus.md${plot:+, corpus.png})"
if [ ${#failed[@]} -gt 0 ]; then
  echo "=== failed: ${failed[*]}"
  exit 1
fi
