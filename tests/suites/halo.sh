#!/usr/bin/env bash
# Suite: halo (docs/halo.md) -- targetDP_halo against a reference exchange,
# bit for bit (tests/mpi/halo_check.c): 1 to 8 ranks on the host, every
# ordered decomposition of 8 into 3 factors, 4-D lattices, halo depths 1-3,
# 1 to 24 components, periodic and closed axes, both host transports
# (direct: target buffers to MPI; staged: through pinned buffers), in the
# default build and in a checked SoA build. Bad input (a decomposition
# that does not divide the lattice, a halo deeper than a sub-domain, an
# unavailable or unknown forced transport): one clear message from every
# rank, non-zero status, no hang. Site-list faces (halo_sites.c): one
# parity or both, double or float, 1 to 8 ranks, both transports.
# Ranks that disagree on the configuration (tests/mpi/halo_misuse.c): one
# message from every rank at targetHaloCreate; a freed halo refused.
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
  echo "ok - halo suite # SKIP no MPI (scripts/install_deps.sh installs openmpi-bin libopenmpi-dev)"
  exit 0
fi

configs=("" "LAYOUT=SOA VVL=1 CHECK=1")
bins=()
for c in "${configs[@]}"; do
  b=$(make -s $c tests-print-build)/tests/mpi/halo_check
  if make -j2 $c tests-mpi >"$tmp/build.log" 2>&1 && ! grep -q "warning:" "$tmp/build.log"; then
    ok "halo_check builds warning-free (${c:-default configuration})"
    bins+=("$b")
  else
    notok "halo_check builds warning-free (${c:-default configuration})" "$tmp/build.log"
  fi
done

# run NAME NP ARGS...: must print PASS and exit 0 within 60 s.
run() {
  local name=$1 np=$2 log=$tmp/run.log
  shift 2
  timeout -k 5 60 mpirun --oversubscribe -np "$np" "$bin" "$@" >"$log" 2>&1
  local rc=$?
  if [ "$rc" -eq 0 ] && grep -q "halo_check: PASS" "$log"; then
    ok "$name: $(grep -m1 'halo_check: PASS' "$log" | sed 's/halo_check: PASS: //')"
  else
    notok "$name (status $rc)" "$log"
  fi
}

# bad NAME NP PATTERN ARGS...: every rank prints PATTERN, the job ends non-zero, no hang.
bad() {
  local name=$1 np=$2 pattern=$3 log=$tmp/bad.log
  shift 3
  timeout -k 5 60 mpirun --oversubscribe -np "$np" "$bin" "$@" >"$log" 2>&1
  local rc=$? n
  n=$(grep -c -- "$pattern" "$log")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    notok "$name: the job hung" "$log"
  elif [ "$rc" -eq 0 ]; then
    notok "$name: exited 0" "$log"
  elif [ "$n" -ne "$np" ]; then
    notok "$name: '$pattern' from $n of $np ranks" "$log"
  else
    ok "$name: every rank says: $(grep -m1 -- "$pattern" "$log" | sed 's/.*targetHaloCreate: //' | head -c 120)"
  fi
}

