#!/usr/bin/env bash
# Suite: libFuzzer on the parameter parser of apps/lb (tests/fuzz/fuzz_params.c),
# built with clang -fsanitize=fuzzer,address,undefined. First every input
# in tests/fuzz/seeds/ (regressions: inputs that once crashed the parser or
# got a NaN into a run) is replayed, then the fuzzer runs for a bounded
# time (TDP_FUZZ_SECONDS, default 60) from those seeds and
# apps/lb/input/*.params. Pass: no crash, no sanitizer report, no broken
# invariant of lbParamsLoad (the harness aborts on one).
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
secs=${TDP_FUZZ_SECONDS:-60}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v clang >/dev/null; then
  echo "ok - fuzz suite # SKIP no clang (scripts/install_deps.sh installs clang libclang-rt-14-dev)"
  exit 0
fi
if ! make fuzz-build >"$tmp/build.log" 2>&1 || grep -q "warning:" "$tmp/build.log"; then
  echo "not ok - fuzz_params builds warning-free with clang -fsanitize=fuzzer,address,undefined"
  tail -n 20 "$tmp/build.log"
  exit 0
fi
echo "ok - fuzz_params builds warning-free with clang -fsanitize=fuzzer,address,undefined"
bin=build/fuzz/fuzz_params

sanitizer_report() { grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY: ' "$1"; }

# Regressions: each seed runs once (libFuzzer runs files given by name).
nseed=$(find tests/fuzz/seeds -type f | wc -l)
if "$bin" tests/fuzz/seeds/* >"$tmp/seeds.log" 2>&1 && ! sanitizer_report "$tmp/seeds.log"; then
  echo "ok - fuzz_params replays the $nseed inputs in tests/fuzz/seeds without a report"
else
  echo "not ok - fuzz_params replays the $nseed inputs in tests/fuzz/seeds without a report"
  grep -E 'ERROR|runtime error|SUMMARY|Running' "$tmp/seeds.log" | tail -n 20
fi

# Fuzzing for $secs seconds; the corpus grows in $tmp, not in the tree.
mkdir -p "$tmp/corpus" "$tmp/crash"
cp tests/fuzz/seeds/* apps/lb/input/*.params "$tmp/corpus/"
timeout -k 10 $((secs + 60)) "$bin" -max_total_time="$secs" -close_fd_mask=3 -timeout=10 \
  -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix="$tmp/crash/" \
  "$tmp/corpus" >"$tmp/fuzz.log" 2>&1
rc=$?
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$tmp/fuzz.log" | grep -o '[0-9]*$')
ncrash=$(find "$tmp/crash" -type f | wc -l)
if [ "$rc" -eq 0 ] && [ "$ncrash" -eq 0 ] && ! sanitizer_report "$tmp/fuzz.log"; then
  echo "ok - fuzz_params: ${runs:-?} inputs in ${secs} s, no crash, no sanitizer report"
else
  echo "not ok - fuzz_params: status $rc, $ncrash crashing inputs in ${secs} s"
  grep -E 'ERROR|runtime error|SUMMARY|==[0-9]+==' "$tmp/fuzz.log" | head -n 20
  for f in "$tmp"/crash/*; do
    [ -f "$f" ] || continue
    echo "# crashing input $(basename "$f") (base64; add it to tests/fuzz/seeds once fixed):"
    base64 -w0 "$f" | head -c 2000
    echo
  done
fi
exit 0
