#!/usr/bin/env bash
# Suite: the lattice Boltzmann app (apps/lb, docs/lb.md) at small sizes.
# Physics: shear-wave viscosity within 1% of (tau - 1/2)/3, Poiseuille
# profiles (x and z walls) within 1% (L2), mass conserved to 1e-12.
# Portability: the same run on 1, 2 and 4 MPI ranks, in three layouts, three
# VVLs and both kernel variants agrees to 1e-12 (checkpoints compared value
# by value; they are in fact bitwise equal), and prints bitwise the same
# global sums (mass, mean velocity, shear amplitude: exact sums, issue 25
# item 9; on 904b6c2 the mass's last digits depended on the ranks). Checkpoints: a restart continues
# bitwise, a corrupt or truncated one is refused. Input: every bad input is
# refused with a message and a non-zero exit before any step. Also: VTK and
# CSV output, `make run`, and the CUDA build where nvcc and the backend exist.
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok
check() { # check NAME COMMAND...: ok if the command succeeds
  local name=$1 log=$tmp/check.log
  shift
  if "$@" >"$log" 2>&1; then ok "$name"; else notok "$name" "$log"; fi
}

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
  echo "ok - lb suite # SKIP no MPI (scripts/install_deps.sh installs openmpi-bin libopenmpi-dev)"
  exit 0
fi

# ---------------------------------------------------------------- builds
# The default C configuration, and two others that change layout and VVL.
declare -A B
appBuilds lb "AOSOA 4" "SOA 1" "AOS 8"
ref=${B[AOSOA-4]:-}
if [ -z "$ref" ]; then
  echo "not ok - lb suite: the default build failed, nothing else can run"
  exit 0
fi

# lb NP BUILD OUT [options]: run the app, log in $tmp/OUT.log
lb() {
  local np=$1 b=$2 out=$3
  shift 3
  timeout -k 5 300 mpirun --oversubscribe -np "$np" "$b/lb" --output "$tmp/$out" "$@" \
    >"$tmp/$out.log" 2>&1
}

# ---------------------------------------------------------------- physics
if lb 2 "$ref" sw --params apps/lb/input/shearwave.params --size 32x4x4 --steps 600 \
     --print_every 50 && grep -q "^PASS: shear-wave viscosity" "$tmp/sw.log"; then
  ok "shear-wave decay gives nu = (tau-1/2)/3 within 1% ($(grep -o 'relative error [^ ]*' "$tmp/sw.log"))"
else
  notok "shear-wave decay gives nu = (tau-1/2)/3 within 1%" "$tmp/sw.log"
fi

if lb 2 "$ref" px --params apps/lb/input/poiseuille.params --vtk_every 0 &&
   grep -q "^PASS: Poiseuille" "$tmp/px.log"; then
  ok "Poiseuille flow between x walls matches the parabola, L2 < 1% ($(grep -o 'L2 error [^ ]*' "$tmp/px.log"))"
else
  notok "Poiseuille flow between x walls matches the parabola, L2 < 1%" "$tmp/px.log"
fi
if lb 4 "${B[SOA-1]:-$ref}" pz --params apps/lb/input/poiseuille.params --vtk_every 0 \
     --size 8x4x48 --walls z --force 1e-6,0,0 && grep -q "^PASS: Poiseuille" "$tmp/pz.log"; then
  ok "Poiseuille flow between z walls on 4 ranks, L2 < 1% ($(grep -o 'L2 error [^ ]*' "$tmp/pz.log"))"
else
  notok "Poiseuille flow between z walls on 4 ranks, L2 < 1%" "$tmp/pz.log"
fi

# Mass: the relative change column of every CSV row, walls and force included.
for run in px pz sw; do
  worst=$(awk -F, 'NR > 1 { v = $3 < 0 ? -$3 : $3; if (v > m) m = v } END { printf "%.1e", m + 0 }' \
          "$tmp/$run.csv" 2>/dev/null)
  rows=$(($(wc -l <"$tmp/$run.csv" 2>/dev/null || echo 1) - 1))
  if [ "$rows" -ge 2 ] && awk -v w="$worst" 'BEGIN { exit !(w <= 1e-12) }'; then
    ok "mass conserved to 1e-12 relative over $rows rows, run $run (worst $worst)"
  else
    notok "mass conserved to 1e-12 relative, run $run (worst $worst, $rows rows)" "$tmp/$run.log"
  fi
