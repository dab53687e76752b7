#!/usr/bin/env bash
# scripts/run_h100_session.sh -- the one-GPU measurements of the changes
# made together (run on the lent H100 machine, from the repository root):
#   1. bench_blocks on the GPU, 3 rounds: the 3-D box launch beside the 1-D
#      form and a copy (issue 15: box rows per thread);
#   2. apps/milc one GPU (no halo on undecomposed axes) and mult_su3_nn:
#      apps/milc/run_device.sh, part single;
#   3. apps/lb, GPU and host parts (host: huge pages for the fields; the
#      16 x 1 halo share and the ranks x threads split).
# $OUT receives blocks.csv, blocks.log, milc_device.log, lb_perf.csv,
# lb_device.log, lb_model.txt.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-build/h100-session}
mkdir -p "$OUT"
scratch=$(mktemp -d)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PATH=/usr/local/cuda/bin:$PATH
# the commit column of the benchmark CSV rows (benchmarks/bench.c)
export BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
make -s -j16 TARGET=cuda bench-build >"$scratch/build.log" 2>&1 || tail -n 20 "$scratch/build.log"
b=$(make -s TARGET=cuda bench-where)
{
  nvidia-smi --query-gpu=name --format=csv,noheader
  for round in 1 2 3; do
    echo "== round $round"
    "$b/bench_blocks" --csv "$OUT/blocks.csv"
  done
} >"$OUT/blocks.log" 2>&1
grep -iE "box|flat|interior|copy" "$OUT/blocks.log" | head -n 40
MILC_PARTS=single OUT=$scratch/milc bash apps/milc/run_device.sh >/dev/null 2>&1
cp "$scratch/milc/milc_device.log" "$OUT/"
grep -E "^-- |^# (dslash|halo|triad)|^CG |ratio|^(native|targetDP) " "$OUT/milc_device.log" | head -n 60
LB_PARTS="gpu host" OUT=$scratch/lb bash apps/lb/run_device.sh >/dev/null 2>&1
cp "$scratch/lb/lb_perf.csv" "$scratch/lb/lb_device.log" "$scratch/lb/lb_model.txt" "$OUT/" 2>/dev/null
grep -E "^(ok|not ok) -|^# (halo|update|step) |^== " "$OUT/lb_device.log" | tail -n 70
rm -rf "$scratch"
