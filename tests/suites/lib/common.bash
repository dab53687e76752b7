# tests/suites/lib/common.bash -- shared preamble of the suites; sourced
# (not run) by a suite after it has changed to the repository root. Not a
# suite itself: tests/run_tests.sh only runs tests/suites/*.sh.
#   - a clean make environment and quiet single-threaded MPI/OpenMP runs;
#   - $tmp, a scratch directory removed on exit;
#   - ok NAME / notok NAME [LOG]: the suite's result lines;
#   - appBuilds APP "LAYOUT VVL"...: an app built warning-free per configuration;
#   - failsLoudly NAME MUST NOTMUST COMMAND...: a run that must fail with a message.
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

# appBuilds APP "LAYOUT VVL"...: build make target APP in each configuration
# (APP-build-dir names the folder); one ok/notok line each, and B[LAYOUT-VVL]
# the folder of each build that worked warning-free (B: the caller's
# associative array, declared with declare -A B).
appBuilds() {
  local app=$1 cfg dir
  shift
  for cfg in "$@"; do
    set -- $cfg
    dir=$(make -s LAYOUT=$1 VVL=$2 "$app-build-dir")
    if make -j2 LAYOUT=$1 VVL=$2 "$app" >"$tmp/build-$1-$2.log" 2>&1 &&
       ! grep -q "warning:" "$tmp/build-$1-$2.log"; then
      ok "$app builds warning-free, LAYOUT=$1 VVL=$2"
      B[$1-$2]=$dir
    else
      notok "$app builds warning-free, LAYOUT=$1 VVL=$2" "$tmp/build-$1-$2.log"
    fi
  done
}

# failsLoudly NAME MUST NOTMUST COMMAND...: ok if COMMAND exits non-zero,
# its output matches the grep pattern MUST and does not match NOTMUST
# (e.g. a bandwidth that must not be printed after a failed validation;
# an empty NOTMUST checks nothing).
failsLoudly() {
  local name=$1 must=$2 notmust=$3 out rc
  shift 3
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne 0 ] && grep -q -- "$must" <<<"$out" &&
     { [ -z "$notmust" ] || ! grep -q -- "$notmust" <<<"$out"; }; then
    ok "$name"
  else
    echo "not ok - $name (exit $rc)"
    tail -n 5 <<<"$out"
  fi
}
