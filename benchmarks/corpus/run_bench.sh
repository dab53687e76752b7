#!/usr/bin/env bash
# The corpus's timing run (make corpus-bench; make bench calls it): every
# compiler's build at one thread and at all cores, in interleaved rounds,
# CSV rows, the tables (plot.py) and a chart where matplotlib is.
#
#   [OUT=dir] [CORPUS_ROUNDS=3] [CORPUS_MB=64] [CORPUS_REPS=5] [CORPUS_THREADS="1 N"]
#   [CORPUS_CCS="gcc clang clang-16"] [CORPUS_SHAPES=all] [CORPUS_ARGS=--cpu-time]
#   [OMP_WAIT_POLICY=passive]
#   benchmarks/corpus/run_bench.sh
#
# Compilers: every name in CORPUS_CCS found in PATH (default: gcc, clang and
# any clang-NN beside it that is not the same binary), each its own build
# (lib.sh, corpus_build), the default layout (SoA VVL 8). A round runs
# every build at every thread count once, so a disturbance of the machine
# hits one round of each rather than every round of one; plot.py combines
# the rounds (medians of the rounds' medians and paired ratios). Sizes:
# about CORPUS_MB megabytes moved per step and implementation (64: beyond
# L2, within a large L3; 256: beyond it). On a shared machine set
# OMP_WAIT_POLICY=passive (spinning threads stall every launch there) and,
# at one thread, CORPUS_ARGS=--cpu-time (CPU seconds, not wall seconds).
# A build or run that fails is recorded and the rest goes on; the exit
# status is 1 if any failed. Writes $OUT (default bench-out-corpus):
# corpus.csv, corpus.md, corpus.png, build-*.log, run-*.log.
set -u
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-$PWD/bench-out-corpus}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
. benchmarks/corpus/lib.sh
rounds=${CORPUS_ROUNDS:-3} mb=${CORPUS_MB:-64} reps=${CORPUS_REPS:-5}
threads=${CORPUS_THREADS:-"1 $(nproc)"} shapes=${CORPUS_SHAPES:-all}
export BENCH_COMMIT
BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
git status --porcelain 2>/dev/null | grep -q . && BENCH_COMMIT="${BENCH_COMMIT%+modified}+modified"
failed=() builds=()
t0=$(date +%s)

ccs=${CORPUS_CCS:-"gcc clang $(compgen -c clang- | grep -E '^clang-[0-9]+$' | sort -u | tr '\n' ' ')"}
for cc in $ccs; do
  command -v "$cc" >/dev/null 2>&1 || continue
  # "clang" is one of the clang-NN: build that compiler once
  if [[ $cc == clang-* ]] && command -v clang >/dev/null &&
     [ "$(readlink -f "$(command -v "$cc")")" = "$(readlink -f "$(command -v clang)")" ]; then
    continue
  fi
  corpus_build "$cc"
done

echo "=== corpus: ${#builds[@]} builds, threads: $threads, $rounds rounds, --mb $mb --reps $reps"
echo "=== commit $BENCH_COMMIT,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), nproc $(nproc)"
for ((r = 1; r <= rounds; r++)); do
  for b in "${builds[@]}"; do
    read -r cc dir <<<"$b"
    for t in $threads; do
      corpus_run "$dir" "$cc-t$t-r$r" "$t" --shape "$shapes" --mb "$mb" --reps "$reps" \
        ${CORPUS_ARGS:-}
    done
  done
done

corpus_table
echo "=== results in $out"
if [ ${#failed[@]} -gt 0 ]; then
  echo "=== failed: ${failed[*]}"
  exit 1
fi
