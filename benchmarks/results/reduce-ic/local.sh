#!/usr/bin/env bash
# The 2-core box (Debian bookworm, clang 14.0.6 and clang 22.1.8; not the device host, which
# counts for issue 28's targets): clang's reduction interleave (TDP_REDUCE_IC_ 0 = clang's own,
# 4 = main) on jacobi2d, norm and masked, 1 thread, --mb 16, CPU time (--cpu-time, one thread only),
# 5 interleaved rounds; every implementation validated before its row. CLANG22_ENV: the env.sh of
# a clang 22 unpacked by scripts/clang_carry.sh (its libomp).
set -u
out=${OUT:-benchmarks/results/reduce-ic/local}; mkdir -p "$out"
for ic in 0 4; do
  make -s -j2 BUILD=build/l14-ic$ic CONFIG=clang-openmp CC="clang-14 -DTDP_REDUCE_IC_=$ic" corpus-build >/dev/null || exit 1
  ( . "${CLANG22_ENV:-/tmp/c22t/env.sh}" &&
    make -s -j2 BUILD=build/l22-ic$ic CONFIG=clang-openmp CC="clang -DTDP_REDUCE_IC_=$ic" corpus-build >/dev/null ) || exit 1
done
for r in 1 2 3 4 5; do
  for t in 1; do
    for b in l14-ic0 l14-ic4 l22-ic0 l22-ic4; do
      OMP_NUM_THREADS=$t OMP_PROC_BIND=close TARGETDP_QUIET=1 BENCH_COMMIT=$(git rev-parse --short HEAD) \
        build/$b/bench_corpus --shape jacobi2d,norm,masked --mb 16 --reps 10 --cpu-time \
        --csv "$out/$b.csv" > "$out/run-$b-t$t-r$r.log" 2>&1 || echo "$b t$t r$r FAILED"
    done
  done
done
