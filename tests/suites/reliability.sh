#!/usr/bin/env bash
# Suite: reliability (docs/reliability.md) -- faults and bad input beyond
# the unit tests and tests/suites/lb.sh.
#   MPI: a targetDP error in one rank (a bad API call; an out-of-bounds
#        index in a kernel of a checked build) ends the whole job with one
#        readable message and a non-zero status, within seconds, no hang.
#   apps/lb: every key refused with a message before any work when its
#        value is bad; an output directory that cannot be written; a
#        checkpoint that cannot be written (file-size limit, as a full
#        disk); NaN in the fields (planted with the inject_nan test hook,
#        and a real blow-up): detected, reported with the step and the
#        site, the run stops non-zero with the last good checkpoint intact.
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
  echo "ok - reliability suite # SKIP no MPI (scripts/install_deps.sh installs openmpi-bin libopenmpi-dev)"
  exit 0
fi

# ---------------------------------------------------------------- MPI
plain=$(make -s tests-print-build)
checked=$(make -s CHECK=1 tests-print-build)
built=1
for c in "" "CHECK=1"; do
  if ! make -j2 $c tests-mpi >"$tmp/build-mpi.log" 2>&1 || grep -q "warning:" "$tmp/build-mpi.log"; then
    notok "tests/mpi builds warning-free ${c:-(default configuration)}" "$tmp/build-mpi.log"
    built=0
  fi
done
[ "$built" = 1 ] && ok "tests/mpi builds warning-free (default and CHECK=1)"

# mpi_job NAME NP BINARY MODE PATTERN: rank 1 fails; the job must end
# non-zero within 60 s (no hang) and PATTERN must appear exactly once.
mpi_job() {
  local name=$1 np=$2 bin=$3 mode=$4 pattern=$5 log=$tmp/mpi.log t0 rc dt n
  t0=$(date +%s)
  timeout -k 5 60 mpirun --oversubscribe -np "$np" "$bin" "$mode" >"$log" 2>&1
  rc=$?
  dt=$(($(date +%s) - t0))
  n=$(grep -c -- "$pattern" "$log")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    notok "$name: the job hung (killed by timeout after 60 s)" "$log"
  elif [ "$rc" -eq 0 ]; then
    notok "$name: the job exited 0" "$log"
  elif [ "$n" -ne 1 ]; then
    notok "$name: the message '$pattern' appears $n times, want 1" "$log"
  elif grep -q "ranks finished" "$log"; then
    notok "$name: the other ranks carried on" "$log"
  else
    ok "$name: job ended with status $rc after ${dt}s, one message ($(grep -m1 -- "$pattern" "$log" | head -c 100))"
  fi
}
if [ "$built" = 1 ]; then
  if timeout -k 5 60 mpirun --oversubscribe -np 2 "$plain/tests/mpi/mpi_error" ok >"$tmp/ok.log" 2>&1 &&
     grep -q "2 ranks finished, sum 4160 (want 4160)" "$tmp/ok.log"; then
    ok "MPI control: 2 ranks without a planted error finish with status 0"
  else
    notok "MPI control: 2 ranks without a planted error finish with status 0" "$tmp/ok.log"
  fi
  mpi_job "bad targetDP call on rank 1 of 2" 2 "$plain/tests/mpi/mpi_error" badcall \
    "targetDP: copyToTarget failed at tests/mpi/mpi_error.c:"
  mpi_job "bad targetDP call on rank 1 of 4" 4 "$plain/tests/mpi/mpi_error" badcall \
    "targetDP: copyToTarget failed at tests/mpi/mpi_error.c:"
  mpi_job "out-of-bounds TDP_INDEX in a kernel on rank 1 of 2 (CHECK=1)" 2 \
    "$checked/tests/mpi/mpi_error" oob "targetDP: index out of bounds in kShift at tests/mpi/mpi_error.c:"
fi

# ---------------------------------------------------------------- apps/lb
if ! make -j2 lb >"$tmp/build-lb.log" 2>&1; then
  notok "lb builds (default configuration)" "$tmp/build-lb.log"
  exit 0
fi
b=$(make -s lb-build-dir)

# lb NP OUT [options]: lbRun (tests/suites/lib/common.bash) with 120 s.
lb() { lbRun 120 "$@"; }

