#!/usr/bin/env bash
# call64 (issue 28, 2026-12-08), nvidia-h100-x1, clang 14 carried in .deps/clang; call65 the same
# with CORPUS_CLANG_DEBS=.deps/clang22 (clang 22) and E1_SHAPES=jacobi2d,norm,heat3d,masked:
#  1. clang's reduction loops interleaved TDP_REDUCE_IC_ times (4, main) against 2 and clang's
#     own count (0, the layer before), 3 interleaved rounds: the corpus's jacobi2d (a box sum),
#     norm (TDP_TLP_SUM) and masked (port against port-if), 1 and 16 threads, --mb 64, and
#     bench_reduce (dot, csum, jacobi, min, ...); every implementation validated before its row.
#  2. gcc 13's hot loops of norm's port and its native "omp" (objdump): the 16-thread miss.
#  3. the recorded run: run_device.sh, 6 rounds (CUDA, gcc 13, clang 14), the masked port
#     in porting.md's read-first form beside the legacy if/else ("port-if").
#  4. compute-sanitizer memcheck and racecheck on the CUDA corpus's masked (its new kernel),
#     jacobi2d and norm (the reductions) at 3001 sites.
set -u
rm -rf build/corpus-clang build/c64-ic* # a warm machine keeps them, built by the other clang
out=$OUT; failed=(); . benchmarks/corpus/lib.sh; corpus_clang || exit 1
clang --version | head -1; gcc --version | head -1; git log -1 --format='%h %s' 2>/dev/null
t0=$(date +%s)
for ic in 0 2 4; do
  ( make -s -j5 BUILD=build/c64-ic$ic CONFIG=clang-openmp CC="clang -DTDP_REDUCE_IC_=$ic" \
      corpus-build build/c64-ic$ic/bench_reduce > $out/build-ic$ic.log 2>&1 || echo "build ic$ic FAILED" ) &
done
wait; echo "builds: $(( $(date +%s) - t0 )) s"
E="OMP_PROC_BIND=close OMP_PLACES=cores TARGETDP_QUIET=1 BENCH_COMMIT=${BENCH_COMMIT:-}"
mkdir -p $out/e1
for r in 1 2 3; do
  for t in 1 16; do
    for ic in 0 2 4; do
      env $E OMP_NUM_THREADS=$t timeout 60 build/c64-ic$ic/bench_corpus --shape ${E1_SHAPES:-jacobi2d,norm,masked} --mb 64 \
        --reps 10 --csv $out/e1/corpus-ic$ic.csv > $out/e1/run-ic$ic-t$t-r$r.log 2>&1 || echo "ic$ic t$t r$r FAILED"
      env $E OMP_NUM_THREADS=$t timeout 60 build/c64-ic$ic/bench_reduce --size=4000000 --reps=10 \
        2>&1 | sed "s/^/ic$ic,r$r,/" >> $out/e1/reduce.csv || echo "reduce ic$ic t$t r$r FAILED"
    done
  done
done
echo "e1: $(( $(date +%s) - t0 )) s"
OUT=$out/rec CORPUS_ROUNDS=6 CORPUS_END_S=280 HOST_REPS=10 bash benchmarks/corpus/run_device.sh > $out/rec.log 2>&1 \
  || echo "run_device: failures (rec.log)"
tail -n 40 $out/rec.log
g=build/corpus-gcc/obj/benchmarks/corpus/norm.o
{ for f in norm_port._omp_fn.0 nat_norm_step._omp_fn.0; do
    echo "== $f"; objdump -d --no-show-raw-insn $g | awk -v f="<$f>:" '$2 == f {p = 1; next} p && /^$/ {exit} p' | cut -f2-
  done; } > $out/e1/norm-loops.txt
cdir=$(make -s TARGET=cuda bench-where)
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 3 $cdir/bench_corpus --shape masked,jacobi2d,norm \
    --sites 3001 --reps 1 \
    > $out/e1/sanitizer-$tool.log 2>&1; echo "compute-sanitizer $tool: rc=$? $(grep -E 'ERROR SUMMARY' $out/e1/sanitizer-$tool.log | tail -1)"
done
echo "total: $(( $(date +%s) - t0 )) s"
cd $out && tar czf e1.tgz e1 && tar czf rec-logs.tgz rec/*.log rec/check && rm -rf e1 rec/*.log rec/check
ls -la $out $out/rec