done

# ---------------------------------------------------------------- agreement
# A 3-D flow with everything on: a shear wave, a force, walls, halo
# exchange along every split axis.
flow=(--case shearwave --amplitude 0.01 --walls z --force 0,1e-4,0 --size 16x12x8 --steps 40
      --print_every 20 --checkpoint_every 40 --validate 0)
same() { # same NAME OUT: OUT.chk equals the reference to 1e-12
  if "$ref/lbcmp" "$tmp/ref.chk" "$tmp/$2.chk" 1e-12 >"$tmp/cmp.log" 2>&1; then
    ok "$1 agrees with 1 rank default build to 1e-12 ($(grep -o '[0-9]* differ, max |a - b| = [^ ]*' "$tmp/cmp.log"))"
  else
    notok "$1 agrees with 1 rank default build to 1e-12" "$tmp/cmp.log"
  fi
}
if lb 1 "$ref" ref "${flow[@]}"; then
  lb 2 "$ref" r2 "${flow[@]}" && same "2 ranks (2x1x1)" r2
  lb 4 "$ref" r4 "${flow[@]}" && same "4 ranks (4x1x1)" r4
  lb 4 "$ref" r4b "${flow[@]}" --decomposition 1,2,2 && same "4 ranks (1x2x2)" r4b
  lb 1 "$ref" split "${flow[@]}" --kernel split && same "split kernels (collide + propagate)" split
  # interior || halo, then boundary (the default) against halo, then the
  # whole update: bitwise, on the decompositions that split every axis
  for spec in "1 1,1,1" "2 2,1,1" "8 2,2,2" "4 1,2,2"; do
    set -- $spec
    if lb "$1" "$ref" seq$1 "${flow[@]}" --decomposition "$2" --overlap 0 &&
       lb "$1" "$ref" ovl$1 "${flow[@]}" --decomposition "$2" --overlap 1 &&
       cmp -s "$tmp/seq$1.chk" "$tmp/ovl$1.chk" && grep -q "overlapped step" "$tmp/ovl$1.log"; then
      ok "overlapped step (interior || halo, then boundary) is bitwise the sequential one, $1 ranks ($2)"
    else
      notok "overlapped step (interior || halo, then boundary) is bitwise the sequential one, $1 ranks ($2)" "$tmp/ovl$1.log"
    fi
  done
  same "overlapped step, 8 ranks (2x2x2)" ovl8
  # Issue 29: the overlapped step queued with no host wait (transport nccl:
  # on the host MPI stands in for NCCL, so this runs its code), and the
  # periodic axes a rank holds alone filled before the interior sweep
  # (early_fill 1, the default: the boundary sweep redoes only the faces of
  # split axes and walls) or every face redone (0): bitwise the sequential
  # 1-rank run, with z walls ($flow) and fully periodic.
  flowp=(--case shearwave --amplitude 0.01 --force 0,1e-4,0 --size 16x12x8 --steps 40
         --print_every 20 --checkpoint_every 40 --validate 0)
  if lb 1 "$ref" refp "${flowp[@]}" --overlap 0; then
    for spec in "2 2,1,1" "4 4,1,1" "4 2,2,1" "4 1,2,2"; do
      set -- $spec
      for t in direct nccl; do
        # the step's options (the default: early fill in 2 pieces along x,
        # each piece of the interior sweep after the fill's piece it reads;
        # no second copy of the periodic faces in the exchange; the boundary
        # in one launch); with nccl also the step as before those (one
        # piece, the faces copied again, a launch per boundary box) and 7
        # pieces (fewer planes than pieces on 4,1,1: as many as there are), and
        # the interior sweep on a quarter of the device (targetStreamSetShare)
        vs=("--early_fill 1" "--early_fill 0")
        [ $t = nccl ] && vs+=("--fill_pieces 1 --self_again 1 --one_boundary 0" "--fill_pieces 7"
                              "--interior_share 0.25")
        for e in "${vs[@]}"; do
          for f in flow flowp; do
            r=ref
            [ "$f" = flowp ] && r=refp
            eval "args=(\"\${$f[@]}\")"
            name="overlapped, $t, ${e#--}, $1 ranks ($2)$([ $f = flowp ] && echo ', periodic' || echo ', z walls')"
            # shellcheck disable=SC2086 # $e: the options, split
            if TARGETDP_HALO=$t lb "$1" "$ref" q "${args[@]}" --decomposition "$2" --overlap 1 \
                 $e && grep -q "halo $t" "$tmp/q.log" && cmp -s "$tmp/$r.chk" "$tmp/q.chk"; then
              ok "$name: bitwise the sequential 1-rank run"
            else
              notok "$name: bitwise the sequential 1-rank run" "$tmp/q.log"
            fi
          done
        done
      done
    done
  else
    notok "periodic reference run for the queued overlapped steps" "$tmp/refp.log"
  fi
  [ -n "${B[SOA-1]:-}" ] && lb 2 "${B[SOA-1]}" soa "${flow[@]}" && same "SOA VVL=1, 2 ranks" soa
  [ -n "${B[AOS-8]:-}" ] && lb 4 "${B[AOS-8]}" aos "${flow[@]}" --decomposition 2,2,1 &&
    same "AOS VVL=8, 4 ranks (2x2x1)" aos
  # The printed global sums: every CSV column but the timing (mass,
  # relative change, max|u|, mean velocity, shear amplitude) and every
  # progress line's mass and max|u|, bitwise those of 1 rank.
  sums() { cut -d, -f1-8 "$tmp/$1.csv" 2>/dev/null; }
  printed() { grep -o "^step .* max|u| [^ ]*" "$tmp/$1.log" 2>/dev/null; }
  for run in "2 ranks (2x1x1):r2" "4 ranks (4x1x1):r4" "4 ranks (1x2x2):r4b" \
             "8 ranks (2x2x2), overlapped:ovl8" "SOA VVL=1, 2 ranks:soa" "AOS VVL=8, 4 ranks (2x2x1):aos"; do
    name=${run%%:*} out=${run##*:}
    if [ "$(sums "$out" | wc -l)" -ge 3 ] && [ "$(sums "$out")" = "$(sums ref)" ] &&
       [ -n "$(printed "$out")" ] && [ "$(printed "$out")" = "$(printed ref)" ]; then
      ok "$name prints bitwise the global sums of 1 rank ($(printed "$out" | tail -n 1 | grep -o 'mass [^ ]*'))"
    else
      echo "not ok - $name prints bitwise the global sums of 1 rank"
      diff <(printed ref) <(printed "$out") | head -n 6
    fi
  done
else
  notok "reference run for the agreement checks" "$tmp/ref.log"
fi

# ---------------------------------------------------------------- checkpoints
half=("${flow[@]}")
half[11]=20 # --steps 20 (index of the value after --steps)
if lb 2 "$ref" half "${half[@]}" && lb 2 "$ref" cont "${flow[@]}" --restart "$tmp/half.chk" &&
   cmp -s "$tmp/cont.chk" "$tmp/ref.chk"; then
  ok "restart at step 20 continues bitwise identically to the uninterrupted run"
else
  notok "restart at step 20 continues bitwise identically to the uninterrupted run" "$tmp/cont.log"
fi
if [ -f "$tmp/half.chk" ] && lb 4 "$ref" cont4 "${flow[@]}" --restart "$tmp/half.chk" &&
   cmp -s "$tmp/cont4.chk" "$tmp/ref.chk"; then
  ok "restart on another rank count (2 -> 4) is bitwise identical too"
else
  notok "restart on another rank count (2 -> 4) is bitwise identical too" "$tmp/cont4.log"
fi
[ -e "$tmp/half.chk.tmp" ] && notok "no temporary checkpoint file is left behind" ||
  ok "no temporary checkpoint file is left behind"

refused() { # refused NAME PATTERN NP ARGS...: exits non-zero, says PATTERN, runs no step
  local name=$1 pattern=$2 np=$3
  shift 3
  if lb "$np" "$ref" bad "$@"; then
    notok "$name: refused (it ran)" "$tmp/bad.log"
  elif ! grep -q "lb: error: .*$pattern" "$tmp/bad.log"; then
    notok "$name: refused with a clear message (wanted '$pattern')" "$tmp/bad.log"
  elif grep -q "^step " "$tmp/bad.log"; then
    notok "$name: refused before any work" "$tmp/bad.log"
  else
    ok "$name: refused before any step ($(grep -o 'lb: error: .*' "$tmp/bad.log" | head -c 110))"
  fi
}
if [ -f "$tmp/half.chk" ]; then
  cp "$tmp/half.chk" "$tmp/flip.chk"
  byte=$(od -An -tu1 -j 5000 -N 1 "$tmp/flip.chk" | tr -d ' ') # invert one byte of the data
  printf "\\$(printf %o $((byte ^ 255)))" | dd of="$tmp/flip.chk" bs=1 seek=5000 conv=notrunc 2>/dev/null
  cmp -s "$tmp/flip.chk" "$tmp/half.chk" && notok "corruption test: inverting a byte must change the checkpoint"
  refused "checkpoint with one flipped byte" "corrupt" 2 "${flow[@]}" --restart "$tmp/flip.chk"
  head -c 100000 "$tmp/half.chk" >"$tmp/short.chk"
  refused "truncated checkpoint" "truncated" 2 "${flow[@]}" --restart "$tmp/short.chk"
  refused "checkpoint of another grid" "holds a 16 x 12 x 8 grid" 1 "${flow[@]}" --size 16x12x4 \
    --restart "$tmp/half.chk"
fi

# ---------------------------------------------------------------- bad input
printf 'size = 8 8 8\ntua = 0.8\n' >"$tmp/typo.params"
printf 'size = 8 8 8\ntau = 0.8\ntau = 0.9\n' >"$tmp/twice.params"
refused "grid that does not divide over the ranks" "cannot be split evenly" 4 --size 9x9x9
refused "decomposition that does not divide the grid" "does not divide evenly" 2 --size 9x8x8 \
  --decomposition 2,1,1
refused "decomposition for another rank count" "cannot be made from 2 MPI ranks" 2 \
  --decomposition 2,2,1
refused "tau = 0.5" "tau must be > 0.5" 1 --tau 0.5
refused "interior share 0" "interior_share must be in (0, 1], not 0" 1 --interior_share 0
refused "interior share 2" "interior_share must be in (0, 1], not 2" 1 --interior_share 2
refused "negative tau" "tau must be > 0.5" 1 --tau -1
refused "unknown key in the parameter file" "unknown key 'tua'" 1 --params "$tmp/typo.params"
refused "key given twice" "given twice" 1 --params "$tmp/twice.params"
refused "unreadable parameter file" "cannot read parameter file" 1 --params "$tmp/none.params"
refused "unknown command-line option" "bad command line" 1 --stpes 10
refused "malformed number" "steps needs an integer" 1 --steps 1e3x
refused "size with two numbers" "size needs three integers" 1 --size 8x8
refused "missing restart file" "cannot read restart checkpoint" 1 --restart "$tmp/none.chk"
refused "Poiseuille without walls" "needs walls" 1 --case poiseuille --force 0,0,1e-6
# The halo module's set-up errors, surfaced by lb on every rank count (no hang: lb() has a timeout)
for np in 1 2 4; do
  TARGETDP_HALO=ipc refused "forced halo transport that is not available, $np rank(s)" \
    "halo exchange: halo transport 'ipc' (TARGETDP_HALO=ipc.*use TARGETDP_HALO=auto" "$np" --steps 2
done
TARGETDP_HALO=foo refused "unknown halo transport" "TARGETDP_HALO=foo: must be auto, staged, direct, ipc, nccl or put" 2 --steps 2
refused "output directory that does not exist" "cannot create" 1 --output "$tmp/no/such/dir"

# ---------------------------------------------------------------- output
if lb 2 "$ref" vtk --size 12x8x6 --steps 4 --print_every 2 --vtk_every 4 --velocity 0.01,0,0; then
  f=$tmp/vtk_00000004.vtk
  want=$((12 * 8 * 6 * 16)) # 4 bytes of density + 12 of velocity per point
  size=$(stat -c %s "$f" 2>/dev/null || echo 0)
  if head -n 10 "$f" | grep -q "^DIMENSIONS 12 8 6$" && head -n 10 "$f" | grep -q "^POINT_DATA 576$" &&
     grep -aq "^VECTORS velocity float$" "$f" && [ "$size" -gt "$want" ] &&
     [ "$size" -lt $((want + 400)) ] && [ -f "$tmp/vtk_00000000.vtk" ]; then
    ok "VTK snapshots at steps 0 and 4 with density and velocity ($size bytes)"
  else
    notok "VTK snapshots at steps 0 and 4 with density and velocity ($size bytes)" "$tmp/vtk.log"
  fi
  if [ "$(wc -l <"$tmp/vtk.csv")" -eq 4 ] && head -n 1 "$tmp/vtk.csv" | grep -q "^step,mass,"; then
    ok "CSV time series: header and one row per progress line"
  else
    notok "CSV time series: header and one row per progress line" "$tmp/vtk.csv"
  fi
  if grep -q "^step        4  mass .* max|u| .* MLUPS" "$tmp/vtk.log" && grep -q "^# update " "$tmp/vtk.log"; then
    ok "progress lines (step, mass, max|u|, MLUPS) and per-kernel timing"
  else
    notok "progress lines (step, mass, max|u|, MLUPS) and per-kernel timing" "$tmp/vtk.log"
  fi
else
  notok "small run with VTK output" "$tmp/vtk.log"
fi

# ---------------------------------------------------------------- summary CSV
# One row per run: the device and the halo transport (the module's choice)
# with the per-phase halo times and the share hidden behind the update.
rm -f "$tmp/rows.csv"
if lb 2 "$ref" sum --size 16x8x8 --steps 20 --print_every 0 --validate 0 --summary "$tmp/rows.csv" &&
   lb 1 "$ref" sum1 --size 16x8x8 --steps 20 --print_every 0 --validate 0 --summary "$tmp/rows.csv" &&
   awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; ok = ("device" in c) && ("halo_path" in c) &&
              ("pack_ms" in c) && ("transfer_ms" in c) && ("unpack_ms" in c) && ("hidden_pct" in c); next }
            { n++; if ($c["halo_path"] != "direct" || $c["device"] != "host" || $c["hidden_pct"] < 0 ||
                       $c["hidden_pct"] > 100 || NF != length(c)) ok = 0 }
            END { exit !(ok && n == 2) }' "$tmp/rows.csv"; then
  ok "summary CSV rows carry device, halo_path, pack/transfer/unpack ms and hidden_pct"
