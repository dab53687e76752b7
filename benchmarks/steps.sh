# benchmarks/steps.sh -- sourced by the device scripts (run_device.sh,
# run_clang_host.sh): each step is run, logged with its time since the
# script started and its command, and a failure is recorded in the array
# `failed` instead of stopping the script, so one broken step costs that
# step, not the rest of a device call.
t0=$(date +%s)
failed=()
elapsed() { echo $(($(date +%s) - t0)); }
step() { # step NAME COMMAND...: run, log and record one step
  local name=$1 rc
  shift
  echo
  echo "=== [$(elapsed) s] $name"
  echo "\$ $*"
  "$@"
  rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "=== FAILED (exit $rc): $name"
    failed+=("$name")
  fi
  return "$rc"
}
