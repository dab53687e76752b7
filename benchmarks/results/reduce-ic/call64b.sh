#!/usr/bin/env bash
# call64b (issue 28, 2026-12-08): call64.sh cut to what the session's device time allowed after
# many refused starts. clang 14 (carried in .deps/clang): the reduction loops interleaved 4 times
# (TDP_REDUCE_IC_=4, main) against clang's own count (0, the layer before); gcc 13 beside them;
# jacobi2d (a box sum), norm (TDP_TLP_SUM) and masked (the port in porting.md's read-first form,
# the legacy if/else as port-if), 1 and 16 threads, --mb 64, 10 repetitions, 3 interleaved rounds,
# every implementation validated before its row; and gcc 13's hot loops of norm's port and native.
set -u
rm -rf build/corpus-clang build/c64-* # a warm machine keeps them
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
clang --version | head -1; gcc --version | head -1; lscpu | grep -E '^(Model name|L3)'
t0=$(date +%s)
for v in ic0 ic4 gcc; do
  if [ $v = gcc ]; then a=(CONFIG=gcc-openmp CC=gcc); else a=(CONFIG=clang-openmp CC="clang -DTDP_REDUCE_IC_=${v#ic}"); fi
  ( make -s -j5 BUILD=build/c64-$v "${a[@]}" corpus-build > $out/build-$v.log 2>&1 || echo "build $v FAILED" ) &
done
wait; echo "builds: $(( $(date +%s) - t0 )) s"
E="OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1 BENCH_COMMIT=${BENCH_COMMIT:-}"
mkdir -p $out/e1
for r in 1 2 3; do
  for t in 1 16; do
    for v in ic0 ic4 gcc; do
      env $E OMP_NUM_THREADS=$t timeout 60 build/c64-$v/bench_corpus --shape jacobi2d,norm,masked --mb 64 \
        --reps 10 --csv $out/e1/$v.csv > $out/e1/run-$v-t$t-r$r.log 2>&1 || echo "$v t$t r$r FAILED"
    done
  done
  echo "round $r: $(( $(date +%s) - t0 )) s"
done
g=build/c64-gcc/obj/benchmarks/corpus/norm.o
{ for f in norm_port._omp_fn.0 nat_norm_step._omp_fn.0; do
    echo "== $f"; objdump -d --no-show-raw-insn $g | awk -v f="<$f>:" '$2 == f {p = 1; next} p && /^$/ {exit} p' | cut -f2-
  done; } > $out/e1/norm-loops.txt
python3 benchmarks/results/reduce-ic/summary.py $out/e1
cd $out && tar czf e1.tgz e1 && rm -rf e1