else
  notok "summary CSV rows carry device, halo_path, pack/transfer/unpack ms and hidden_pct" "$tmp/rows.csv"
fi

# Issue 29: --breakdown appends one row per run: where an overlapped step's
# time goes (device events); on the host the numbers are the host's, the
# columns and their sanity are what is checked here.
rm -f "$tmp/bdrow.csv"
if TARGETDP_HALO=nccl lb 4 "$ref" bd --size 16x16x8 --decomposition 2,2,1 --steps 30 --print_every 0 \
     --validate 0 --overlap 1 --breakdown "$tmp/bdrow.csv" && grep -q "^# breakdown of 27 overlapped steps" "$tmp/bd.log" &&
   awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { n++; ok = $c["ranks"] == 4 && $c["px"] == 2 && $c["py"] == 2 && $c["pz"] == 1 &&
              $c["halo_path"] == "nccl" && $c["ovl_steps"] == 27 && $c["interior_ms"] > 0 &&
              $c["boundary_ms"] > 0 && $c["exchange_ms"] > 0 && $c["transfer_ms"] >= 0 &&
              $c["step_ms"] > 0 && $c["seq_step_ms"] > 0 }
            END { exit !(ok && n == 1) }' "$tmp/bdrow.csv"; then
  ok "breakdown CSV: one row of an overlapped run's device times (2x2x1, nccl)"
