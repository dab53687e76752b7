#!/usr/bin/env bash
# call62: the corpus with clang 22 (Debian bookworm's newest, from its security updates:
# 22.1.8, with LLVM's MergedLoadStoreMotion fix, pull request 116382) on the GPU machine's
# 16-core host, beside gcc 13 in the same rounds: one thread and all 16 (--order apart, the
# default), --mb 64, 10 repetitions, rounds interleaved until about 330 s. Carried as .deb
# files: CLANG_CARRY_VERSION=22 scripts/clang_carry.sh fetch .deps/clang22, less the
# libraries the device host has (only libz3 of them is missing there), to fit the 64 MiB carry.
# Every implementation is validated (3001 and 50 sites, then every timed run) before its row.
set -u
out=$OUT; failed=(); builds=(); . benchmarks/corpus/lib.sh
CORPUS_CLANG_DEBS=.deps/clang22 corpus_clang || exit 1
clang --version | head -1; gcc --version | head -1
corpus_build gcc & corpus_build clang-22 & wait
builds=("gcc build/corpus-gcc" "clang-22 build/corpus-clang-22")
for b in "${builds[@]}"; do read -r cc dir <<<"$b"; [ -x $dir/bench_corpus ] || { echo "no $dir/bench_corpus"; exit 1; }; done
csv_out=$out; out=$out/check; mkdir -p $out
for b in "${builds[@]}"; do read -r cc dir <<<"$b"
  corpus_run $dir check-$cc 16 --sites 3001 --reps 2; corpus_run $dir check-$cc-tiny 1 --sites 50 --reps 1
done
out=$csv_out; t0=$(date +%s)
for r in 1 2 3 4 5 6 7 8; do
  [ $(( $(date +%s) - t0 )) -gt 200 ] && break
  for b in "${builds[@]}"; do read -r cc dir <<<"$b"
    for t in 1 16; do corpus_run $dir $cc-t$t-r$r $t --mb 64 --reps 10; done
  done
done
echo "rounds started: $r in $(( $(date +%s) - t0 )) s; failed: ${failed[*]:-none}"
corpus_table
