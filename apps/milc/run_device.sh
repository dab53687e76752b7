#!/usr/bin/env bash
# apps/milc on the lent GPU machine (H100 + 16-core host): validation on the
# GPU, then timings. Run from the repository root:
#     bash apps/milc/run_device.sh          (OUT defaults to ./build/milc-device)
# Writes $OUT/milc_device.log. What it does:
#   0. milccheck on the GPU (SOA, and AOSOA SAL 256): every PASS/FAIL line,
#      then the same solve on the GPU and on the host CPU compared to 1e-12
#      (lines "ok - ..." / "not ok - ...");
#   1. GPU: CG at 16^4, 24^4 and 32^4 (random field, mass 0.1), both layouts:
#      the per-kernel table (dslash, blas, halo: GFLOP/s, GB/s) and summary;
#      32^4 in single precision too;
#   2. host, 1 rank x all cores: the same at 16^4 and 24^4, AOSOA VVL 4 and SOA VVL 8;
#   3. benchmarks/su3.c (mult_su3_nn, 32^4 sites, targetDP beside native) on
#      the GPU in both layouts and on the host, with the STREAM triad of the
#      same run for the % of triad.
# docs/milc.md says how to read it. A few minutes at most.
set -uo pipefail
# MILC_PARTS (default "single multi"): single = sections 1-3, multi = 4
# (section 0, validation, always runs; scripts/run_multigpu.sh asks for multi).
MILC_PARTS=${MILC_PARTS:-single multi}
part() { [[ " $MILC_PARTS " == *" $1 "* ]]; }
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
OUT=${OUT:-build/milc-device}
mkdir -p "$OUT"
exec > >(tee "$OUT/milc_device.log") 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TARGETDP_QUIET=1
cores=$(nproc)
echo "== milc device runs: $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null), $cores cores"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null

declare -A B
pids=()
build() { # build KEY make-args...
  local key=$1
  shift
  B[$key]=$(make -s "$@" milc-build-dir)
  make -s -j4 "$@" milc "${B[$key]}/bench_su3" "${B[$key]}/bench_stream" >"$OUT/build-$key.log" 2>&1 &
  pids+=($!)
}
build cuda-soa TARGET=cuda
build cuda-aosoa TARGET=cuda LAYOUT=AOSOA SAL=256
build c-aosoa4 LAYOUT=AOSOA VVL=4
build c-soa8 LAYOUT=SOA VVL=8
for p in "${pids[@]}"; do wait "$p"; done
for k in "${!B[@]}"; do
  [ -x "${B[$k]}/milc" ] || { echo "not ok - build $k"; tail -n 20 "$OUT/build-$k.log"; }
done

echo "== 0. validation on the GPU"
for k in cuda-soa cuda-aosoa; do
  timeout 300 "${B[$k]}/milccheck" | sed "s/\$/ [$k]/"
done
solve=(--size 4,4,6,8 --mass 0.5 --tol 1e-13 --seed 3 --print_every 0)
timeout 120 "${B[cuda-soa]}/milc" "${solve[@]}" --save "$OUT/gpu.bin" | tail -n 1
OMP_NUM_THREADS=$cores timeout 120 "${B[c-aosoa4]}/milc" "${solve[@]}" --save "$OUT/cpu.bin" | tail -n 1
if "${B[c-aosoa4]}/milccheck" --compare "$OUT/cpu.bin" "$OUT/gpu.bin" 1e-12; then
  echo "ok - GPU solution equals the host's to 1e-12"
else
  echo "not ok - GPU solution equals the host's to 1e-12"
fi

if part single; then
echo "== 1. GPU timings"
for k in cuda-soa cuda-aosoa; do
  for L in 16 24 32; do
    echo "-- $k $L^4"
    timeout 300 "${B[$k]}/milc" --size $L --mass 0.1 --tol 1e-10 --maxiter 2000 --print_every 0 \
      --triad 134217728 | grep -E "^(# (dslash|blas|halo|kernel|triad)|CG )"
  done
  echo "-- $k 32^4 single precision (tol 1e-5)"
  timeout 300 "${B[$k]}/milc" --size 32 --mass 0.1 --tol 1e-5 --maxiter 2000 --print_every 0 \
    --precision single --triad 134217728 | grep -E "^(# (dslash|blas|halo|kernel|triad)|CG )"
done