else
  notok "breakdown CSV: one row of an overlapped run's device times (2x2x1, nccl)" "$tmp/bd.log"
fi
if ! lb 1 "$ref" bd0 --size 8x8x8 --steps 2 --overlap 0 --breakdown "$tmp/bd0.csv" &&
   grep -q "breakdown times the overlapped steps: it needs overlap 1" "$tmp/bd0.log"; then
  ok "breakdown with overlap 0 refused"
else
  notok "breakdown with overlap 0 refused" "$tmp/bd0.log"
fi

# Issue 11: one rank's exchange is periodic copies onto itself, queued as
# one batch and timed as self_ms (no pack, transfer, unpack phases); an
# exchange between ranks keeps its phases. An overlapped run reports the
# time spent waiting for the exchange beside the interior as wait_ms, its
# phases coming from the sequential steps alone.
# (a copy of the rows: the model below is fitted to unoverlapped host rows)
if [ -f "$tmp/rows.csv" ] && cp "$tmp/rows.csv" "$tmp/rows3.csv" &&
   lb 2 "$ref" sumo --size 16x8x8 --steps 20 --print_every 0 --validate 0 --overlap 1 \
     --summary "$tmp/rows3.csv" &&
   awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; ok = ("self_ms" in c) && ("wait_ms" in c) && ("overlap" in c); next }
            { n++
              if (NR == 2 && !($c["ranks"] == 2 && $c["pack_ms"] > 0 &&
                               $c["unpack_ms"] > 0 && $c["wait_ms"] == 0 && $c["overlap"] == 0)) ok = 0
              if (NR == 3 && !($c["ranks"] == 1 && $c["self_ms"] > 0 && $c["pack_ms"] == 0 &&
                               $c["transfer_ms"] == 0 && $c["unpack_ms"] == 0 && $c["wait_ms"] == 0)) ok = 0
              if (NR == 4 && !($c["ranks"] == 2 && $c["wait_ms"] > 0 && $c["pack_ms"] > 0 &&
                               $c["hidden_pct"] >= 0 && $c["overlap"] == 1)) ok = 0 }
            END { exit !(ok && n == 3) }' "$tmp/rows3.csv"; then
  ok "summary CSV: one rank's self-exchange as self_ms, phases between ranks, overlapped wait as wait_ms, the mode as overlap"
