#!/usr/bin/env bash
# benchmarks/run_reduce.sh -- what issue 25's reduction changes cost on
# this machine: bench_reduce (benchmarks/reduce.c: in-kernel and library
# reductions written as docs/api.md shows, and the OpenMP loops they
# replace) built against this tree ("new") and against an older commit of
# the layer ("base", default 904b6c2), for each host preset, run in
# interleaved rounds on 1 and 2 threads; the medians per kernel and the
# ratio new/base. Every run checks its results (a WRONG row is printed as
# such and has no ratio).
#
#   OUT=dir bash benchmarks/run_reduce.sh
#   knobs: REDUCE_BASE (commit), REDUCE_CONFIGS ("gcc-openmp clang-openmp"),
#          REDUCE_ROUNDS (5), REDUCE_SIZES ("32768 4194304"), REDUCE_REPS (200)
# Writes reduce.csv (every row) and reduce_summary.txt to $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL
out=${OUT:-build/reduce}
mkdir -p "$out"
base=${REDUCE_BASE:-904b6c2}
configs=${REDUCE_CONFIGS:-gcc-openmp clang-openmp}
rounds=${REDUCE_ROUNDS:-5}
sizes=${REDUCE_SIZES:-32768 4194304}
reps=${REDUCE_REPS:-200}
basedir=build/reduce-base-$base
if [ ! -f "$basedir/targetDP.h" ]; then
  mkdir -p "$basedir"
  git archive "$base" | tar -x -C "$basedir" || { echo "cannot export $base"; exit 1; }
fi
# the same benchmark source and its make rule in the base tree
cp benchmarks/reduce.c "$basedir/benchmarks/reduce.c"
grep -q bench_reduce "$basedir/benchmarks/build.mk" ||
  sed -n '/^# bench_reduce/,$p' benchmarks/build.mk >>"$basedir/benchmarks/build.mk"
declare -A BIN
for cfg in $configs; do
  for v in new base; do
    dir=.
    [ $v = base ] && dir=$basedir
    b=$(make -s -C "$dir" CONFIG="$cfg" bench-where)
    if make -s -C "$dir" -j2 CONFIG="$cfg" "$b/bench_reduce" >"$out/build-$cfg-$v.log" 2>&1; then
      BIN[$cfg,$v]=$dir/$b/bench_reduce
    else
      echo "BUILD FAILED: $cfg $v (see $out/build-$cfg-$v.log)"
    fi
  done
done
csv=$out/reduce.csv
{
  echo "== run_reduce: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null), base $base"
  echo "   $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  lscpu | grep -E '^Model name' | sed 's/^/   /'
  for cfg in $configs; do
    case $cfg in clang*) echo "   $cfg: $(clang --version | head -n 1)" ;; *) echo "   $cfg: $(gcc --version | head -n 1)" ;; esac
  done
} | tee "$out/reduce_summary.txt"
echo "config,variant,round,bench,kernel,size,threads,median_s,best_s,check" >"$csv"
for r in $(seq "$rounds"); do
  for t in 1 2; do
    for n in $sizes; do
      for cfg in $configs; do
        for v in base new; do
          bin=${BIN[$cfg,$v]:-}
          [ -n "$bin" ] || continue
          OMP_NUM_THREADS=$t OMP_PROC_BIND=close TARGETDP_QUIET=1 "$bin" --size="$n" --reps="$reps" |
            sed "s/^/$cfg,$v,$r,/" >>"$csv"
        done
      done
    done
  done
done
# median over the rounds of each (config, kernel, size, threads, variant)
python3 - "$csv" <<'PY' | tee -a "$out/reduce_summary.txt"
import csv, sys, statistics
rows = list(csv.DictReader(open(sys.argv[1])))
med, bad = {}, set()
for r in rows:
    k = (r["config"], r["kernel"], int(r["size"]), int(r["threads"]), r["variant"])
    med.setdefault(k, []).append(float(r["median_s"]))
    if r["check"] != "ok": bad.add(k)
keys = sorted({k[:4] for k in med})
print("%-13s %-14s %8s %2s %12s %12s %7s" % ("config", "kernel", "size", "t", "base us", "new us", "new/base"))
for k in keys:
    b, n = k + ("base",), k + ("new",)
    def cell(x):
        if x not in med: return "-"
        return ("WRONG " if x in bad else "") + "%.2f" % (1e6 * statistics.median(med[x]))
    ratio = "-"
    if b in med and n in med and b not in bad and n not in bad:
        ratio = "%.3f" % (statistics.median(med[n]) / statistics.median(med[b]))
    print("%-13s %-14s %8d %2d %12s %12s %7s" % (k[0], k[1], k[2], k[3], cell(b), cell(n), ratio))
PY
