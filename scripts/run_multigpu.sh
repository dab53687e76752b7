#!/usr/bin/env bash
# scripts/run_multigpu.sh -- the multi-GPU runs on a lent machine of two or
# more GPUs of one host (the 2 x H200 kind), in one call:
#   1. targetDP_halo on the GPUs: bit-for-bit exchange per transport, the
#      refusal of more ranks than GPUs (tests/run_device.sh, part halo);
#   2. apps/lb: GPU correctness and one-GPU timings, then weak and strong
#      scaling 1 -> 2 GPUs with the module's transport and staged
#      (apps/lb/run_device.sh, parts gpu multi) and the model fit;
#   3. apps/milc: validation on the GPU, multi-rank solves against one rank,
#      site-list halos per transport, weak scaling 24^4 and 48^4 per GPU
#      (apps/milc/run_device.sh, part multi).
# Run from the repository root; $OUT (default build/multigpu) receives the
# logs, lb_perf.csv and the model's output; the rest stays in a scratch folder.
# MG_PARTS (default "halo lb milc") picks the steps; LB_PARTS and MILC_PARTS
# pass through (defaults "gpu multi" and "multi").
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-build/multigpu}
scratch=$(mktemp -d)
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0   # the lending workplace's rule: no NVLink multicast
nvidia-smi topo -m 2>&1 | head -n 4 | tee "$OUT/topo.txt"
MG_PARTS=${MG_PARTS:-halo lb milc}
mg() { [[ " $MG_PARTS " == *" $1 "* ]]; }
if mg halo; then
TESTS_PARTS=halo OUT=$scratch/t bash tests/run_device.sh >/dev/null 2>&1
cp "$scratch/t/halo_gpu.log" "$OUT/"
grep -E "ok|error|FAIL|GB/s|ms" "$OUT/halo_gpu.log" | head -n 40
fi
if mg lb; then
LB_PARTS=${LB_PARTS:-gpu multi} OUT=$scratch/lb bash apps/lb/run_device.sh >/dev/null 2>&1
cp "$scratch/lb/lb_perf.csv" "$scratch/lb/lb_device.log" "$scratch/lb/lb_model.txt" "$OUT/" 2>/dev/null
cp "$scratch"/lb/*.svg "$OUT/" 2>/dev/null
grep -E "^(ok|not ok) -|^# (halo|update|step|overlap) |== (cuda|c-)" "$OUT/lb_device.log" | tail -n 40
fi
if mg milc; then
MILC_PARTS=${MILC_PARTS:-multi} OUT=$scratch/milc bash apps/milc/run_device.sh >/dev/null 2>&1
cp "$scratch/milc/milc_device.log" "$OUT/"
grep -E "ok -|FAIL|csv:|CG |# halo" "$OUT/milc_device.log" | tail -n 40
fi
rm -rf "$scratch"