echo "== 2. host timings, $cores threads"
for k in c-aosoa4 c-soa8; do
  for L in 16 24; do
    echo "-- $k $L^4"
    OMP_NUM_THREADS=$cores timeout 300 "${B[$k]}/milc" --size $L --mass 0.1 --tol 1e-10 \
      --maxiter 2000 --print_every 0 --triad 33554432 | grep -E "^(# (dslash|blas|halo|kernel|triad)|CG )"
  done
done

echo "== 3. mult_su3_nn (benchmarks/su3.c) and the triad of this run"
for k in cuda-soa cuda-aosoa; do
  echo "-- $k"
  timeout 300 "${B[$k]}/bench_stream" --reps 10 | grep -E "^(kernel|Triad)"
  timeout 300 "${B[$k]}/bench_su3" --size 1048576 --reps 20
done
for k in c-aosoa4 c-soa8; do
  echo "-- $k, $cores threads"
  OMP_NUM_THREADS=$cores timeout 300 "${B[$k]}/bench_stream" --reps 10 | grep -E "^(kernel|Triad)"
  OMP_NUM_THREADS=$cores timeout 300 "${B[$k]}/bench_su3" --size 1048576 --reps 10
done

fi # part single

# 4. Several GPUs of one host (the 2 x H200 machine; skipped with one GPU):
#    the multi-rank solve against the one-rank solve (same iterations,
#    1e-12), the halo module's site-list faces on each transport, and weak
#    scaling: 24^4 and 48^4 sites per GPU on 1 and 2 GPUs (t split), as CSV
#    rows: device,commit,config,ranks,local,iterations,seconds,s_per_iter,GFLOP/s,GB/s,efficiency
#    (efficiency = time per iteration on 1 GPU / on 2 GPUs, same local size).
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
if part multi && [ "$ngpu" -ge 2 ]; then
  echo "== 4. $ngpu GPUs: multi-rank validation and weak scaling"
  make -s -j8 TARGET=cuda tests-mpi >"$OUT/build-mpi.log" 2>&1 || echo "not ok - build tests-mpi"
  for t in auto staged ipc direct put; do
    for r in "2 --parity 0" "2 --float --parity 1 --dims 2,1,1,1"; do
      set -- $r
      np=$1
      shift
      TARGETDP_HALO=$t timeout 120 mpirun -np "$np" "${B[cuda-soa]}/tests/mpi/halo_sites" "$@" 2>&1 |
        tail -n 1 | sed "s/\$/ [TARGETDP_HALO=$t]/"
    done
  done
  for dec in 1,1,1,2 2,1,1,1; do
    timeout 120 mpirun -np 2 "${B[cuda-soa]}/milc" "${solve[@]}" --decomposition $dec \
      --save "$OUT/gpu2.bin" | tail -n 1
    if "${B[c-aosoa4]}/milccheck" --compare "$OUT/gpu.bin" "$OUT/gpu2.bin" 1e-12; then
      echo "ok - 2 GPUs ($dec) equal 1 GPU to 1e-12"
    else
      echo "not ok - 2 GPUs ($dec) equal 1 GPU to 1e-12"
    fi
  done
  dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
  commit=$(git rev-parse --short HEAD 2>/dev/null)
  echo "csv: device,commit,config,ranks,local,iterations,seconds,s_per_iter,gflops,gbs,efficiency"
  for k in cuda-soa cuda-aosoa; do
    for L in 24 48; do
      one=
      for np in 1 2; do
        size=$L,$L,$L,$((L * np))
        line=$(timeout 400 mpirun -np $np "${B[$k]}/milc" --size $size --decomposition 1,1,1,$np \
          --mass 0.1 --tol 1e-10 --maxiter 400 --print_every 0 | grep -E "^CG ")
        it=$(grep -o 'iterations [0-9]*' <<<"$line" | cut -d' ' -f2)
        sec=$(grep -o 'time [0-9.e+-]*' <<<"$line" | cut -d' ' -f2)
        gf=$(grep -o '[0-9.]* GFLOP/s' <<<"$line" | cut -d' ' -f1)
        gb=$(grep -o '[0-9.]* GB/s' <<<"$line" | cut -d' ' -f1)
        spi=$(awk -v s="$sec" -v i="$it" 'BEGIN { if (i > 0) printf "%.6g", s / i }')
        [ $np -eq 1 ] && one=$spi
        eff=$(awk -v a="$one" -v b="$spi" 'BEGIN { if (b > 0) printf "%.3f", a / b }')
        echo "csv: $dev,$commit,$k,$np,${L}^4,$it,$sec,$spi,$gf,$gb,$eff"
      done
    done
  done
fi
