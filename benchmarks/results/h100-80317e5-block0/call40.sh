#!/usr/bin/env bash
# call40: the one-site path at TPB 64 and 512 and the march fallback at TPB 96 on the GPU:
# box/stencil/team tests plain + memcheck, and bench_corpus validation of every shape.
set -u
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
bins="test_stencil test_box test_box_reduce test_team"
for T in 64 96 512; do
  sb=$(make -s TARGET=cuda LAYOUT=SOA VVL=1 TPB=$T tests-print-build)
  tg=(); for b in $bins; do tg+=("$sb/tests/$b"); done
  (make -s -j5 TARGET=cuda LAYOUT=SOA VVL=1 TPB=$T "${tg[@]}" > $OUT/build-tests-$T.log 2>&1; echo "tests TPB $T build rc=$?") &
  (make -s -j5 TARGET=cuda TPB=$T corpus-build > $OUT/build-corpus-$T.log 2>&1; echo "corpus TPB $T build rc=$?") &
done
wait
echo "[$(($(date +%s)-t0)) s] builds"
grep -i warning $OUT/build-*.log | head
for T in 64 96 512; do
  sb=$(make -s TARGET=cuda LAYOUT=SOA VVL=1 TPB=$T tests-print-build)
  for b in $bins; do
    CMOCKA_MESSAGE_OUTPUT=TAP timeout 120 $sb/tests/$b > $OUT/t-$T-$b.log 2>&1; rc=$?
    echo "TPB $T $b plain rc=$rc ok=$(grep -c '^ok' $OUT/t-$T-$b.log) notok=$(grep -c '^not ok' $OUT/t-$T-$b.log) skip=$(grep -c '# SKIP' $OUT/t-$T-$b.log)"
    TDP_TEST_NO_BIG=1 TDP_TEST_NO_FORK=1 CMOCKA_MESSAGE_OUTPUT=TAP timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 --leak-check full --report-api-errors no $sb/tests/$b > $OUT/m-$T-$b.log 2>&1; rc=$?
    echo "TPB $T $b memcheck rc=$rc ok=$(grep -c '^ok' $OUT/m-$T-$b.log) notok=$(grep -c '^not ok' $OUT/m-$T-$b.log) $(grep 'ERROR SUMMARY' $OUT/m-$T-$b.log)"
  done
  cb=$(make -s TARGET=cuda TPB=$T bench-where)/bench_corpus
  for a in "--sites 3001 --reps 2" "--sites 50 --reps 1" "--sites 777777 --reps 2" "--mb 256 --reps 3"; do
    TARGETDP_QUIET=1 timeout 120 $cb $a --shape all --csv $OUT/corpus-tpb$T.csv > $OUT/c-$T.log 2>&1; rc=$?
    echo "TPB $T bench_corpus $a rc=$rc $(grep -ciE 'wrong|FAIL' $OUT/c-$T.log) wrong/fail lines"
  done
  echo "[$(($(date +%s)-t0)) s] TPB $T done"
done
