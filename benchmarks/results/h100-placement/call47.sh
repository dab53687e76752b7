#!/usr/bin/env bash
# call47: the full corpus at 4a341a1 (fields staggered in their pages), 5 rounds, H100 + host
# (gcc 13, clang 14; 1 and 16 threads), and test_memory under TARGET=cuda (plain and memcheck).
set -u
export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export C_INCLUDE_PATH=$PWD/.deps/root/usr/include CPLUS_INCLUDE_PATH=$PWD/.deps/root/usr/include LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu
( make -s -j4 TARGET=cuda BUILD=build/cu47 build/cu47/tests/test_memory > $OUT/cu-build.log 2>&1 && \
  TARGETDP_QUIET=1 build/cu47/tests/test_memory > $OUT/cu-test.log 2>&1; echo "cuda test_memory rc $?"; \
  TARGETDP_QUIET=1 compute-sanitizer --tool memcheck build/cu47/tests/test_memory > $OUT/cu-memcheck.log 2>&1; echo "memcheck rc $?" ) 
tail -3 $OUT/cu-test.log; grep -E "ERROR SUMMARY|PASSED|FAILED" $OUT/cu-memcheck.log | head -3; grep -A1 large_fields $OUT/cu-test.log | head -3
BENCH_COMMIT=4a341a1 CORPUS_ROUNDS=5 CORPUS_END_S=330 OUT=$OUT/corpus bash benchmarks/corpus/run_device.sh 2>&1 | tail -40