# refused NAME PATTERN NP ARGS...: exit status 2, 'lb: error: ...PATTERN'
# on stderr, no step run and no output file created.
nrefused=0
refused() {
  local name=$1 pattern=$2 np=$3
  shift 3
  rm -f "$tmp/bad.csv"
  lb "$np" bad "$@"
  if [ "$rc" -ne 2 ]; then
    notok "bad input, $name: refused with exit status 2 (got $rc)" "$tmp/bad.log"
  elif ! grep -q -- "lb: error: .*$pattern" "$tmp/bad.log"; then
    notok "bad input, $name: refused with a clear message (wanted '$pattern')" "$tmp/bad.log"
  elif grep -q "^step " "$tmp/bad.log" || [ -e "$tmp/bad.csv" ]; then
    notok "bad input, $name: refused before any work" "$tmp/bad.log"
  else
    nrefused=$((nrefused + 1))
    ok "bad input, $name: refused ($(grep -o 'lb: error: .*' "$tmp/bad.log" | head -c 100))"
  fi
}

# Every key with a bad value (tests/suites/lb.sh has more: typos, files).
long=$(printf 'x%.0s' $(seq 600))
refused "size 0" "size along x is 0: must be in \\[1, 4096\\]" 1 --size 0,8,8
refused "size 5000" "size along z is 5000" 1 --size 8,8,5000
refused "size beyond an int" "size: a value of '8 99999999999 8' is out of range" 1 \
  --size "8 99999999999 8"
refused "size not integer" "size needs three integers" 1 --size 8.5,8,8
refused "size over 2e9 sites" "has over 2e9 sites" 1 --size 4096,4096,4096
refused "tau nan" "tau: 'nan' is out of range" 1 --tau nan
refused "tau not a number" "tau needs a number" 1 --tau fast
refused "rho 0" "rho must be positive" 1 --rho 0
refused "rho inf" "rho: 'inf' is out of range" 1 --rho inf
refused "force with two numbers" "force needs three numbers" 1 --force 1e-6,0
refused "force nan" "force needs finite numbers" 1 --force nan,0,0
refused "velocity 0.2" "initial velocity above 0.1" 1 --velocity 0.2,0,0
refused "velocity inf" "velocity needs finite numbers" 1 --velocity 0,inf,0
refused "amplitude 0.5" "initial velocity above 0.1" 1 --case shearwave --amplitude 0.5
refused "case unknown" "case must be uniform, shearwave or poiseuille" 1 --case vortex
refused "walls unknown axis" "walls must be none or axes" 1 --walls w
refused "steps negative" "must be >= 0" 1 --steps -1
refused "steps not integer" "steps needs an integer" 1 --steps 1.5
refused "steps beyond a long" "steps must be an integer in" 1 --steps 99999999999999999999
refused "print_every negative" "must be >= 0" 1 --print_every -1
refused "vtk_every negative" "must be >= 0" 1 --vtk_every -1
refused "checkpoint_every negative" "must be >= 0" 1 --checkpoint_every -1
refused "triad negative" "must be >= 0" 1 --triad -1
refused "inject_nan negative" "must be >= 0" 1 --inject_nan -1
refused "decomposition negative" "decomposition along x is -1" 1 --decomposition -1,1,1
refused "decomposition for 3 ranks on 2" "cannot be made from 2 MPI ranks" 2 --decomposition 3,1,1
refused "kernel unknown" "kernel must be fused or split" 1 --kernel fast
refused "validate 2" "validate must be 0 or 1" 1 --validate 2
refused "output empty" "output prefix is empty" 1 --output ""
refused "output too long" "output is longer than 511 characters" 1 --output "$long"
refused "restart name too long" "restart is longer than 511" 1 --restart "$long"
refused "summary name too long" "summary is longer than 511" 1 --summary "$long"
refused "shearwave with x walls" "case shearwave needs x periodic" 1 --case shearwave --walls x
refused "poiseuille force across the walls" "must be parallel to the walls" 1 --case poiseuille \
  --walls x --force 1e-6,0,0
