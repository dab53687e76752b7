#!/usr/bin/env bash
# scripts/run_h100_items.sh -- one device call for the open items of
# issues 10, 11 and 15 (run on the lent H100 machine, repository root):
#   compact  issue 15: test_scan on the GPU, under memcheck and racecheck,
#            then bench_blocks in 3 rounds (compaction and scans, % of copy);
#   d2q9     issue 10 item 3: bench_d2q9 on one host thread at a power-of-two
#            row length (2048, the issue's) and at 2000 and 2056 (velocity
#            arrays not 4 KiB apart), default build, 3 rounds;
#   hosthalo issue 11: lb at 16 ranks x 1 thread, 64^3 per rank, with the
#            halo overlapped (overlap 1: x travels while the interior is
#            updated) and not (0), twice each, interleaved;
#   compactvar issue 15: the compaction kernel as in this tree and with
#            its index stores evict-first (stcs, made by editing a copy of
#            targetDP_scan_CUDA.cu), bench_blocks of each in turn, 3 rounds
#            (256 threads x 4 rows measured the same as 512 x 2 on 2026-11-24);
#   streamtpb issue 10 item 2: CUDA STREAM, double and float, at SoA VVL 1
#            (TPB 256) and VVL 4 with TPB 128, 256 and 512, 3 rounds
#            interleaved, rows in $OUT/stream.csv (is there one build at
#            >= 1.00 of the best native on every kernel?); and in the same
#            builds bench_layout's SU3 mat-vec kernels at 2^20 sites (batch 4),
#            rows in $OUT/layout.csv;
#   su3aos   issue 13: bench_su3 (mult_su3_nn, 32^4, batch 4) in CUDA AoS
#            builds (TPB 256, 512): tdp-elem (36 items per site) beside
#            su3_bench's aos36 and the best SoA forms, 3 rounds, rows in
#            $OUT/su3aos.csv.
# ITEMS picks the parts (default: all three). $OUT receives items.log and
# blocks.csv; the CSV commit column comes from BENCH_COMMIT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-build/h100-items}
ITEMS=${ITEMS:-compact d2q9 hosthalo}  # or compactvar, streamtpb, su3aos
part() { [[ " $ITEMS " == *" $1 "* ]]; }
mkdir -p "$OUT"
exec > >(tee "$OUT/items.log") 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PATH=/usr/local/cuda/bin:$PATH
export BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
scratch=$(mktemp -d)
pids=() # background builds (a bare wait would also wait for the log's tee)
echo "== $(date -u +%FT%TZ) commit $BENCH_COMMIT; $(nvidia-smi --query-gpu=name --format=csv,noheader)"
lscpu | grep -E '^Model name'

part compact && {
  cu=(TARGET=cuda LAYOUT=SOA VVL=1)
  make -s -j16 "${cu[@]}" tests-build >"$scratch/b1.log" 2>&1 || tail -n 20 "$scratch/b1.log"
  make -s -j16 TARGET=cuda bench-build >"$scratch/b2.log" 2>&1 || tail -n 20 "$scratch/b2.log"
  t=$(make -s "${cu[@]}" tests-print-build)/tests/test_scan
  echo "== test_scan (CUDA)"; timeout 120 "$t" 2>&1 | tail -n 14
  echo "== memcheck"; timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$t" 2>&1 | tail -n 4
  echo "rc=$?"
  echo "== racecheck"; timeout 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$t" 2>&1 | tail -n 4
  echo "rc=$?"
  b=$(make -s TARGET=cuda bench-where)
  for round in 1 2 3; do
    echo "== blocks round $round"
    "$b/bench_blocks" --csv "$OUT/blocks.csv" | grep -E "^(Copy|Scan|Compact)|^#"
  done
}

part d2q9 && {
  make -s -j16 bench-build >"$scratch/b3.log" 2>&1 || tail -n 20 "$scratch/b3.log"
  c=$(make -s bench-where)
  echo "== d2q9, default build ($c), 1 thread"
  for round in 1 2 3; do
    for s in 2048 2000 2056; do
      echo "-- round $round size $s"
      OMP_NUM_THREADS=1 OMP_PROC_BIND=close taskset -c 3 "$c/bench_d2q9" --size $s 2>&1 | tail -n 3
    done
  done
}

