#!/usr/bin/env bash
# The layout x VVL (x TPB) sweep of bench_layout. LAYOUT, VVL and TPB are
# compile-time, so each configuration is its own build: all are built in
# parallel first (nvcc is slow), then run one after another, each run
# appending its rows (and its own Triad reference) to one CSV.
#
#   benchmarks/sweep_layout.sh --csv FILE [--target c|cuda] [--config PRESET]
#       [--layouts "AOS SOA AOSOA"] [--vvls "1 2 4 8 16"] [--tpbs "128"]
#       [--also "LAYOUT:VVL:TPB ..."] [--jobs N] [-- bench_layout options]
#
# The configurations are layouts x vvls x tpbs, plus those listed by --also
# (e.g. a TPB sweep of one layout without multiplying the build count).
#
# A configuration that fails to build or run is reported ("FAILED ...") and
# skipped; the exit status is 1 if any failed.
set -u

target=c config="" layouts="AOS SOA AOSOA" vvls="1 2 4 8 16" tpbs=128 also="" csv=""
jobs=$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --target) target=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --layouts) layouts=$2; shift 2 ;;
    --vvls) vvls=$2; shift 2 ;;
    --tpbs) tpbs=$2; shift 2 ;;
    --also) also=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --csv) csv=$2; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
[ -n "$csv" ] || usage
case $csv in /*) ;; *) csv=$PWD/$csv ;; esac
bench_args=("$@")
cd "$(dirname "$0")/.." || exit 1

configs=()
for l in $layouts; do
  for v in $vvls; do
    for t in $tpbs; do configs+=("$l $v $t"); done
  done
done
for c in $also; do configs+=("${c//:/ }"); done
make_vars() { echo "TARGET=$target ${config:+CONFIG=$config} LAYOUT=$1 VVL=$2 TPB=$3"; }

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
echo "# building ${#configs[@]} configurations, $jobs at a time"
running=0
for c in "${configs[@]}"; do
  read -r l v t <<<"$c"
  # shellcheck disable=SC2046  # make_vars is a list of words
  ( make $(make_vars "$l" "$v" "$t") -j2 bench-build >"$logs/$l-$v-$t.log" 2>&1
    echo $? >"$logs/$l-$v-$t.rc" ) &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

failed=0
for c in "${configs[@]}"; do
  read -r l v t <<<"$c"
  vars=$(make_vars "$l" "$v" "$t")
  if [ "$(cat "$logs/$l-$v-$t.rc")" != 0 ]; then
    echo "FAILED build: make $vars"
    tail -n 15 "$logs/$l-$v-$t.log"
    failed=1
    continue
  fi
  # shellcheck disable=SC2086
  build=$(make -s $vars bench-where)
  echo "== make $vars"
  if ! "$build/bench_layout" --csv "$csv" "${bench_args[@]}"; then
    echo "FAILED run: $build/bench_layout ${bench_args[*]}"
    failed=1
  fi
done
exit $failed
