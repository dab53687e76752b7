#!/usr/bin/env bash
# scripts/run_multigpu.sh -- issue 29's measurements on a lent machine of
# 2 GPUs of one host (nvidia-h100-x2; 4-GPU points too where 4 GPUs are
# found), in ONE call that ends in about 8 minutes, builds included:
#
#   OUT=/path bash scripts/run_multigpu.sh
#
#   0. builds (in parallel, make -j): lb (AoSoA SAL 256 TPB 256), milc and
#      the MPI tests (SoA), both with NCCL where make finds it (make
#      nccl-where says where);
#   1. the layer on the GPUs: the device communicator's sums (bitwise the
#      same on every rank, NCCL and the IPC kernel) and the latency of a
#      one-double sum (devcomm_check), the halo module bit for bit with the
#      transports nccl, ipc and put (halo_check, halo_sites);
#   1s. (part "sanitize", not in the default MG_PARTS) the paths that use
#      CUDA IPC and stream memory operations under compute-sanitizer memcheck
#      and racecheck on every rank: devcomm_check with the sums by flags,
#      halo_check and halo_sites with put, milc (put, sums by flags, the
#      interior share) and lb (the share) on a small lattice, each with the
#      sanitizer's error exit code; a sanitizer report is a failure;
#   2. lb correctness: the shear wave on 2 GPUs (2,1,1; 1,2,1; 1,1,2)
#      overlapped and queued (nccl), host-driven (ipc, staged), early fill
#      off, the step as before its last changes (--fill_pieces 1
#      --self_again 1 --one_boundary 0), sequential: each checkpoint
#      bitwise equal to 1 GPU's (lbcmp 0); more ranks than GPUs refused;
#      with 4 GPUs 4,1,1 and 2,2,1 as well;
#   3. milc correctness on 2 GPUs (1,1,1,2; 1,1,2,1): --cg ahead, fused,
#      merged, the old host sums, ipc, put (and put on 4, 1,1,2,2), put
#      with the sums by flags (2: ahead; 4, 1,1,2,2: merged): the
#      iterations of 1 GPU, the solution to 1e-12 (exact sums: 0 values
#      differ expected);
#   4. the issue's table in MG_REPS (3) interleaved rounds (each round runs
#      every point once, so a slow minute of the machine touches every
#      point alike), best and median per point, every run validated (lb:
#      mass to 1e-12; milc: both solves of the process converged in the
#      same iterations): lb weak 256^3 per GPU on 1 and 2 GPUs (2,1,1;
#      1,2,1), strong 512x256x256 on 1 and 2 GPUs; milc CG weak 24^4, 32^4,
#      48^4 per GPU on 1 and 2 GPUs (1,1,1,2; 24^4 also 1,1,2,1), --cg
#      ahead, each process a warm-up solve (NCCL's first collectives) and a
#      timed one; 4-GPU points with 4 GPUs; at 24^4 also the put halo
#      (2 GPUs 1,1,1,2; 4 GPUs 1,1,2,2). Round 1 runs here, rounds 2 to
#      MG_REPS after section 6 while the time guard allows (on 4 GPUs a
#      round takes ~2.5 min: three before sections 5 and 6 left them no
#      time); every round runs the points on all GPUs and the 1-GPU
#      baselines first, then the 2-GPU points of a 4-GPU machine;
#   5. where the time goes (device events): lb --breakdown on 1 GPU and on
#      2 (2,1,1 strong = weak; 1,2,1) and 4 (2,2,1 weak; 4,1,1 strong), and
#      the step as before its last changes on the levers' decomposition;
#      milc's breakdown row of every timed solve of section 4;
#   6. the levers one at a time, once each, on 2 GPUs (4 with 4: 2,2,1):
#      lb with ipc (the old transport), sequential, early fill off,
#      overlap forced, the step as before its last changes (old29) and
#      the early fill in one piece (pieces1); milc
#      merged with the put halo (first), put on 4 GPUs 1,1,1,4, put and
#      merged-put with the sums by stream-ordered flags
#      (TARGETDP_DEVSUM=flags), fused, sums through the host (--sums
#      host), ipc halo, NCCL off (TARGETDP_DEVCOMM=mpi), merged (and its
#      1-GPU baseline);
#   7. the models fitted to these rows, predicting 8 and 1024 GPUs
#      (apps/lb/lb_model.py, apps/milc/milc_model.py; plots), and the docs'
#      tables generated from the CSVs (scripts/plot_multigpu.py --markdown).
#
# A time guard starts nothing after MG_BUDGET seconds (default 480) and
# says so ("skip - ... time guard"; round 1 of the table starts nothing
# after MG_BUDGET - MG_RESERVE (120 s), kept for sections 5 and 6), and no
# run lasts past MG_HARD
# (MG_BUDGET + 60 s); the CSVs are rewritten after every round, so a run
# cut short still leaves what it measured. Output in $OUT
# (at most 8 files, for the device tool):
#   multigpu.log       everything, "ok - / not ok - / skip -" lines
#   scaling.csv        one row per point: app, point, device, commit,
#                      gpus, decomposition, sizes, variant, transport,
#                      reps, best, median, unit, efficiency, validation,
#                      config (build folder, NCCL)
#   lb_perf.csv        lb's summary rows, every run
#   lb_breakdown.csv   lb --breakdown rows
#   milc_breakdown.csv milc --breakdown rows (the timed solve of every run)
#   models.txt         the models' fits and predictions
#   tables.md          the docs' tables from these CSVs
#   raw.tar.gz         the logs of every run and the plots
# (and lb_device.log, the lb checks' lines, with MG_SMOKE=1 only)
# Parts: MG_PARTS names them (layer sanitize lb milc table breakdown levers model).
# Knobs: MG_BUDGET, MG_RESERVE, MG_REPS (3), MG_MILC_L ("24 32 48"), MG_TABLE ("lb milc": the
# apps of the table's rounds; "share": only the points the shares are compared on), MG_SHARES
# ("0.75": lb weak 2,2,1 and milc 24^4 runs with --interior_share, "" none),
# MG_PARTS (default "layer lb milc table
# breakdown levers model"), MG_COMMIT or BENCH_COMMIT (the commit to write in the rows;
# default git's, which on a copied tree may be stale), MG_SMOKE=1 (or
# LB_SMOKE=1): a CPU rehearsal -- the default C build, MG_NGPU (2) host
# ranks standing in for GPUs (mpirun --oversubscribe), tiny lattices, nccl
# forced (MPI stands in for NCCL on the host); tests/suites/lb_safety.sh
# runs it with MG_PARTS=lb.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
OUT=${OUT:-build/multigpu}
mkdir -p "$OUT"
SMOKE=${MG_SMOKE:-${LB_SMOKE:-0}}
BUDGET=${MG_BUDGET:-480}
HARD=${MG_HARD:-$((BUDGET + 60))} # every run killed by then: the call ends by ~MG_HARD + 20 s
REPS=${MG_REPS:-3}
RESERVE=${MG_RESERVE:-120} # s of MG_BUDGET that round 1 of the table leaves to sections 5 and 6
MG_PARTS=${MG_PARTS:-layer lb milc table breakdown levers model}
mg() { [[ " $MG_PARTS " == *" $1 "* ]]; }
export NCCL_NVLS_ENABLE=0 # the lending workplace's rule: no NVLink multicast
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TARGETDP_QUIET=1
T0=$(date +%s)
scratch=$(mktemp -d)
raw=$scratch/raw
mkdir -p "$raw"
# the whole run in one group piped to tee: the log is complete when the
# script returns (a process substitution could still be writing it)
{
elapsed() { echo $(($(date +%s) - T0)); }
# GUARD_LIMIT (round 1 of the table): MG_BUDGET less MG_RESERVE, the time
# kept for sections 5 and 6 after it
guard() { # guard WHAT: 0 while there is time; else a skip line
  local limit=${GUARD_LIMIT:-$BUDGET}
  if [ "$(elapsed)" -ge "$limit" ]; then
    echo "skip - $1: time guard ($(elapsed) s used of $limit s: MG_BUDGET=$BUDGET s$([ "$limit" != "$BUDGET" ] && echo ", less MG_RESERVE=$RESERVE s kept for sections 5 and 6"))"
    return 1
  fi
}

if [ "$SMOKE" = 1 ]; then
  ngpu=${MG_NGPU:-2}
  device=host
else
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ',')
fi
commit=${MG_COMMIT:-${BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}}
echo "== run_multigpu.sh: $(date -u +%FT%TZ), commit $commit (git: $(git rev-parse --short HEAD 2>/dev/null)), $(nproc) cores, $ngpu GPU(s) $device$([ "$SMOKE" = 1 ] && echo ', CPU rehearsal (MG_SMOKE=1): host ranks for GPUs, tiny lattices')"
if [ "$SMOKE" != 1 ]; then
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader
  nvidia-smi topo -m 2>&1 | head -n 8
  echo "nsys: $(command -v nsys || echo 'not on PATH: the breakdowns come from CUDA events')"