part hosthalo && {
  make -s -j16 CONFIG=gcc-avx512 LAYOUT=SOA VVL=8 BUILD=build/items-lb lb >"$scratch/b4.log" 2>&1 ||
    tail -n 20 "$scratch/b4.log"
  for round in 1 2; do
    for ov in 0 1; do
      echo "-- round $round, 16 x 1, overlap $ov"
      OMP_NUM_THREADS=1 timeout 60 mpirun --bind-to core --map-by core -np 16 build/items-lb/lb \
        --params apps/lb/input/benchmark.params --output "$scratch/run" --size 256x128x128 \
        --decomposition 4,2,2 --steps 60 --case shearwave --amplitude 0.01 --force "1e-7,0,0" \
        --validate 0 --print_every 60 --overlap $ov 2>&1 | grep -E '^# (halo|update|step|hidden)|overlap|rror|FAIL'
    done
  done
}
part compactvar && {
  src=targetDP/targetDP_scan_CUDA.cu
  stcs='s|dst\[j\] = site0 + pos\[j\];|__stcs(dst + j, (long) (site0 + pos[j]));|'
  declare -A V=([main]='' [stcs]="$stcs")
  for v in main stcs; do
    d=$scratch/cv-$v
    mkdir -p "$d" && tar --exclude=./build --exclude=./.git --exclude=./.deps -cf - . | tar -xf - -C "$d"
    [ -n "${V[$v]}" ] && sed -i "${V[$v]}" "$d/$src"
    (cd "$d" && make -s -j16 TARGET=cuda BUILD=build/cv "build/cv/bench_blocks") >"$scratch/cv-$v.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  for round in 1 2 3; do
    for v in main stcs; do
      b=$scratch/cv-$v/build/cv/bench_blocks
      [ -x "$b" ] || { echo "-- $v: BUILD FAILED"; tail -n 5 "$scratch/cv-$v.log"; continue; }
      echo "-- round $round variant $v: $("$b" --reps 30 | grep -E '^(Copy|CompactIdx) ' | tr -s ' ' | tr '\n' ' ')"
    done
  done
}
part streamtpb && {
  cfgs=("1 256" "4 128" "4 256" "4 512")
  for c in "${cfgs[@]}"; do
    read -r v t <<<"$c"
    make -s -j16 TARGET=cuda LAYOUT=SOA VVL=$v TPB=$t \
      "build/nvcc-sm90-SOA-vvl$v-sal$v-tpb$t/bench_stream" \
      "build/nvcc-sm90-SOA-vvl$v-sal$v-tpb$t/bench_layout" >"$scratch/st-$v-$t.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  for round in 1 2 3; do
    for c in "${cfgs[@]}"; do
      read -r v t <<<"$c"
      b=build/nvcc-sm90-SOA-vvl$v-sal$v-tpb$t/bench_stream
      [ -x "$b" ] || { echo "-- VVL $v TPB $t: BUILD FAILED"; tail -n 5 "$scratch/st-$v-$t.log"; continue; }
      for prec in double float; do
        f=; [ $prec = float ] && f=--float
        echo "-- round $round VVL $v TPB $t $prec: $("$b" $f --csv "$OUT/stream.csv" |
          awk '/^(Copy|Mul|Add|Triad|Dot|Nstream) /{printf "%s %s ", $1, $6}')"
      done
      echo "-- round $round VVL $v TPB $t SU3 mat-vec 2^20 sites, batch 4: $(
        "${b%/*}/bench_layout" --size 1048576 --reps 20 --batch 4 --csv "$OUT/layout.csv" \
          --kernels SU3MatVec,SU3MatVecOnce,SU3MatVecPair | grep -E '^(SU3|Triad)' | tr -s ' ' | tr '\n' '|')"
    done
  done
}
part su3aos && {
  for t in 256 512; do
    make -s -j16 TARGET=cuda LAYOUT=AOS VVL=1 TPB=$t "build/nvcc-sm90-AOS-vvl1-sal1-tpb$t/bench_su3" \
      >"$scratch/su3-$t.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  for round in 1 2 3; do
    for t in 256 512; do
      b=build/nvcc-sm90-AOS-vvl1-sal1-tpb$t/bench_su3
      [ -x "$b" ] || { echo "-- AoS TPB $t: BUILD FAILED"; tail -n 5 "$scratch/su3-$t.log"; continue; }
      echo "-- round $round AoS TPB $t"
      "$b" --size 1048576 --reps 20 --batch 4 --csv "$OUT/su3aos.csv" \
        --variants tdp-elem,aos36,tdp-pair-link-once,pair-link-cs | grep -E "^(tdp|aos|pair|triad|best|ratio)"
    done
  done
}
rm -rf "$scratch"