for bin in "${bins[@]}"; do
  cfg=$(basename "$(dirname "$(dirname "$(dirname "$bin")")")")
  # nccl: on the host the device communicator's MPI path stands in for
  # NCCL (targetDP_devcomm), so this runs the transport's own code: every
  # phase queued, faces of an axis of two ranks matched in order
  for transport in direct staged nccl put; do
    export TARGETDP_HALO=$transport
    # 1 to 7 ranks, the module choosing the split; lattices it can divide
    run "$cfg $transport: 1 rank, periodic, halo 2" 1 3 6x7x5 0x0x0 2 3 111
    run "$cfg $transport: 2 ranks, closed x" 2 3 8x6x4 0x0x0 1 19 011
    run "$cfg $transport: 3 ranks, halo 3" 3 3 9x9x9 0x0x0 3 2 111
    run "$cfg $transport: 4 ranks" 4 3 8x8x6 0x0x0 1 5 101
    run "$cfg $transport: 5 ranks" 5 3 10x4x6 0x0x0 2 1 111
    run "$cfg $transport: 6 ranks" 6 3 6x6x6 0x0x0 1 7 111
    run "$cfg $transport: 7 ranks" 7 3 7x7x4 0x0x0 1 3 110
    # every ordered factorisation of 8 into 3
    for d in 1x1x8 1x8x1 8x1x1 1x2x4 1x4x2 2x1x4 2x4x1 4x1x2 4x2x1 2x2x2; do
      IFS=x read -r a b c <<<"$d"
      run "$cfg $transport: 8 ranks as $d" 8 3 "$((a * 3))x$((b * 4))x$((c * 2))" "$d" 1 19 111
    done
    run "$cfg $transport: 8 ranks 2x2x2, halo 2, closed z" 8 3 8x8x8 2x2x2 2 4 110
    # 4-D
    run "$cfg $transport: 4-D, 2 ranks" 2 4 4x6x4x6 0x0x0x0 1 24 1111
    run "$cfg $transport: 4-D, 8 ranks 2x1x2x2, halo 2" 8 4 4x6x8x6 2x1x2x2 2 24 1011
    run "$cfg $transport: 4-D, 8 ranks 1x2x2x2" 8 4 3x4x4x4 1x2x2x2 1 6 1111
    # the caller's pack/unpack (targetHaloConfig.pack): a padded field, a
    # different subset of the components through each face (lb's case)
    export HALO_CHECK_CUSTOM=1
    run "$cfg $transport: caller's pack, 1 rank" 1 3 6x7x5 0x0x0 1 19 111
    run "$cfg $transport: caller's pack, 2 ranks, closed x" 2 3 8x6x4 0x0x0 1 19 011
    run "$cfg $transport: caller's pack, 8 ranks 2x2x2" 8 3 6x8x4 2x2x2 1 19 111
    run "$cfg $transport: caller's pack, 4-D, 4 ranks, halo 2" 4 4 4x6x4x8 1x2x1x2 2 5 1011
    # with the caller's self_copy: the axes a rank holds alone are copied in
    # place, also beside axes split over ranks (checked: called for those
    # axes, and only those)
    export HALO_CHECK_CUSTOM=4
    run "$cfg $transport: caller's self_copy, 1 rank" 1 3 6x7x5 0x0x0 1 19 111
    run "$cfg $transport: caller's self_copy, 2 ranks 2x1x1" 2 3 8x6x4 2x1x1 1 19 111
    run "$cfg $transport: caller's self_copy, 2 ranks 1x2x1, closed z" 2 3 6x8x4 1x2x1 1 19 110
    run "$cfg $transport: caller's self_copy, 4-D, 4 ranks 1x2x1x2, halo 2" 4 4 4x6x4x8 1x2x1x2 2 5 1011
    unset HALO_CHECK_CUSTOM
  done
  unset TARGETDP_HALO
  bad "$cfg: grid not divisible" 3 "does not divide evenly" 3 10x10x10 3x1x1 1 19 111
  bad "$cfg: decomposition does not match the rank count" 4 "cannot be made from 4 MPI ranks" 3 8x8x8 3x1x1 1 1 111
  bad "$cfg: halo deeper than a sub-domain" 4 "deeper than the sub-domain" 3 8x8x8 4x1x1 3 1 111
  TARGETDP_HALO=ipc bad "$cfg: forced IPC on the host" 3 "TARGETDP_HALO=ipc" 3 12x8x10 0x0x0 1 19 111
  TARGETDP_HALO=foo bad "$cfg: unknown transport" 2 "TARGETDP_HALO=foo" 3 8x8x8 0x0x0 1 1 111
  HALO_CHECK_CUSTOM=2 bad "$cfg: caller's pack without unpack" 2 ".pack is set but .unpack is not" 3 8x8x8 0x0x0 1 3 111
  HALO_CHECK_CUSTOM=3 bad "$cfg: caller's face of 0 doubles" 3 "face_doubles\[2\] is 0" 3 12x8x10 0x0x0 1 3 111

  # Site-list faces (targetHaloSites; tests/mpi/halo_sites.c): one parity
  # or both of a 4-D lattice, double or float values, against the periodic
  # images exactly, edges/corners/other parity untouched.
  sites=$(dirname "$bin")/halo_sites
  for transport in direct staged nccl put; do
    for r in "1 --parity 0" "2 --float --parity 1" "4 --dims 1,2,1,2 --parity 0" \
             "4 --float --parity -1 --ncomp 3" "8 --dims 2,2,1,2 --ncomp 72"; do
      set -- $r
      np=$1
      shift
      log=$tmp/sites.log
      TARGETDP_HALO=$transport OMP_NUM_THREADS=1 timeout -k 5 60 mpirun --oversubscribe -np "$np" \
        "$sites" "$@" >"$log" 2>&1
      rc=$?
      if [ "$rc" -eq 0 ] && grep -q "halo_sites: PASS" "$log"; then
        ok "$cfg $transport: site lists, $(grep -m1 'halo_sites: PASS' "$log" | sed 's/halo_sites: PASS: //')"
      else
        notok "$cfg $transport: site lists, $np ranks $* (status $rc)" "$log"
      fi
    done
  done
  bin=$sites bad "$cfg: site lists of unequal faces" 2 "must have the same number" --bad

  # The device communicator (targetDP_devcomm, tests/mpi/devcomm_check.c):
  # sums of doubles and 64-bit integers, messages matched in order, a
  # congruent communicator shared; bad TARGETDP_DEVCOMM, and NCCL forced
  # where there is none, refused on every rank.
  # TARGETDP_DEVSUM=flags: the sums by stream-ordered flags through a
  # shared window (without the wait for the peers' flags the sums were seen
  # to come out wrong, and the set-up's test sum to refuse).
  dcb=$(dirname "$bin")/devcomm_check
  for ds in nccl flags; do
    for np in 1 2 3 4; do
      log=$tmp/dc.log
      TARGETDP_DEVSUM=$ds OMP_NUM_THREADS=1 timeout -k 5 60 mpirun --oversubscribe -np "$np" "$dcb" >"$log" 2>&1
      rc=$?
      if [ "$rc" -eq 0 ] && grep -q "devcomm_check: PASS" "$log" &&
         { [ "$ds" = nccl ] || [ "$np" = 1 ] || grep -q "sums by flags" "$log"; }; then
        ok "$cfg devcomm (TARGETDP_DEVSUM=$ds): $(grep -m1 'devcomm_check: PASS' "$log" | sed 's/devcomm_check: PASS: //')"
      else
        notok "$cfg devcomm: $np ranks, TARGETDP_DEVSUM=$ds (status $rc)" "$log"
      fi
    done
  done
  bin=$dcb TARGETDP_DEVSUM=foo bad "$cfg: unknown TARGETDP_DEVSUM" 2 "TARGETDP_DEVSUM=foo: must be nccl or flags"
  bin=$dcb TARGETDP_DEVCOMM=foo bad "$cfg: unknown TARGETDP_DEVCOMM" 2 "TARGETDP_DEVCOMM=foo: must be auto, mpi or nccl"
  bin=$dcb TARGETDP_DEVCOMM=nccl bad "$cfg: NCCL forced on the host" 3 "TARGETDP_DEVCOMM=nccl: NCCL is not available: C backend"
  TARGETDP_HALO=nccl TARGETDP_DEVCOMM=foo bad "$cfg: halo nccl with an unknown TARGETDP_DEVCOMM" 2 "TARGETDP_DEVCOMM=foo" 3 8x8x8 0x0x0 1 1 111
  # Ranks that disagree (issue 25 item 6; tests/mpi/halo_misuse.c): rank 1
  # differs in one field, every rank must refuse at targetHaloCreate with
  # one message naming it. On main: extents exchanged wrong values (rc 0),
  # periodic hung, ncomp and nhalo aborted inside MPI without a word.
  mis=$(dirname "$bin")/halo_misuse
  for m in extents ncomp nhalo periodic dims ndim type pack; do
    bin=$mis bad "$cfg: ranks disagree on $m" 2 "the ranks disagree on" "$m"
  done
  bin=$mis bad "$cfg: ranks disagree on nhalo, 3 ranks" 3 "the ranks disagree on the halo depth" nhalo
  log=$tmp/mis.log
  if timeout -k 5 60 mpirun --oversubscribe -np 2 "$mis" none >"$log" 2>&1 &&
     grep -q "halo_misuse: none: exchange rc 0" "$log"; then
    ok "$cfg: ranks that agree: created and exchanged (the control)"
  else
    notok "$cfg: ranks that agree: created and exchanged (the control)" "$log"
  fi
  # A freed halo (checked handles, as streams and events): every call on it
  # stops with file:line (main used the freed memory).
  for m in freed freed-wait freed-info freed-free; do
    call=targetHaloExchange
    case $m in freed-wait) call=targetHaloWait ;; freed-info) call=targetHaloGetInfo ;;
                freed-free) call=targetHaloFree ;; esac
    bin=$mis bad "$cfg: $call after targetHaloFree" 2 \
      "targetDP: $call failed at tests/mpi/halo_misuse.c:[0-9]*: .*not a live halo" "$m"
  done
