#!/usr/bin/env bash
# Suite: exact sums across MPI ranks (issue 25 item 9; targetDP_exact.h,
# targetDP_exact_mpi.h). tests/mpi/exact_sum.c sums one fixed global array
# split over 1, 2, 3 and 4 ranks (equal and uneven parts) through the
# library, an in-kernel exact accumulator and floats, combined by
# targetExactAllreduce: every run must print bitwise the same results, in
# the default build and a checked AoS VVL 1 build. The data is made so
# that the apps' former way (each rank's rounded sum, then MPI_SUM of
# doubles) differs in its last bits between splits: that is checked too,
# so the comparison could fail. Contract: tests/README.md.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
  echo "ok - exact suite # SKIP no MPI (scripts/install_deps.sh installs openmpi-bin libopenmpi-dev)"
  exit 0
fi

for c in "" "LAYOUT=AOS VVL=1 CHECK=1"; do
  b=$(make -s $c tests-print-build)/tests/mpi/exact_sum
  name=${c:-default configuration}
  if ! make -j2 $c tests-mpi >"$tmp/build.log" 2>&1 || grep -q "warning:" "$tmp/build.log"; then
    notok "exact_sum builds warning-free ($name)" "$tmp/build.log"
    continue
  fi
  ok "exact_sum builds warning-free ($name)"
  declare -A exact=() plain=()
  for run in "1" "2" "3" "4" "2 --uneven" "4 --uneven"; do
    set -- $run
    np=$1
    shift
    log=$tmp/run.log
    timeout -k 5 120 mpirun --oversubscribe -np "$np" "$b" "$@" >"$log" 2>&1
    rc=$?
    line=$(grep -m1 "exact_sum: PASS" "$log")
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
      notok "$name: $np rank(s) $*: ran and agreed across ranks (status $rc)" "$log"
      continue
    fi
    exact[$run]=$(sed 's/.*: exact \(.*\) plain .*/\1/' <<<"$line")
    plain[$run]=$(sed 's/.* plain //' <<<"$line")
  done
  ref=${exact[1]:-}
  for run in "2" "3" "4" "2 --uneven" "4 --uneven"; do
    if [ -n "$ref" ] && [ "${exact[$run]:-none}" = "$ref" ]; then
      ok "$name: $run rank(s): bitwise the 1-rank sums ($ref)"
    else
      echo "not ok - $name: $run rank(s): ${exact[$run]:-no result}, 1 rank: ${ref:-no result}"
    fi
  done
  distinct=$(printf '%s\n' "${plain[@]}" | sort -u | wc -l)
  if [ "$distinct" -gt 1 ]; then
    ok "$name: the data is sensitive: the former rounded-partials sum takes $distinct values over the splits"
  else
    echo "not ok - $name: the former sum is the same for every split: the test could not fail"
  fi
  unset exact plain
done