else
  notok "summary CSV: one rank's self-exchange as self_ms, phases between ranks, overlapped wait as wait_ms, the mode as overlap" "$tmp/rows3.csv"
fi

# The step-time model (apps/lb/lb_model.py): fitted to the host rows just
# written plus GPU rows made up for the test (the device run gives real
# ones), it must print every point against the model and draw the plot.
if [ -f "$tmp/rows.csv" ] && command -v python3 >/dev/null; then
  cp "$tmp/rows.csv" "$tmp/model.csv"
  {
    # backend..halo_path, device, pack, transfer, unpack, hidden, seq_step, halo_mb
    echo "cuda,AOSOA,1,fused,1,1,256,256,256,300,11597,1.447,1.367,0,0,0.08,3731,3500,4150,89.9,84.0,ipc,TEST GPU,0.02,0.01,0.02,0.0,1.447,0.0"
    echo "cuda,AOSOA,1,fused,1,1,512,256,256,300,11597,2.894,2.734,0,0,0.16,3731,3500,4150,89.9,84.0,ipc,TEST GPU,0.02,0.01,0.02,0.0,2.894,0.0"
    echo "cuda,AOSOA,1,fused,2,1,512,256,256,300,22000,1.525,1.367,0,0,0.20,3731,3500,4150,89.9,84.0,ipc,TEST GPU,0.03,0.12,0.03,80.0,1.567,5.33"
    echo "cuda,AOSOA,1,fused,2,1,512,256,256,300,17000,2.100,1.367,0,0,1.20,3731,3500,4150,89.9,84.0,staged,TEST GPU,0.03,1.10,0.03,40.0,2.567,5.33"
  } >>"$tmp/model.csv"
  if python3 apps/lb/lb_model.py "$tmp/model.csv" --plot "$tmp" >"$tmp/model.log" 2>&1 &&
     [ "$(grep -cE '^(c|cuda) ' "$tmp/model.log")" -eq 6 ] && grep -q "^# worst error" "$tmp/model.log" &&
     grep -q "^  4096 " "$tmp/model.log" && grep -q "<polyline" "$tmp/lb_model_weak_strong.svg"; then
    ok "lb_model.py fits the rows, predicts each measured point ($(grep -o 'worst error .*' "$tmp/model.log")) and plots to 4096 GPUs"
  else
    notok "lb_model.py fits the rows, predicts each measured point and plots to 4096 GPUs" "$tmp/model.log"
  fi
  # the committed device rows (H100 + host, 2 x H200): every GPU point
  # within 10% of the model (docs/lb.md, step-time model)
  if python3 apps/lb/lb_model.py apps/lb/results/h100-b8eda43/lb_perf.csv \
       apps/lb/results/h200x2-5590d19/lb_perf.csv >"$tmp/model-dev.log" 2>&1 &&
     [ "$(grep -c '^# worst error NVIDIA' "$tmp/model-dev.log")" -eq 2 ] &&
     awk '/^# worst error NVIDIA/ { sub(/.*: /, "", $0); split($0, a, "%"); if (a[1] + 0 > 10) bad = 1 }
          END { exit bad }' "$tmp/model-dev.log"; then
    ok "lb_model.py fits the committed H100 and 2 x H200 GPU rows within 10% ($(grep '^# worst error NVIDIA' "$tmp/model-dev.log" | sed 's/.*: //; s/ (.*//' | paste -sd' '))"
  else
    notok "lb_model.py fits the committed H100 and 2 x H200 GPU rows within 10%" "$tmp/model-dev.log"
  fi
  # rows without the model's columns: a clear refusal
  head -n 1 apps/lb/results/lb_perf.csv >"$tmp/old.csv"
  if ! python3 apps/lb/lb_model.py "$tmp/old.csv" >"$tmp/model-old.log" 2>&1 &&
     grep -q "no rows with the halo columns" "$tmp/model-old.log"; then
    ok "lb_model.py refuses a CSV without the halo columns"
  else
    notok "lb_model.py refuses a CSV without the halo columns" "$tmp/model-old.log"
  fi
fi

# ---------------------------------------------------------------- make run
if make --no-print-directory run >"$tmp/makerun.log" 2>&1 && grep -q "^PASS: " "$tmp/makerun.log"; then
  ok "make run (the README's main job) ends with PASS"
else
  notok "make run (the README's main job) ends with PASS" "$tmp/makerun.log"
fi

# ---------------------------------------------------------------- CUDA build
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$nvcc" ] || [ ! -f targetDP_CUDA.cu ]; then
  echo "ok - lb builds with TARGET=cuda # SKIP no nvcc or no targetDP_CUDA.cu yet"
else
  # one build: the halo module asks the MPI library at run time
  if make -j2 TARGET=cuda lb >"$tmp/cuda.log" 2>&1 && ! grep -q "warning" "$tmp/cuda.log"; then
    ok "lb compiles and links warning-free with TARGET=cuda"
  else
    notok "lb compiles and links warning-free with TARGET=cuda" "$tmp/cuda.log"
  fi
fi
exit 0
