#!/usr/bin/env bash
# Suite: reliability (docs/reliability.md) -- faults and bad input beyond
# the unit tests and tests/suites/lb.sh.
#   MPI: a targetDP error in one rank (a bad API call; an out-of-bounds
#        index in a kernel of a checked build) ends the whole job with one
#        readable message and a non-zero status, within seconds, no hang.
#   apps/lb: every key refused with a message before any work when its
#        value is bad; an output directory that cannot be written; a
#        checkpoint that cannot be written (file-size limit, as a full
#        disk); NaN in the fields (planted with the inject_nan test hook,
#        and a real blow-up): detected, reported with the step and the
#        site, the run stops non-zero with the last good checkpoint intact.
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 TARGETDP_QUIET=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $1"; }
notok() { # notok NAME [LOG]
  echo "not ok - $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 15 "$2"
}

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
  echo "ok - reliability suite # SKIP no MPI (scripts/install_deps.sh installs openmpi-bin libopenmpi-dev)"
  exit 0
fi

# ---------------------------------------------------------------- MPI
plain=$(make -s tests-print-build)
checked=$(make -s CHECK=1 tests-print-build)
built=1
for c in "" "CHECK=1"; do
  if ! make -j2 $c tests-mpi >"$tmp/build-mpi.log" 2>&1 || grep -q "warning:" "$tmp/build-mpi.log"; then
    notok "tests/mpi builds warning-free ${c:-(default configuration)}" "$tmp/build-mpi.log"
    built=0
  fi
done
[ "$built" = 1 ] && ok "tests/mpi builds warning-free (default and CHECK=1)"

# mpi_job NAME NP BINARY MODE PATTERN: rank 1 fails; the job must end
# non-zero within 60 s (no hang) and PATTERN must appear exactly once.
mpi_job() {
  local name=$1 np=$2 bin=$3 mode=$4 pattern=$5 log=$tmp/mpi.log t0 rc dt n
  t0=$(date +%s)
  timeout -k 5 60 mpirun --oversubscribe -np "$np" "$bin" "$mode" >"$log" 2>&1
  rc=$?
  dt=$(($(date +%s) - t0))
  n=$(grep -c -- "$pattern" "$log")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    notok "$name: the job hung (killed by timeout after 60 s)" "$log"
  elif [ "$rc" -eq 0 ]; then
    notok "$name: the job exited 0" "$log"
  elif [ "$n" -ne 1 ]; then
    notok "$name: the message '$pattern' appears $n times, want 1" "$log"
  elif grep -q "ranks finished" "$log"; then
    notok "$name: the other ranks carried on" "$log"
  else
    ok "$name: job ended with status $rc after ${dt}s, one message ($(grep -m1 -- "$pattern" "$log" | head -c 100))"
  fi
}
if [ "$built" = 1 ]; then
  if timeout -k 5 60 mpirun --oversubscribe -np 2 "$plain/tests/mpi/mpi_error" ok >"$tmp/ok.log" 2>&1 &&
     grep -q "2 ranks finished, sum 4160 (want 4160)" "$tmp/ok.log"; then
    ok "MPI control: 2 ranks without a planted error finish with status 0"
  else
    notok "MPI control: 2 ranks without a planted error finish with status 0" "$tmp/ok.log"
  fi
  mpi_job "bad targetDP call on rank 1 of 2" 2 "$plain/tests/mpi/mpi_error" badcall \
    "targetDP: copyToTarget failed at tests/mpi/mpi_error.c:"
  mpi_job "bad targetDP call on rank 1 of 4" 4 "$plain/tests/mpi/mpi_error" badcall \
    "targetDP: copyToTarget failed at tests/mpi/mpi_error.c:"
  mpi_job "out-of-bounds TDP_INDEX in a kernel on rank 1 of 2 (CHECK=1)" 2 \
    "$checked/tests/mpi/mpi_error" oob "targetDP: index out of bounds in kShift at tests/mpi/mpi_error.c:"
fi

exit 0
