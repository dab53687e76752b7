#!/usr/bin/env bash
# call63: clang 22's edge rows, before and after the one-loop form (TDP_EDGE_ONE_LOOP_): the
# corpus's heat3d and stencil27 (TDP_TLP_3D_EDGE ports) built twice with the carried clang 22
# (the default, and -DTDP_EDGE_ONE_LOOP_=0: the one-trip loop around the body, as at c247e60),
# timed in interleaved rounds at 1 and 16 threads, --mb 64, 10 repetitions, each
# implementation validated before its row. clang 14's code for the two forms is the same
# (467 / 466 and 600 / 598 instructions in the edge kernels) and is not timed here.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh
CORPUS_CLANG_DEBS=.deps/clang22 corpus_clang || exit 1
clang --version | head -1
make -s -j8 BUILD=build/c63-new CONFIG=clang-openmp CC=clang-22 corpus-build > $out/build-new.log 2>&1 & 
make -s -j8 BUILD=build/c63-old CONFIG=clang-openmp CC="clang-22 -DTDP_EDGE_ONE_LOOP_=0" corpus-build > $out/build-old.log 2>&1 &
wait
for v in new old; do [ -x build/c63-$v/bench_corpus ] || { echo "build $v FAILED"; tail -5 $out/build-$v.log; exit 1; }; done
t0=$(date +%s)
for r in 1 2 3 4 5 6 7 8; do
  [ $(( $(date +%s) - t0 )) -gt 150 ] && break
  for v in new old; do for t in 1 16; do
    corpus_run build/c63-$v clang22-$v-t$t-r$r $t --shape heat3d,stencil27 --mb 64 --reps 10
  done; done
done
echo "rounds started: $r in $(( $(date +%s) - t0 )) s; failed: ${failed[*]:-none}"
