#!/usr/bin/env bash
# scripts/run_multigpu.sh -- the multi-GPU runs on a lent machine of two or
# more GPUs of one host (the 2 x H200 kind), in one call:
#   1. targetDP_halo on the GPUs: bit-for-bit exchange per transport, the
#      refusal of more ranks than GPUs (tests/run_device.sh, part halo);
#   2. apps/lb: GPU correctness and one-GPU timings; on 2 (and 4) GPUs the
#      shear wave's checkpoints bitwise equal to 1 GPU's (lbcmp, tolerance
#      0) per transport and overlap mode, then weak and strong scaling with
#      the module's transport and staged (apps/lb/run_device.sh, parts gpu
#      multi) and the model fit;
#   3. apps/milc: validation on the GPU, multi-rank solves against one rank,
#      site-list halos per transport, weak scaling 24^4 and 48^4 per GPU
#      (apps/milc/run_device.sh, part multi).
# Run from the repository root; $OUT (default build/multigpu) receives the
# logs, lb_perf.csv and the model's output; the rest stays in a scratch folder.
# MG_PARTS (default "halo lb milc") picks the steps; LB_PARTS and MILC_PARTS
# pass through (defaults "gpu multi" and "multi"), and so do LB_CMP_PRINTED
# (1: the printed observations of several GPUs must equal one GPU's too)
# and LB_SMOKE (1: a CPU rehearsal of the lb step, host ranks for GPUs; with
# MG_PARTS=lb it needs no GPU: tests/suites/lb_safety.sh runs it).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-build/multigpu}
scratch=$(mktemp -d)
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0   # the lending workplace's rule: no NVLink multicast
{ command -v nvidia-smi >/dev/null && nvidia-smi topo -m 2>&1 || echo "no nvidia-smi: no GPU topology"; } | head -n 4 | tee "$OUT/topo.txt"
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
grep -E "^(ok|not ok) -|^# note -|^# (halo|update|step|overlap) |== (cuda|c-|4a|4b)" "$OUT/lb_device.log" | tail -n 60
fi
if mg milc; then
MILC_PARTS=${MILC_PARTS:-multi} OUT=$scratch/milc bash apps/milc/run_device.sh >/dev/null 2>&1
cp "$scratch/milc/milc_device.log" "$OUT/"
grep -E "ok -|FAIL|csv:|CG |# halo" "$OUT/milc_device.log" | tail -n 40
fi
rm -rf "$scratch"