fi
mpirun --version | head -n 1
if [ "$ngpu" -lt 2 ]; then
  echo "not ok - this script needs 2 or more GPUs ($ngpu found): run it on nvidia-h100-x2"
  exit 1
fi
# the decompositions of the levers and breakdowns: the issue's 2-D ones
# where there are 4 GPUs, else the 2-GPU splits
if [ "$ngpu" -ge 4 ]; then NL=4; LD=2,2,1; MD=1,1,2,2; else NL=2; LD=2,1,1; MD=1,1,1,2; fi

# ---------------------------------------------------------------- 0. builds
if [ "$SMOKE" = 1 ]; then
  LBMK=()
  MIMK=()
else
  LBMK=(TARGET=cuda LAYOUT=AOSOA SAL=256 TPB=256)
  MIMK=(TARGET=cuda)
fi
jobs=$(($(nproc) > 8 ? $(nproc) / 2 : 2))
tb=$(date +%s)
LB=$(make -s "${LBMK[@]}" lb-build-dir)
MI=$(make -s "${MIMK[@]}" milc-build-dir)
want_lb=0
want_mi=0
for p in lb sanitize table breakdown levers; do mg $p && want_lb=1; done
for p in layer sanitize milc table levers; do mg $p && want_mi=1; done
p1=
p2=
[ "$want_lb" = 1 ] && { make -s -j"$jobs" "${LBMK[@]}" lb >"$raw/build-lb.log" 2>&1 & p1=$!; }
[ "$want_mi" = 1 ] && { make -s -j"$jobs" "${MIMK[@]}" milc tests-mpi >"$raw/build-milc.log" 2>&1 & p2=$!; }
if [ -n "$p1" ]; then
  if wait "$p1"; then echo "ok - build lb ($LB)"; else echo "not ok - build lb"; tail -n 20 "$raw/build-lb.log"; fi
fi
if [ -n "$p2" ]; then
  if wait "$p2"; then echo "ok - build milc and the MPI tests ($MI)"; else echo "not ok - build milc"; tail -n 20 "$raw/build-milc.log"; fi
fi
nccl=$(make -s "${LBMK[@]}" nccl-where)
echo "NCCL for the builds: $nccl"
echo "builds took $(($(date +%s) - tb)) s"
# the configuration column of the rows: build folder, NCCL or not
ncfg=$(case "$nccl" in none*) echo nonccl ;; *) echo nccl ;; esac)
LBCFG="$(basename "$LB") $ncfg"
MICFG="$(basename "$MI") $ncfg"

# run NP LIMIT LOG ENV... -- CMD...: one MPI job with the environment
# ENV (VAR=value ...), its output in LOG; its status
run() {
  local np=$1 limit=$2 lg=$3
  shift 3
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local opts=(--bind-to none)
  [ "$SMOKE" = 1 ] && opts=(--oversubscribe --bind-to none)
  # no run outlives MG_HARD (the device call's own limit is 600 s)
  local left=$((HARD - $(elapsed)))
  [ "$left" -lt "$limit" ] && limit=$left
  [ "$limit" -lt 5 ] && limit=5
  env ${envs[@]+"${envs[@]}"} OMP_NUM_THREADS=1 timeout -k 5 "$limit" mpirun "${opts[@]}" -np "$np" "$@" >"$lg" 2>&1
}
mrun() { # mrun NP LIMIT LOG CMD...: run with no environment
  local np=$1 limit=$2 lg=$3
  shift 3
  run "$np" "$limit" "$lg" -- "$@"
}
# In the rehearsal MPI stands in for NCCL only where forced; on the GPUs
# auto takes nccl where the build has it.
NCCLENV=(TARGETDP_HALO=auto)
[ "$SMOKE" = 1 ] && NCCLENV=(TARGETDP_HALO=nccl)
scale() { [ "$SMOKE" = 1 ] && echo $(($1 / 16)) || echo "$1"; } # lb extents
csv=$OUT/scaling.csv
lbperf=$OUT/lb_perf.csv
rm -f "$csv" "$lbperf" "$OUT/lb_breakdown.csv" "$OUT/milc_breakdown.csv" "$OUT/models.txt" "$OUT/tables.md"