refused "poiseuille without a force" "needs a non-zero force" 1 --case poiseuille --walls x
refused "option without its value" "bad command line" 1 --steps
refused "stray argument" "bad command line" 1 stray
printf 'size = 8 8 8\ntau 0.8\n' >"$tmp/noeq.params"
printf 'size = 8 8 8\ntau =\n' >"$tmp/noval.params"
printf 'size = 8 8 8\nforce = 0 0 nan\n' >"$tmp/nan.params"
refused "file line without '='" "noeq.params:2: expected 'key = value'" 1 --params "$tmp/noeq.params"
refused "file key without value" "noval.params:2: key 'tau' has no value" 1 --params "$tmp/noval.params"
refused "file NaN force" "nan.params:2: force needs finite numbers" 1 --params "$tmp/nan.params"
echo "# $nrefused bad inputs refused before any work"

# ---------------------------------------------------------------- output
touch "$tmp/afile"
refused "output directory under a regular file" "cannot create '.*afile/sub/run.csv': Not a directory" \
  1 --output "$tmp/afile/sub/run"
mkdir -p "$tmp/isdir.csv"
refused "output file name taken by a directory" "cannot create '.*isdir.csv': Is a directory" 1 \
  --output "$tmp/isdir"

# ---------------------------------------------------------------- checkpoints
# A 3-D flow with a good checkpoint at step 20 (two ranks), and the same
# run's checkpoint at step 30 for reference.
flow=(--case shearwave --amplitude 0.01 --walls z --force 0,1e-4,0 --size 16x12x8 --print_every 10
      --checkpoint_every 10 --validate 0)
lb 2 good "${flow[@]}" --steps 20
if [ "$rc" -ne 0 ] || [ ! -f "$tmp/good.chk" ]; then
  notok "reference run for the checkpoint faults" "$tmp/good.log"
else
  # A checkpoint whose temporary name is taken (by a directory, as a
  # crashed tool might leave): refused before any step (issue 27; it used
  # to fail mid-run), the last good checkpoint untouched. The run would
  # restart from good.chk and write good.chk. (Writes that fail mid-run:
  # lb_safety.sh, full disk.)
  cp "$tmp/good.chk" "$tmp/good20.chk"
  mkdir "$tmp/good.chk.tmp"
  lb 2 good "${flow[@]}" --steps 40 --restart "$tmp/good20.chk"
  if [ "$rc" -eq 2 ] && grep -q "lb: error: cannot create '.*good.chk.tmp': Is a directory" "$tmp/good.log" &&
     ! grep -q "^step " "$tmp/good.log" && cmp -s "$tmp/good.chk" "$tmp/good20.chk"; then
    ok "checkpoint whose temporary name is a directory: refused before any step, exit 2, previous checkpoint intact"
  else
    notok "checkpoint whose temporary name is a directory: refused before any step, exit 2 (got $rc), previous checkpoint intact" \
      "$tmp/good.log"
  fi
  rmdir "$tmp/good.chk.tmp"

  # Damaged checkpoints (lb.sh: a flipped data byte, a 100000-byte head).
  size=$(stat -c %s "$tmp/good20.chk")
  corrupt() { # corrupt NAME PATTERN FILE
    refused "checkpoint $1" "$2" 1 "${flow[@]}" --steps 40 --restart "$3"
  }
  head -c $((size - 8)) "$tmp/good20.chk" >"$tmp/c1.chk"
  corrupt "one double short" "truncated" "$tmp/c1.chk"
  { cat "$tmp/good20.chk"; printf '\0\0\0\0\0\0\0\0'; } >"$tmp/c2.chk"
  corrupt "with 8 bytes appended" "corrupt" "$tmp/c2.chk"
  head -c 128 "$tmp/good20.chk" >"$tmp/c3.chk"
  corrupt "header only" "corrupt" "$tmp/c3.chk"
  : >"$tmp/c4.chk"
  corrupt "empty" "corrupt" "$tmp/c4.chk"
  flip() { # flip SRC DST OFFSET: invert one byte
    cp "$1" "$2"
    local byte
    byte=$(od -An -tu1 -j "$3" -N1 "$1" | tr -d ' ')
    printf "\\$(printf '%03o' $((255 - byte)))" | dd of="$2" bs=1 seek="$3" conv=notrunc 2>/dev/null
  }
  # one bit, the lowest of a mantissa in the middle of the data: the value
  # changes by one unit in the last place
  mid=$((128 + (size - 128) / 16 * 8))
  cp "$tmp/good20.chk" "$tmp/c9.chk"
  byte=$(od -An -tu1 -j "$mid" -N1 "$tmp/good20.chk" | tr -d ' ')
  printf "\\$(printf '%03o' $((byte ^ 1)))" | dd of="$tmp/c9.chk" bs=1 seek="$mid" conv=notrunc 2>/dev/null
  corrupt "with one bit flipped (1 ulp of one value)" "checksum" "$tmp/c9.chk"
  flip "$tmp/good20.chk" "$tmp/c5.chk" 32 # the step number in the header
  corrupt "with the step in the header changed" "corrupt" "$tmp/c5.chk"
  flip "$tmp/good20.chk" "$tmp/c6.chk" $((size - 1)) # last byte of the last double
  corrupt "with the last byte flipped" "checksum" "$tmp/c6.chk"
  flip "$tmp/good20.chk" "$tmp/c7.chk" 0 # the magic
  corrupt "with a bad magic" "corrupt\\|not a" "$tmp/c7.chk"
  # two doubles swapped: every value still plausible, the order is not
  cp "$tmp/good20.chk" "$tmp/c8.chk"
  dd if="$tmp/good20.chk" of="$tmp/c8.chk" bs=1 skip=136 seek=128 count=8 conv=notrunc 2>/dev/null
  dd if="$tmp/good20.chk" of="$tmp/c8.chk" bs=1 skip=128 seek=136 count=8 conv=notrunc 2>/dev/null
  if cmp -s "$tmp/c8.chk" "$tmp/good20.chk"; then
    notok "checkpoint with two doubles swapped: the swap changed nothing (pick other values)"
  else
    corrupt "with two doubles swapped" "checksum" "$tmp/c8.chk"
  fi
  refused "checkpoint beyond steps" "is at step 20, beyond steps = 10" 1 "${flow[@]}" --steps 10 \
    --restart "$tmp/good20.chk"