done
# The device communicator under nvcc with and without NCCL (issue 29): the
# build finds NCCL (make nccl-where) or is told not to (NCCL=0), and both
# compile warning-free; without it the object calls no NCCL function (the
# MPI path: what a machine without NCCL runs).
nvcc_bin=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc_bin" ] && [ -f targetDP_CUDA.cu ]; then
  for nc in 0 auto; do
    bdir=$(make -s TARGET=cuda NCCL=$nc tests-print-build)
    where=$(make -s TARGET=cuda NCCL=$nc nccl-where)
    # targetDP_halo.o: only in the NCCL=auto build; the NCCL flags reach
    # the device communicator alone, so NCCL=0's would be the same object
    # compiled again (in its own folder)
    objs=("$bdir/obj/targetDP/targetDP_devcomm.o")
    [ "$nc" = auto ] && objs+=("$bdir/obj/targetDP/targetDP_halo.o")
    if make -s TARGET=cuda NCCL=$nc "${objs[@]}" >"$tmp/nv.log" 2>&1 &&
       ! grep -q "warning" "$tmp/nv.log"; then
      n=$(nm "$bdir/obj/targetDP/targetDP_devcomm.o" | grep -c " U nccl")
      if [ "$nc" = 0 ] && [ "$n" -ne 0 ]; then
        notok "targetDP_devcomm under nvcc, NCCL=0: $n NCCL calls in the object" "$tmp/nv.log"
      elif [ "$nc" = auto ] && [ "$where" != "${where#none}" ]; then
        ok "targetDP_devcomm under nvcc, NCCL=auto: builds warning-free; no NCCL here ($where): the MPI path"
      elif [ "$nc" = auto ] && [ "$n" -eq 0 ]; then
        notok "targetDP_devcomm under nvcc, NCCL=auto: NCCL found ($where) but not called" "$tmp/nv.log"
      else
        ok "targetDP_devcomm under nvcc, NCCL=$nc: builds warning-free ($where; $n NCCL functions called)"
      fi
    else
      notok "targetDP_devcomm and targetDP_halo under nvcc, NCCL=$nc: build warning-free" "$tmp/nv.log"
    fi
  done
else
  echo "ok - targetDP_devcomm under nvcc # SKIP no nvcc or no targetDP_CUDA.cu"
fi
echo "ok - halo: more ranks than GPUs on a node # SKIP no GPU here (tests/run_device.sh runs it)"
exit 0