# ---------------------------------------------------------------- 1. the layer
if mg layer && [ -x "$MI/tests/mpi/devcomm_check" ]; then
  echo
  echo "== 1. the device communicator and the halo module on the GPUs"
  T=$MI/tests/mpi
  # the sums by NCCL (TARGETDP_DEVSUM=ipc is refused since it gave wrong
  # sums on 2 H100s: apps/lb/results/h100x2-e0de452)
  # and by stream-ordered flags (TARGETDP_DEVSUM=flags, milc's lever)
  for spec in "$ngpu nccl" "$ngpu flags"; do
    set -- $spec
    guard "devcomm_check $2" || continue
    run "$1" 60 "$raw/devcomm-$1-$2.log" TARGETDP_DEVSUM=$2 -- "$T/devcomm_check" 200
    if grep -q "devcomm_check: PASS" "$raw/devcomm-$1-$2.log"; then
      echo "ok - $(grep 'devcomm_check: PASS' "$raw/devcomm-$1-$2.log" | sed 's/devcomm_check: PASS: //')"
      grep "sum of one double" "$raw/devcomm-$1-$2.log"
    else
      echo "not ok - devcomm_check on $1 ranks, TARGETDP_DEVSUM=$2"
      [ "$2" = flags ] && touch "$scratch/flags-bad" # no later run with the sums by flags
      tail -n 5 "$raw/devcomm-$1-$2.log"
    fi
  done
  hc() { # hc NAME NP ENV... -- ARGS: halo_check must pass
    local name=$1 np=$2
    shift 2
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    guard "halo_check $name" || return 0
    if run "$np" 60 "$raw/hc.log" "${envs[@]}" -- "$T/halo_check" "$@" && grep -q "halo_check: PASS" "$raw/hc.log"; then
      echo "ok - halo_check $name: $(grep -m1 'halo_check: PASS' "$raw/hc.log" | sed 's/halo_check: PASS: //')"
    else
      echo "not ok - halo_check $name"
      [[ "$name" == put* ]] && touch "$scratch/put-bad" # no later put run: it could hang till its timeout
      tail -n 5 "$raw/hc.log"
    fi
  }
  hc "nccl, 2 GPUs" 2 "${NCCLENV[@]}" -- 3 64x32x48 2x1x1 1 19 111
  hc "nccl, $ngpu GPUs, 4-D halo 2, closed x" "$ngpu" "${NCCLENV[@]}" -- 4 8x8x8x16 0x0x0x0 2 24 0111
  if [ "$ngpu" -ge 4 ]; then
    hc "nccl, 4 GPUs, caller's self_copy" 4 "${NCCLENV[@]}" HALO_CHECK_CUSTOM=4 -- 3 32x32x16 2x2x1 1 19 111
  else
    hc "nccl, 2 GPUs split y, caller's self_copy" 2 "${NCCLENV[@]}" HALO_CHECK_CUSTOM=4 -- 3 32x32x16 1x2x1 1 19 111
  fi
  [ "$SMOKE" = 1 ] || hc "ipc, 2 GPUs" 2 TARGETDP_HALO=ipc -- 3 64x32x48 2x1x1 1 19 111
  # put: the packs write into the neighbours' buffers, flags on the streams
  hc "put, $ngpu GPUs, 4-D halo 2, closed x" "$ngpu" TARGETDP_HALO=put -- 4 8x8x8x16 0x0x0x0 2 24 0111
  for r in "--float --parity 1 --dims 1,1,$((ngpu / 2)),2" "put --parity 0 --dims 1,1,$((ngpu / 2)),2"; do
    guard "halo_sites" || continue
    hsenv=("${NCCLENV[@]}")
    [ "${r%% *}" = put ] && { hsenv=(TARGETDP_HALO=put); r=${r#put }; }
    if run "$ngpu" 60 "$raw/hs.log" "${hsenv[@]}" -- "$T/halo_sites" $r &&
       grep -q "halo_sites: PASS" "$raw/hs.log"; then
      echo "ok - halo_sites $(grep -m1 'halo_sites: PASS' "$raw/hs.log" | sed 's/halo_sites: PASS: //')"
    else
      echo "not ok - halo_sites $r"
      [ "${hsenv[0]}" = TARGETDP_HALO=put ] && touch "$scratch/put-bad"
      tail -n 5 "$raw/hs.log"
    fi
  done
fi

# ---------------------------------------------------------------- 1s. sanitizer
# compute-sanitizer on every rank (its exit code 86 on any report); the
# checks' own PASS line is needed too
if mg sanitize; then
  echo
  echo "== 1s. IPC, stream flags and the interior share under compute-sanitizer"
  T=$MI/tests/mpi
  csan=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  san() { # san TOOL NAME PASS-PATTERN NP ENV... -- CMD ARGS
    local tool=$1 name=$2 pat=$3 np=$4
    shift 4
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    guard "$tool $name" || return 0
    local lg=$raw/san-$tool-${name//[^a-z0-9]/_}.log
    # the tool's own summary line of a clean rank
    local clean='ERROR SUMMARY: 0 errors'
    [ "$tool" = racecheck ] && clean='RACECHECK SUMMARY: 0 hazards'
    # NCCL's own reports are not ours: memcheck sees an API error inside its
    # set-up (cudaFuncGetAttributes: no kernel image) and racecheck a hazard
    # inside ncclDevKernel_SendRecv (4 x H100, eacae26). targetDP checks every
    # CUDA call's status itself, so API errors of its own still fail the run.
    local pre=("$csan" --tool "$tool" --error-exitcode 86)
    [ "$tool" = memcheck ] && pre+=(--report-api-errors no)
    [ "$tool" = racecheck ] && pre+=(--kernel-name-exclude kns=nccl)
    [ "$SMOKE" = 1 ] && pre=(env) # the rehearsal: no GPU, no sanitizer
    if run "$np" 150 "$lg" "${envs[@]}" -- "${pre[@]}" "$@" &&
       grep -q "$pat" "$lg" && ! grep -qE "(ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9])" "$lg" &&
       { [ "$SMOKE" = 1 ] || [ "$(grep -c "$clean" "$lg")" -ge "$np" ]; }; then
      echo "ok - $tool: $name ($(grep -c "$clean" "$lg") ranks with a clean summary)"
    else
      echo "not ok - $tool: $name"
      grep -m 5 -E "ERROR SUMMARY|Invalid|Race|error" "$lg"
      tail -n 3 "$lg"
    fi
  }
  for tool in memcheck racecheck; do
    san $tool "devcomm_check, sums by flags, $ngpu ranks" "devcomm_check: PASS" "$ngpu" TARGETDP_DEVSUM=flags -- "$T/devcomm_check" 5
    san $tool "halo_check put, $ngpu ranks, 4-D halo 2" "halo_check: PASS" "$ngpu" TARGETDP_HALO=put -- "$T/halo_check" 4 8x8x8x16 0x0x0x0 2 24 0111
    san $tool "halo_sites put, $ngpu ranks" "halo_sites: PASS" "$ngpu" TARGETDP_HALO=put -- "$T/halo_sites" --parity 0 --dims 1,1,$((ngpu / 2)),2
    san $tool "milc put, sums by flags, interior share 0.5, $ngpu ranks" "CG converged" "$ngpu" TARGETDP_HALO=put TARGETDP_DEVSUM=flags -- \
      "$MI/milc" --size 8,8,8,16 --decomposition 1,1,$((ngpu / 2)),2 --cg ahead --interior_share 0.5 --tol 1e-8 --print_every 0
    san $tool "lb overlapped, interior share 0.5, $ngpu ranks" "PASS" "$ngpu" "${NCCLENV[@]}" -- \
      "$LB/lb" --size $((16 * ngpu))x16x16 --case shearwave --steps 20 --overlap 1 --interior_share 0.5 --output "$scratch/san"
  done
fi

# ---------------------------------------------------------------- 2. lb correctness
# The shear wave varies along x (split): a wrong halo changes the fields.
sw=(--case shearwave --amplitude 0.01 --force 1e-7,0,0 --validate 0)
# the lb checks' lines: in $OUT for lb_safety.sh's rehearsal, else in
# raw.tar.gz (the device tool brings back 8 files; they are in the log too)
lb_device=$([ "$SMOKE" = 1 ] && echo "$OUT" || echo "$raw")/lb_device.log
: >"$lb_device"
if mg lb; then
  echo
  echo "== 2. lb on several GPUs: checkpoints bitwise equal to 1 GPU's"
  bn=$([ "$SMOKE" = 1 ] && echo 16 || echo 64)
  bsteps=$([ "$SMOKE" = 1 ] && echo 20 || echo 60)
  gb=$((2 * bn))
  bflow=(--params apps/lb/input/benchmark.params "${sw[@]}" --size ${gb}x${gb}x${gb} --steps "$bsteps"
         --print_every "$bsteps" --checkpoint_every "$bsteps" --triad 0)
  # bit NAME NP DECOMP ENV... -- ARGS...: a run, its checkpoint against 1 GPU's
  bit() {
    local name=$1 np=$2 dec=$3
    shift 3
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    [ "$np" -gt "$ngpu" ] && return 0
    guard "lb bitwise $name" || return 0
    if ! run "$np" 120 "$raw/lbbit-$name.log" ${envs[@]+"${envs[@]}"} -- \
        "$LB/lb" "${bflow[@]}" --decomposition "$dec" --output "$scratch/$name" "$@"; then
      echo "not ok - $name: ran" | tee -a "$lb_device"
      tail -n 5 "$raw/lbbit-$name.log"
      return 0
    fi
    grep -E "^# case|overlap (kept|off)" "$raw/lbbit-$name.log" | tee -a "$lb_device" >/dev/null
    local cmp_out
    if [ "$name" = ref ]; then
      echo "ok - ref: 1 GPU reference run" | tee -a "$lb_device"
    elif cmp_out=$("$LB/lbcmp" "$scratch/ref.chk" "$scratch/$name.chk" 0 2>&1); then
      echo "ok - $name: checkpoint bitwise equal to 1 rank's ($cmp_out; halo $(grep -o 'halo [a-z]*$' "$raw/lbbit-$name.log" | head -n 1 | cut -d' ' -f2))" | tee -a "$lb_device"
      # the printed observation (mass, max|u|, amplitude) too: the global
      # sums are exact and do not depend on the ranks (targetDP_exact.h)
      local a b
      a=$(grep '^step ' "$raw/lbbit-ref.log" | tail -n 1 | sed 's/ *MLUPS.*//')
      b=$(grep '^step ' "$raw/lbbit-$name.log" | tail -n 1 | sed 's/ *MLUPS.*//')
      if [ -n "$a" ] && [ "$a" = "$b" ]; then
        echo "ok - $name: printed observation equal to 1 rank's ($b)" | tee -a "$lb_device"
      else
        echo "not ok - $name: printed observation equal to 1 rank's: '$b' vs '$a'" | tee -a "$lb_device"
      fi
    else
      echo "not ok - $name: checkpoint bitwise equal to 1 rank's: $cmp_out" | tee -a "$lb_device"
    fi
  }
  bit ref 1 1,1,1 --
  bit two-queued 2 2,1,1 "${NCCLENV[@]}" -- --overlap 1
  bit two121-queued 2 1,2,1 "${NCCLENV[@]}" -- --overlap 1
  bit two112-queued 2 1,1,2 "${NCCLENV[@]}" -- --overlap 1
  bit two-early0 2 2,1,1 "${NCCLENV[@]}" -- --overlap 1 --early_fill 0
  # the step as before issue 29's last changes: the whole fill before the
  # sweep, the exchange copying the periodic faces again, a boundary launch
  # per face
  bit two121-old 2 1,2,1 "${NCCLENV[@]}" -- --overlap 1 --fill_pieces 1 --self_again 1 --one_boundary 0
  bit two-seq 2 2,1,1 "${NCCLENV[@]}" -- --overlap 0
  if [ "$SMOKE" = 1 ]; then
    bit two-direct 2 2,1,1 TARGETDP_HALO=direct -- --overlap 1
  else
    bit two-ipc 2 2,1,1 TARGETDP_HALO=ipc -- --overlap 1
    bit two-staged 2 2,1,1 TARGETDP_HALO=staged -- --overlap 1
  fi
  bit four-queued 4 4,1,1 "${NCCLENV[@]}" -- --overlap 1
  bit four221-queued 4 2,2,1 "${NCCLENV[@]}" -- --overlap 1
  bit four221-early0 4 2,2,1 "${NCCLENV[@]}" -- --overlap 1 --early_fill 0
  bit four221-pieces7 4 2,2,1 "${NCCLENV[@]}" -- --overlap 1 --fill_pieces 7
  bit four221-share 4 2,2,1 "${NCCLENV[@]}" -- --overlap 1 --interior_share 0.25
  [ "$SMOKE" = 1 ] || bit four221-ipc 4 2,2,1 TARGETDP_HALO=ipc -- --overlap 1
  # more ranks than GPUs: a clear error at start, no hang
  if [ "$SMOKE" = 1 ]; then
    echo "ok - more ranks than GPUs refused # SKIP CPU rehearsal: no GPU to count"
  elif ! guard "more ranks than GPUs"; then
    :
  # x = 12 (ranks): every rank count splits it, so the only error left is the GPUs'
  # (48^3 on 5 ranks was refused for its split, which hid the check: 4 x H100, afcb589)
  elif mrun $((ngpu + 1)) 60 "$raw/over.log" "$LB/lb" --size $((12 * (ngpu + 1)))x48x48 --steps 2 --output "$scratch/over"; then
    echo "not ok - $((ngpu + 1)) ranks on $ngpu GPUs: refused"
  elif grep -q "lb: error: halo exchange: .*GPU.*TARGETDP_OVERSUBSCRIBE=1" "$raw/over.log"; then
    echo "ok - $((ngpu + 1)) ranks on $ngpu GPUs refused: $(grep -o 'lb: error: .*' "$raw/over.log" | head -c 120)"
  else
    echo "not ok - $((ngpu + 1)) ranks on $ngpu GPUs: no clear error"
    tail -n 5 "$raw/over.log"
  fi
fi

# ---------------------------------------------------------------- 3. milc correctness
msolve=(--mass 0.5 --tol 1e-12 --seed 3 --print_every 0)
msize=$([ "$SMOKE" = 1 ] && echo 4,4,4,8 || echo 8,8,8,16)
if mg milc && guard "milc correctness"; then
  echo
  echo "== 3. milc on several GPUs: the 1-GPU solution (1e-12) in the same iterations"
  if mrun 1 120 "$raw/milc-ref.log" "$MI/milc" --size "$msize" "${msolve[@]}" --cg classic --save "$scratch/mref.bin"; then
    it1=$(grep -o 'iterations [0-9]*' "$raw/milc-ref.log" | head -n 1)
    echo "ok - milc 1 GPU reference: $it1"
    for spec in "2 1,1,1,2 ahead" "2 1,1,1,2 merged" "2 1,1,2,1 ahead" "2 1,1,1,2 fused" \
                "2 1,1,2,1 fused host" "2 1,1,1,2 ahead ipc" "4 1,1,1,4 merged" "4 1,1,2,2 ahead" \
                "2 1,1,1,2 ahead put" "2 1,1,1,2 merged put" "4 1,1,2,2 ahead put" \
                "2 1,1,1,2 ahead put-flags" "4 1,1,2,2 merged put-flags" "4 1,1,2,2 ahead put-share"; do
      set -- $spec
      [ "$1" -gt "$ngpu" ] && continue
      extra=()
      envs=("${NCCLENV[@]}")
      [ "${4:-}" = host ] && extra=(--sums host)
      [ "${4:-}" = ipc ] && { [ "$SMOKE" = 1 ] && continue; envs=(TARGETDP_HALO=ipc); }
      [ "${4:-}" = put-share ] && extra=(--interior_share 0.25) # a small grid striding far
      if [[ "${4:-}" == put* ]]; then
        [ -e "$scratch/put-bad" ] && { echo "skip - milc $1 GPUs ($2) --cg $3 (${4}): put failed before"; continue; }
        envs=(TARGETDP_HALO=put)
      fi
      if [ "${4:-}" = put-flags ]; then
        [ -e "$scratch/flags-bad" ] && { echo "skip - milc $1 GPUs ($2) --cg $3 (put-flags): the sums by flags failed before"; continue; }
        envs+=(TARGETDP_DEVSUM=flags)
      fi
      name="milc $1 GPUs ($2), --cg $3${4:+ ($4)}"
      guard "$name" || continue
      cmpm=
      if run "$1" 120 "$raw/milc-bit.log" "${envs[@]}" -- "$MI/milc" --size "$msize" "${msolve[@]}" \
           --decomposition "$2" --cg "$3" ${extra[@]+"${extra[@]}"} --save "$scratch/m.bin" &&
         cmpm=$("$MI/milccheck" --compare "$scratch/mref.bin" "$scratch/m.bin" 1e-12 2>&1) &&
         awk -v a="${it1#iterations }" -v b="$(grep -o 'iterations [0-9]*' "$raw/milc-bit.log" | head -n 1 | cut -d' ' -f2)" \
             -v tol="$([ "$3" = merged ] && echo 1 || echo 0)" 'BEGIN { exit !(b != "" && b - a <= tol && a - b <= tol) }'; then
        echo "ok - $name: $it1, $(echo "$cmpm" | tail -n 1 | cut -c1-80); $(grep '^# global sums' "$raw/milc-bit.log")"
      else
        echo "not ok - $name: $(grep -o 'iterations [0-9]*' "$raw/milc-bit.log" | head -n 1) (1 GPU: $it1) $(echo "${cmpm:-}" | tail -n 1)"
        [ "${4:-}" = put ] && touch "$scratch/put-bad"
        [ "${4:-}" = put-flags ] && touch "$scratch/flags-bad"
        tail -n 5 "$raw/milc-bit.log"
      fi
    done
  else
    echo "not ok - milc 1 GPU reference run"
    tail -n 5 "$raw/milc-ref.log"
  fi
fi

# ---------------------------------------------------------------- 4. the table
# Every point keeps its runs in $pt/KEY.vals (one time a line), what failed
# in KEY.bad, and its row's fields in KEY.meta; emit writes scaling.csv
# from them (after every round: a run cut short keeps what it measured).
pt=$scratch/points
mkdir -p "$pt"
: >"$pt/order"
# median and best of a list of numbers (one per line)
stats() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "- -"; exit }
                          m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print v[1], m }'; }
meta() { # meta KEY APP POINTS GPUS DECOMP GLOBAL LOCAL VARIANT TRANSPORT UNIT CONFIG
  local k=$1
  shift
  grep -qx "$k" "$pt/order" || echo "$k" >>"$pt/order"
  printf '%s\n' "$@" >"$pt/$k.meta"
}
emit() {
  local k app points gpus dec glob loc var tr unit cfg best med n valid p hid
  {
    echo "app,point,device,commit,gpus,decomp,global,local,variant,transport,reps,best,median,unit,eff_best,eff_median,valid,config,hidden_pct"
    while read -r k; do
      { read -r app; read -r points; read -r gpus; read -r dec; read -r glob; read -r loc
        read -r var; read -r tr; read -r unit; read -r cfg; } <"$pt/$k.meta"
      n=$(grep -c . "$pt/$k.vals" 2>/dev/null)
      read -r best med < <(grep . "$pt/$k.vals" 2>/dev/null | stats)
      valid=ok
      [ -s "$pt/$k.bad" ] && valid=$(sort -u "$pt/$k.bad" | tr '\n' ';' | sed 's/;$//')
      [ "${n:-0}" -gt 0 ] || valid="${valid/#ok/}no-run"
      read -r hid _ < <(grep . "$pt/$k.hid" 2>/dev/null | stats | awk '{ print $2 }')
      [ "$hid" = - ] && hid=
      for p in ${points//,/ }; do
        echo "$app,$p,$device,$commit,$gpus,$dec,$glob,$loc,$var,$tr,${n:-0},$best,$med,$unit,,,$valid,$cfg,$hid"
      done
    done <"$pt/order"
  } >"$scratch/rows.csv"
  # weak: t(1 GPU) / t(N); strong: t(1 GPU) / (N t(N)); against the 1-GPU
  # row of the same app, point and variant, else of the variant auto/ahead
  awk -F, -v OFS=, 'NR == 1 { print; next } { r[NR] = $0; a[NR] = $1; p[NR] = $2; g[NR] = $5; b[NR] = $12; m[NR] = $13; v[NR] = $9
                                              if ($5 == 1) { ob[$1 "/" $2 "/" $9] = $12; om[$1 "/" $2 "/" $9] = $13 }
                                              if ($5 == 1 && ($9 == "auto" || $9 == "ahead")) { ob[$1 "/" $2] = $12; om[$1 "/" $2] = $13 } }
       END { for (i = 2; i <= NR; i++) { split(r[i], f, ","); k = a[i] "/" p[i]
               if ((k "/" v[i]) in ob) k = k "/" v[i]
               if ((k in ob) && b[i] > 0 && m[i] > 0) {
                 s = p[i] == "strong" ? g[i] : 1
                 f[15] = sprintf("%.3f", ob[k] / (s * b[i])); f[16] = sprintf("%.3f", om[k] / (s * m[i])) }
               line = f[1]; for (j = 2; j <= 19; j++) line = line OFS f[j]; print line } }' \
      "$scratch/rows.csv" >"$scratch/eff.csv" && mv "$scratch/eff.csv" "$csv"
}
# Which points a pass of table_round runs (PASS): all; main, the 1-GPU
# baselines and the points on every GPU (with 4 GPUs: the 4-GPU points,
# 2,2,1 and 1,1,2,2 among them); rest, the others (2 GPUs of 4).
PASS=all
inpass() {
  case $PASS in
  main) [ "$1" -eq 1 ] || [ "$1" -eq "$ngpu" ] ;;
  rest) [ "$1" -ne 1 ] && [ "$1" -ne "$ngpu" ] ;;
  *) return 0 ;;
  esac
}
# lbpoint KEY POINTS NP DECOMP SIZE VARIANT ENV... -- ARGS...: one run of
# a point (POINTS: weak, strong, or weak,strong: one run, both rows)
lbpoint() {
  local key=$1 point=$2 np=$3 dec=$4 size=$5 var=$6
  shift 6
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  [ "$np" -gt "$ngpu" ] && return 0
  inpass "$np" || return 0
  guard "lb $point $size on $np GPU(s) ($dec) $var" || return 0
  local steps=$([ "$SMOKE" = 1 ] && echo 30 || echo 200) tri=$([ "$SMOKE" = 1 ] && echo 65536 || echo 67108864)
  local r=$(($(grep -c . "$pt/$key.vals" 2>/dev/null) + 1)) lg path="" a b c pa pb pc
  lg=$raw/lb-$key-$r.log
  IFS=x read -r a b c <<<"$size"
  IFS=, read -r pa pb pc <<<"$dec"
  if run "$np" 120 "$lg" "${envs[@]}" -- "$LB/lb" --params apps/lb/input/benchmark.params "${sw[@]}" \
       --size "$size" --decomposition "$dec" --steps "$steps" --print_every "$steps" --triad "$tri" \
       --output "$scratch/t" --summary "$lbperf" "$@"; then
    local last v
    last=$(grep '^step ' "$lg" | tail -n 1)
    if ! awk -v l="$last" 'BEGIN { match(l, /rel. change [-+0-9.e]+/); v = substr(l, RSTART + 12, RLENGTH - 12) + 0;
                                   exit !(RSTART > 0 && v <= 1e-12 && v >= -1e-12) }'; then
      echo "mass-not-conserved" >>"$pt/$key.bad"
    fi
    v=$(tail -n 1 "$lbperf" | awk -F, -v h="$(head -n 1 "$lbperf")" 'BEGIN { n = split(h, c, ",") } { for (i = 1; i <= n; i++) if (c[i] == "step_ms") print $i }')
    [ -n "$v" ] && echo "$v" >>"$pt/$key.vals"
    # the share of the halo the overlapped steps hid (lb's summary row)
    tail -n 1 "$lbperf" | awk -F, -v h="$(head -n 1 "$lbperf")" 'BEGIN { n = split(h, c, ",") }
      { for (i = 1; i <= n; i++) if (c[i] == "hidden_pct" && $i != "" && $i != "-") print $i }' >>"$pt/$key.hid"
    path=$(grep -o 'halo [a-z]*$' "$lg" | head -n 1 | cut -d' ' -f2)
    echo "  lb $point $size on $np GPU(s) ($dec, $var, halo ${path:-none}), run $r: step $v ms [$(grep -h 'overlap \(kept\|off\)' "$lg" | cut -c3-40 | head -n 1)]"
  else
    echo "run-failed" >>"$pt/$key.bad"
    echo "not ok - lb $point $size on $np GPU(s) ($dec, $var), run $r: failed"
    tail -n 5 "$lg"
  fi
  meta "$key" lb "$point" "$np" "${dec//,/x}" "$size" "$((a / pa))x$((b / pb))x$((c / pc))" "$var" "${path:-}" ms "$LBCFG"
}
# milcpoint KEY L NP DECOMP VARIANT ENV... -- ARGS...: one process, a
# warm-up solve and a timed one (the same iterations: validated), one run
milcpoint() {
  local key=$1 L=$2 np=$3 dec=$4 var=$5
  shift 5
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  [ "$np" -gt "$ngpu" ] && return 0
  inpass "$np" || return 0
  guard "milc ${L}^4 per GPU on $np GPU(s) ($dec) $var" || return 0
  local gx gy gz gt
  IFS=, read -r gx gy gz gt <<<"$dec"
  local size=$((L * gx)),$((L * gy)),$((L * gz)),$((L * gt))
  local cg=ahead
  { [ "$var" = fused ] || [ "$var" = host ]; } && cg=fused
  [[ "$var" == merged* ]] && cg=merged
  # 48^4 per GPU: the free field (unit links): the host's random SU(3)
  # links would take ~25 s per rank to make; an iteration's work does not
  # depend on the links' values
  local gauge=()
  { [ "$L" -ge 48 ] || { [ "$SMOKE" = 1 ] && [ "$L" -ge 8 ]; }; } && gauge=(--gauge unit)
  local r=$(($(grep -c . "$pt/$key.vals" 2>/dev/null) + 1)) lg bd=$scratch/milc-bd.csv
  lg=$raw/milc-$key-$r.log
  rm -f "$bd"
  if ! run "$np" 200 "$lg" "${envs[@]}" -- "$MI/milc" --size "$size" --decomposition "$dec" --mass 0.1 \
       --tol 1e-10 --maxiter 3000 --print_every 0 --runs "events:$cg,events:$cg" ${gauge[@]+"${gauge[@]}"} \
       --breakdown "$bd" "$@"; then
    echo "not-converged-or-failed" >>"$pt/$key.bad"
    [[ "$var" == *put ]] && touch "$scratch/put-bad" # the later put runs skipped
    [[ "$var" == *flags ]] && touch "$scratch/flags-bad"
    tail -n 3 "$lg"
  fi
  local its nsolve
  nsolve=$(grep -c '^CG converged' "$lg")
  its=$(grep '^CG converged' "$lg" | grep -o 'iterations [0-9]*' | sort -u | wc -l)
  { [ "$nsolve" = 2 ] && [ "$its" = 1 ]; } || echo "solves-differ-or-failed" >>"$pt/$key.bad"
  local v
  v=$(grep '^CG converged' "$lg" | tail -n 1 | sed 's/.*iterations \([0-9]*\),.* time \([0-9.e+-]*\) s.*/\1 \2/' |
      awk 'NF == 2 && $1 > 0 { printf "%.3f\n", 1e6 * $2 / $1 }')
  [ -n "$v" ] && echo "$v" >>"$pt/$key.vals"
  # the timed solve's breakdown row (the last), with the header once
  if [ -s "$bd" ]; then
    [ -s "$OUT/milc_breakdown.csv" ] || head -n 1 "$bd" >"$OUT/milc_breakdown.csv"
    tail -n 1 "$bd" >>"$OUT/milc_breakdown.csv"
  fi
  local path
  path=$(grep -m1 '^# global sums' "$lg" | sed -n 's/.*halo transport: \([a-z()]*\).*/\1/p')
  echo "  milc ${L}^4 per GPU on $np GPU(s) ($dec, $var), run $r: ${v:-?} us/iteration ($(grep '^CG converged' "$lg" | tail -n 1 | grep -o 'iterations [0-9]*'); $(grep -m1 '^# global sums' "$lg" | cut -c3-))"
  meta "$key" milc "weak$L" "$np" "${dec//,/x}" "${size//,/x}" "${L}x${L}x${L}x${L}" "$var" "${path:-}" us/iteration "$MICFG"
}
# summary of the points of KEYS: ok / not ok lines
verdict() {
  local k v n best med
  for k in "$@"; do
    [ -f "$pt/$k.meta" ] || continue
    n=$(grep -c . "$pt/$k.vals" 2>/dev/null)
    read -r best med < <(grep . "$pt/$k.vals" 2>/dev/null | stats)
    if [ -s "$pt/$k.bad" ] || [ "${n:-0}" = 0 ]; then v="not ok"; else v=ok; fi
    echo "$v - $k: best $best, median $med $(sed -n 9p "$pt/$k.meta") (of ${n:-0} runs)$([ -s "$pt/$k.bad" ] && echo " INVALID: $(sort -u "$pt/$k.bad" | tr '\n' ' ')")"
  done
}
lbn=$(scale 256)
lbs=$(scale 512)x$(scale 256)x$(scale 256)
MLS=${MG_MILC_L:-$([ "$SMOKE" = 1 ] && echo "4 6 8" || echo "24 32 48")} # MG_MILC_L: the milc L^4 sizes per GPU
ML0=${MLS%% *}
MG_TABLE=${MG_TABLE:-lb milc} # MG_TABLE: the apps whose points the table's rounds run
# MG_SHARES: milc's --interior_share values (targetStreamSetShare on D's
# interior stream) run beside put at 24^4 in every round ("": none)
MG_SHARES=${MG_SHARES-0.75}
table_round() {
  [[ " $MG_TABLE " == *" lb "* ]] && table_round_lb
  [[ " $MG_TABLE " == *" milc "* ]] && table_round_milc
  [[ " $MG_TABLE " == *" share "* ]] && table_round_share
  return 0
}
# MG_TABLE=share: only the points the shares are compared on (lb weak
# 2,2,1 and milc 24^4 with put and nccl), each beside its baselines
table_round_share() {
  local s L=$ML0
  lbpoint lb-weak-1 weak 1 1,1,1 ${lbn}x${lbn}x${lbn} auto "${NCCLENV[@]}" --
  lbpoint lb-weak-4-221 weak 4 2,2,1 $((2 * lbn))x$((2 * lbn))x${lbn} auto "${NCCLENV[@]}" --
  for s in $MG_SHARES; do
    lbpoint lb-weak-4-221-s$s weak 4 2,2,1 $((2 * lbn))x$((2 * lbn))x${lbn} share$s "${NCCLENV[@]}" -- --interior_share "$s"
  done
  milcpoint milc-$L-1 "$L" 1 1,1,1,1 ahead "${NCCLENV[@]}" --
  milcpoint milc-$L-4-1122 "$L" 4 1,1,2,2 ahead "${NCCLENV[@]}" --
  milcpoint milc-$L-2-1112-put "$L" 2 1,1,1,2 put TARGETDP_HALO=put --
  milcpoint milc-$L-4-1122-put "$L" 4 1,1,2,2 put TARGETDP_HALO=put --
  table_round_shares "$L"
}
table_round_shares() { # the interior sweep leaving room for the exchange's kernels
  local s L=$1
  for s in $MG_SHARES; do
    milcpoint milc-$L-2-1112-put-s$s "$L" 2 1,1,1,2 put-share$s TARGETDP_HALO=put -- --interior_share "$s"
    milcpoint milc-$L-4-1122-put-s$s "$L" 4 1,1,2,2 put-share$s TARGETDP_HALO=put -- --interior_share "$s"
    milcpoint milc-$L-4-1122-s$s "$L" 4 1,1,2,2 share$s "${NCCLENV[@]}" -- --interior_share "$s"
    if [[ " $MG_TABLE " == *" share "* ]]; then # the rest of the 24^4 splits, and one sum an iteration
      milcpoint milc-$L-4-1114-put-s$s "$L" 4 1,1,1,4 put-share$s TARGETDP_HALO=put -- --interior_share "$s"
      milcpoint milc-$L-4-1122-merged-put-s$s "$L" 4 1,1,2,2 merged-put-share$s TARGETDP_HALO=put -- --interior_share "$s"
    fi
  done
}
table_round_lb() {
  # lb weak, 256^3 per GPU; strong 512x256x256 (the 2-GPU 2,1,1 point is both)
  lbpoint lb-weak-1 weak 1 1,1,1 ${lbn}x${lbn}x${lbn} auto "${NCCLENV[@]}" --
  lbpoint lb-strong-1 strong 1 1,1,1 "$lbs" auto "${NCCLENV[@]}" --
  lbpoint lb-2-211 weak,strong 2 2,1,1 "$lbs" auto "${NCCLENV[@]}" --
  lbpoint lb-weak-2-121 weak 2 1,2,1 ${lbn}x$((2 * lbn))x${lbn} auto "${NCCLENV[@]}" --
  lbpoint lb-strong-2-121 strong 2 1,2,1 "$lbs" auto "${NCCLENV[@]}" --
  lbpoint lb-weak-4-411 weak 4 4,1,1 $((4 * lbn))x${lbn}x${lbn} auto "${NCCLENV[@]}" --
  lbpoint lb-weak-4-221 weak 4 2,2,1 $((2 * lbn))x$((2 * lbn))x${lbn} auto "${NCCLENV[@]}" --
  lbpoint lb-strong-4-411 strong 4 4,1,1 "$lbs" auto "${NCCLENV[@]}" --
  lbpoint lb-strong-4-221 strong 4 2,2,1 "$lbs" auto "${NCCLENV[@]}" --
  local s
  for s in $MG_SHARES; do
    lbpoint lb-weak-4-221-s$s weak 4 2,2,1 $((2 * lbn))x$((2 * lbn))x${lbn} share$s "${NCCLENV[@]}" -- --interior_share "$s"
  done
}
table_round_milc() {
  # milc CG weak, 24^4, 32^4, 48^4 per GPU
  local L
  for L in $MLS; do
    milcpoint milc-$L-1 "$L" 1 1,1,1,1 ahead "${NCCLENV[@]}" --
    milcpoint milc-$L-2-1112 "$L" 2 1,1,1,2 ahead "${NCCLENV[@]}" --
    [ "$L" = "$ML0" ] && milcpoint milc-$L-2-1121 "$L" 2 1,1,2,1 ahead "${NCCLENV[@]}" --
    milcpoint milc-$L-4-1114 "$L" 4 1,1,1,4 ahead "${NCCLENV[@]}" --
    milcpoint milc-$L-4-1122 "$L" 4 1,1,2,2 ahead "${NCCLENV[@]}" --
    # the put halo (packs into the neighbours' buffers, stream flags;
    # docs/milc.md, "Where the exchange's time went") beside it, 24^4
    if [ "$L" = "$ML0" ] && [ ! -e "$scratch/put-bad" ]; then
      milcpoint milc-$L-2-1112-put "$L" 2 1,1,1,2 put TARGETDP_HALO=put --
      milcpoint milc-$L-4-1122-put "$L" 4 1,1,2,2 put TARGETDP_HALO=put --
      table_round_shares "$L"
    fi
  done
}
# Round 1 of the table here; sections 5 and 6 next, then rounds 2 to
# MG_REPS while the time guard allows: on 4 GPUs a round (22 points) takes
# about 2.5 minutes, and three rounds before the breakdowns and levers left
# no time for them. Each round runs the points on every GPU and the 1-GPU
# baselines first (PASS main), the 2-GPU points of a 4-GPU machine after
# (PASS rest): a round the guard cuts short has the 4-GPU points.
table_rounds() { # table_rounds FROM TO
  local round
  for round in $(seq "$1" "$2"); do
    guard "rounds $round to $REPS of the table" || break
    echo "-- round $round ($(elapsed) s)"
    PASS=main table_round
    PASS=rest table_round
    emit
  done
}
if mg table; then
  echo
  echo "== 4. the issue's table: $REPS interleaved rounds, best and median (round 1 now; rounds 2 to $REPS after sections 5 and 6)"
  GUARD_LIMIT=$((BUDGET - RESERVE)) table_rounds 1 1
  verdict $(cat "$pt/order")