fi

# ---------------------------------------------------------------- NaN
# Planted: a NaN at the centre site (8, 6, 4), f_0, at step 30, seen at
# the check of step 30 on the other rank than 0; the checkpoint of step
# 20 must be the good run's, bit for bit.
lb 2 nan "${flow[@]}" --steps 50 --inject_nan 30
if [ "$rc" -eq 3 ] &&
   grep -q "lb: error: non-finite value in the fields at step 30: first at site (8, 6, 4), f_0" "$tmp/nan.log" &&
   grep -q "the last checkpoint '.*nan.chk' (step 20) is intact" "$tmp/nan.log" &&
   ! grep -q "^step       30" "$tmp/nan.log" && cmp -s "$tmp/nan.chk" "$tmp/good20.chk"; then
  ok "NaN planted at step 30: reported with step and site, exit 3, step-20 checkpoint intact (bitwise)"
else
  notok "NaN planted at step 30: reported with step and site, exit 3 (got $rc), step-20 checkpoint intact" \
    "$tmp/nan.log"
fi
# Between checks: planted at 25, found at 30 where it has spread by 5 steps.
lb 2 nan25 "${flow[@]}" --steps 50 --inject_nan 25 --checkpoint_every 0
if [ "$rc" -eq 3 ] && grep -q "lb: error: non-finite value in the fields at step 30: first at site" \
     "$tmp/nan25.log" && grep -q "no checkpoint written yet" "$tmp/nan25.log"; then
  ok "NaN planted between checks (step 25): found at the next check (step 30), exit 3"
else
  notok "NaN planted between checks (step 25): found at the next check (step 30), exit 3 (got $rc)" \
    "$tmp/nan25.log"
fi
# A real blow-up: tau at the stability limit with a strong force.
lb 1 blow --size 8x8x8 --case shearwave --amplitude 0.1 --tau 0.5000001 --force 0.05,0,0 \
  --steps 5000 --print_every 10 --validate 0
if [ "$rc" -eq 3 ] && grep -q "lb: error: .* at step [0-9]*" "$tmp/blow.log"; then
  ok "unstable flow (tau 0.5000001, force 0.05): stopped with exit 3 ($(grep -o 'lb: error: .*' "$tmp/blow.log" | head -c 80))"
else
  notok "unstable flow (tau 0.5000001, force 0.05): stopped with exit 3 (got $rc)" "$tmp/blow.log"
fi

exit 0
