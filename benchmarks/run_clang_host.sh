#!/usr/bin/env bash
# Host STREAM, gcc against clang (issue 10 item 4: the clang preset at
# >= 0.97 x the best native STREAM), on a machine that may have no clang:
#
#   OUT=/some/folder BENCH_COMMIT=<hash> bash benchmarks/run_clang_host.sh
#
# clang: if .deps/clang holds the Debian .deb files of scripts/clang_carry.sh
# (carried to the lent machine as ".deps"), they are unpacked into
# $CLANG_ROOT (default build/carried-clang) and that clang is used; otherwise the
# clang in PATH. The presets: gcc-openmp (the C default) and clang-openmp,
# both SoA VVL 8; HOST_CFGS overrides the list ("preset [VAR=value ...]" per
# entry, ';' between entries). BENCH_ROUNDS (default 3) interleaved rounds of
# every build, all cores (OMP_PROC_BIND=spread OMP_PLACES=cores), 512 MiB
# arrays, 10 repetitions; each run times its native candidates (compiled by
# the same compiler) and keeps the fastest. Also checks that apps/lb builds
# with clang-openmp (lb, not run). About a minute on the 16-core host.
# Writes $OUT (default ./bench-out-clang): stream.csv, tables.md (plot.py, if
# python3 is there) and run_clang_host.log. BENCH_QUICK=1: tiny sizes.
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-$PWD/bench-out-clang}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
exec > >(tee "$out/run_clang_host.log") 2>&1

. benchmarks/steps.sh

echo "=== targetDP host STREAM, gcc vs clang, on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
export BENCH_COMMIT
BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
echo "commit: $BENCH_COMMIT"
lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA node\(s\)|L3)'
echo "nproc: $(nproc)"
grep -m1 PRETTY_NAME /etc/os-release 2>/dev/null
ldd --version | head -n 1
gcc --version | head -n 1

if ls .deps/clang/*.deb >/dev/null 2>&1; then
  root=${CLANG_ROOT:-$PWD/build/carried-clang}
  if step "unpack the carried clang into $root" scripts/clang_carry.sh unpack .deps/clang "$root"; then
    # shellcheck disable=SC1091
    . "$root/env.sh"
    step "check the carried clang (an OpenMP test program)" scripts/clang_carry.sh check "$root"
  fi
fi
if command -v clang >/dev/null 2>&1; then
  echo "clang: $(command -v clang), $(clang --version | head -n 1)"
else
  echo "=== no clang (no .deps/clang/*.deb, none in PATH): gcc only"
  failed+=("no clang")
fi

host_stream=(--size $((1 << 26)) --reps 10) # 512 MiB arrays: far beyond L3
[ "${BENCH_QUICK:-0}" = 1 ] && host_stream=(--size 1003 --reps 2)
IFS=';' read -r -a cfgs <<<"${HOST_CFGS:-gcc-openmp;clang-openmp}"
command -v clang >/dev/null 2>&1 || cfgs=("${cfgs[@]/clang*/}")
host_env=(env OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(nproc)}" OMP_PROC_BIND=spread OMP_PLACES=cores)
echo "host runs: ${host_env[*]:1}"
builds=()
for cfg in "${cfgs[@]}"; do
  [ -n "$cfg" ] || continue
  read -r preset vars <<<"$cfg"
  # shellcheck disable=SC2086  # vars is a list of make variables
  if step "build C $cfg" make -s -j"$(nproc)" CONFIG=$preset $vars bench-build; then
    # shellcheck disable=SC2086
    builds+=("$(make -s CONFIG=$preset $vars bench-where)|$cfg")
  fi
done
for r in $(seq 1 "${BENCH_ROUNDS:-3}"); do
  for b in "${builds[@]}"; do
    step "STREAM C ${b#*|}, round $r" "${host_env[@]}" "${b%%|*}/bench_stream" \
      "${host_stream[@]}" --csv "$out/stream.csv"
  done
done
if command -v clang >/dev/null 2>&1; then
  step "build apps/lb clang-openmp" make -s -j"$(nproc)" CONFIG=clang-openmp lb
fi
if command -v python3 >/dev/null 2>&1 && [ -f "$out/stream.csv" ]; then
  step "tables" python3 benchmarks/plot.py --stream "$out/stream.csv" --markdown "$out/tables.md"
fi

echo
echo "=== done in $(($(date +%s) - t0)) s; wrote: $(cd "$out" && echo *)"
if [ ${#failed[@]} -gt 0 ]; then
  echo "=== ${#failed[@]} step(s) failed:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "=== all steps passed"
