# tests/suites/lib/common.bash -- shared preamble of the suites; sourced
# (not run) by a suite after it has changed to the repository root. Not a
# suite itself: tests/run_tests.sh only runs tests/suites/*.sh.
#   - a clean make environment and quiet single-threaded MPI/OpenMP runs;
#   - $tmp, a scratch directory removed on exit;
#   - ok NAME / notok NAME [LOG]: the suite's result lines.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 TARGETDP_QUIET=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $1"; }
notok() { # notok NAME [LOG]
  echo "not ok - $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 15 "$2"
}

# lbRun SECONDS NP OUT [options]: run apps/lb ($b/lb) on NP ranks under a
# time limit (no run may hang), output prefix $tmp/OUT, log $tmp/OUT.log,
# exit status in $rc. One rank runs as an MPI singleton, without mpirun:
# mpirun takes ~2 s to wind down a job that exits non-zero.
lbRun() {
  local limit=$1 np=$2 out=$3
  shift 3
  if [ "$np" = 1 ]; then
    timeout -k 5 "$limit" "$b/lb" --output "$tmp/$out" "$@" >"$tmp/$out.log" 2>&1
  else
    timeout -k 5 "$limit" mpirun --oversubscribe -np "$np" "$b/lb" --output "$tmp/$out" "$@" \
      >"$tmp/$out.log" 2>&1
  fi
  rc=$?
}
