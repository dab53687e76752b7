#!/usr/bin/env bash
# call59: does the step after the one-thread serial original run slower on all 16 host threads?
# bench_corpus's rotating order (--order rotate, every recorded run before 2026-12-07) puts the
# port right after the serial original in all but one repetition of n, and the fastest natives
# of gather and su3mv never there. The whole corpus at --mb 64, 16 threads, 10 repetitions, in
# interleaved rounds of: gcc rotate, gcc apart (the serial original's steps in a block of their
# own first), clang rotate, clang apart, and gcc rotate with OMP_WAIT_POLICY=active (threads
# never sleep: is it the wake-up?). Every run writes --steps (each step's time and the
# implementation before it) and validates every implementation before its CSV row.
set -u
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
clang --version | head -1; gcc --version | head -1; git log -1 --format='%h %s' 2>/dev/null
( make -s -j8 BUILD=build/c59-clang CONFIG=clang-openmp CC=clang corpus-build > $out/build-clang.log 2>&1 || echo "build clang FAILED" ) &
( make -s -j8 BUILD=build/c59-gcc CONFIG=gcc-openmp CC=gcc corpus-build > $out/build-gcc.log 2>&1 || echo "build gcc FAILED" ) &
wait
t0=$(date +%s)
for r in 1 2 3 4 5 6; do
  for v in gcc:rotate gcc:apart clang:rotate clang:apart gcc:rotate:active; do
    [ $(( $(date +%s) - t0 )) -gt 430 ] && break 2
    IFS=: read -r c o pol <<<"$v"; name=$c-$o${pol:+-$pol}
    E="OMP_NUM_THREADS=16 OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1 BENCH_COMMIT=${BENCH_COMMIT:-}"
    [ -n "$pol" ] && E="$E OMP_WAIT_POLICY=$pol"
    env $E timeout 120 build/c59-$c/bench_corpus --mb 64 --reps 10 --order $o --csv $out/$name.csv \
      --steps $out/steps-$name-r$r.csv > $out/run-$name-r$r.log 2>&1 || { echo "$name r$r FAILED"; grep -E 'FAIL|wrong' $out/run-$name-r$r.log | head -5; }
  done
done; echo "runs: $(( $(date +%s) - t0 )) s, rounds started: $r"