fi

# ---------------------------------------------------------------- 5. breakdowns
if mg breakdown; then
  echo
  echo "== 5. where the time of a step goes (device events)"
  bdrun() { # bdrun NAME NP DECOMP SIZE ARGS...
    local name=$1 np=$2 dec=$3 size=$4
    shift 4
    [ "$np" -gt "$ngpu" ] && return 0
    guard "lb breakdown $name" || return 0
    if run "$np" 120 "$raw/lb-breakdown-$name.log" "${NCCLENV[@]}" -- "$LB/lb" \
         --params apps/lb/input/benchmark.params "${sw[@]}" --size "$size" --decomposition "$dec" \
         --steps $([ "$SMOKE" = 1 ] && echo 30 || echo 200) --print_every 0 --triad 0 \
         --output "$scratch/bd" --breakdown "$OUT/lb_breakdown.csv" --summary "$scratch/bd-sum.csv" "$@"; then
      echo "ok - lb breakdown $name ($np GPU(s), $dec, $size)"
      grep -E "^# (breakdown|overlapped step|halo |update |step )" "$raw/lb-breakdown-$name.log"
    else
      echo "not ok - lb breakdown $name"
      tail -n 5 "$raw/lb-breakdown-$name.log"
    fi
  }
  bdrun one-queued 1 1,1,1 ${lbn}x${lbn}x${lbn} --overlap 1
  bdrun two211 2 2,1,1 "$lbs" --overlap 1
  bdrun two121 2 1,2,1 "$lbs" --overlap 1
  bdrun weak221 4 2,2,1 $((2 * lbn))x$((2 * lbn))x${lbn} --overlap 1
  bdrun strong411 4 4,1,1 "$lbs" --overlap 1
  # the step as before issue 29's last changes, beside the default, on the
  # decomposition of the levers: where each part of the step went
  bdrun old$NL-${LD//,/} "$NL" "$LD" "$([ "$NL" = 4 ] && echo $((2 * lbn))x$((2 * lbn))x${lbn} || echo "$lbs")" \
    --overlap 1 --fill_pieces 1 --self_again 1 --one_boundary 0
  echo "milc: the timed solve of every run of section 4 in milc_breakdown.csv; per iteration (us):"
  [ -f "$OUT/milc_breakdown.csv" ] && column -s, -t <"$OUT/milc_breakdown.csv" | cut -c1-230 | head -n 40
fi

# ---------------------------------------------------------------- 6. levers
if mg levers; then
  echo
  echo "== 6. one lever at a time (one run each; $NL GPUs)"
  lw=$([ "$NL" = 4 ] && echo $((2 * lbn))x$((2 * lbn))x${lbn} || echo "$lbs")
  lpt=$([ "$NL" = 4 ] && echo weak || echo weak,strong)
  if [ "$SMOKE" = 1 ]; then
    lbpoint lever-lb-direct "$lpt" "$NL" "$LD" "$lw" direct TARGETDP_HALO=direct -- --overlap 1
  else
    lbpoint lever-lb-ipc "$lpt" "$NL" "$LD" "$lw" ipc TARGETDP_HALO=ipc --
  fi
  lbpoint lever-lb-seq "$lpt" "$NL" "$LD" "$lw" seq "${NCCLENV[@]}" -- --overlap 0
  lbpoint lever-lb-early0 "$lpt" "$NL" "$LD" "$lw" ovl-early0 "${NCCLENV[@]}" -- --overlap 1 --early_fill 0
  lbpoint lever-lb-ovl "$lpt" "$NL" "$LD" "$lw" ovl "${NCCLENV[@]}" -- --overlap 1
  # issue 29's last changes to the overlapped step, all off (the step as
  # before: the whole fill before the sweep, the periodic faces copied
  # again in the exchange, a boundary launch per face), and the fill in one
  # piece only (the other two on)
  lbpoint lever-lb-old29 "$lpt" "$NL" "$LD" "$lw" ovl-old29 "${NCCLENV[@]}" -- --overlap 1 --fill_pieces 1 --self_again 1 --one_boundary 0
  lbpoint lever-lb-pieces1 "$lpt" "$NL" "$LD" "$lw" ovl-pieces1 "${NCCLENV[@]}" -- --overlap 1 --fill_pieces 1
  L=$ML0
  # the put halo is in the table's rounds (section 4); here with merged,
  # and with the sums by flags (TARGETDP_DEVSUM=flags) too
  if [ ! -e "$scratch/put-bad" ]; then
    milcpoint lever-milc-merged-put "$L" "$NL" "$MD" merged-put TARGETDP_HALO=put --
    milcpoint lever-milc-put-1114 "$L" 4 1,1,1,4 put TARGETDP_HALO=put --
    if [ ! -e "$scratch/flags-bad" ]; then
      milcpoint lever-milc-put-flags "$L" "$NL" "$MD" put-flags TARGETDP_HALO=put TARGETDP_DEVSUM=flags --
      milcpoint lever-milc-merged-put-flags "$L" "$NL" "$MD" merged-put-flags TARGETDP_HALO=put TARGETDP_DEVSUM=flags --
    fi
  fi
  milcpoint lever-milc-fused "$L" "$NL" "$MD" fused "${NCCLENV[@]}" --
  milcpoint lever-milc-host "$L" "$NL" "$MD" host "${NCCLENV[@]}" -- --sums host
  [ "$SMOKE" = 1 ] || milcpoint lever-milc-ipc "$L" "$NL" "$MD" ipc TARGETDP_HALO=ipc --
  milcpoint lever-milc-devcomm-mpi "$L" "$NL" "$MD" devcomm-mpi TARGETDP_DEVCOMM=mpi TARGETDP_HALO=auto --
  # one global sum an iteration (--cg merged), its own 1-GPU baseline
  milcpoint lever-milc-merged-1 "$L" 1 1,1,1,1 merged "${NCCLENV[@]}" --
  milcpoint lever-milc-merged "$L" "$NL" "$MD" merged "${NCCLENV[@]}" --
  emit
  verdict $(grep '^lever-' "$pt/order")
fi

if mg table && [ "$REPS" -gt 1 ]; then
  echo
  echo "== 4 (continued). rounds 2 to $REPS of the table, while the time guard allows"
  table_rounds 2 "$REPS"
  verdict $(grep -v '^lever-' "$pt/order")
fi

echo
echo "== the table (scaling.csv; efficiency against 1 GPU, the goals)"
if [ -s "$csv" ]; then
  python3 scripts/plot_multigpu.py "$csv" "$raw/scaling.png" 2>&1 || column -s, -t <"$csv" | cut -c1-250
fi

# ---------------------------------------------------------------- 7. models
if mg model; then
  echo
  echo "== 7. models: fitted to these rows, 8 and 1024 GPUs predicted"
  {
    [ -s "$lbperf" ] && python3 apps/lb/lb_model.py "$lbperf" --plot "$raw" 2>&1
    [ -s "$OUT/milc_breakdown.csv" ] && python3 apps/milc/milc_model.py "$OUT/milc_breakdown.csv" --plot "$raw" 2>&1
  } | tee "$OUT/models.txt" || echo "not ok - models"
fi
# the docs' tables (docs/lb.md, docs/milc.md) from the CSVs of this run
[ -s "$csv" ] && python3 scripts/plot_multigpu.py --markdown "$OUT" >"$OUT/tables.md" 2>&1 &&
  echo "tables for the docs: tables.md (python3 scripts/plot_multigpu.py --markdown OUT)"

tar -czf "$OUT/raw.tar.gz" -C "$scratch" raw 2>/dev/null
nout=$(find "$OUT" -maxdepth 1 -type f | wc -l)
[ "$SMOKE" = 1 ] || [ "$nout" -le 8 ] || echo "not ok - $nout files in OUT: the device tool brings back 8"
echo
echo "== done in $(elapsed) s (MG_BUDGET $BUDGET s); $(grep -c '^ok -' "$OUT/multigpu.log") ok, $(grep -c '^not ok -' "$OUT/multigpu.log") not ok, $(grep -c '^skip -' "$OUT/multigpu.log") skipped"
} 2>&1 | tee "$OUT/multigpu.log"
rc=${PIPESTATUS[0]}
rm -rf "$scratch"
exit "$rc"
