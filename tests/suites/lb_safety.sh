#!/usr/bin/env bash
# Suite: apps/lb loses no data when the disk fills, the input is odd, or a
# run is restarted (issue 16; docs/reliability.md, "lb: full disk, restart,
# odd input").
#   Full disk: a small file system (a 4 MiB tmpfs when mount works, as root
#   in CI; otherwise a file-size limit, ulimit -f with SIGXFSZ ignored, so
#   that writes fail with EFBIG) fills during a checkpoint, a VTK snapshot
#   and a CSV row: the previous good files are bitwise unchanged, the exit
#   status is 1, the message names the file and the free space.
#   Restart: the CSV is appended to (header checked), and after a restart
#   equals that of the uninterrupted run (timings aside).
#   Odd input: restarts with other physics, FIFO/directory/device as
#   restart file, over-long parameter lines, an out-of-range triad size,
#   --steps 0 with a checkpoint, bad lbcmp tolerances.
#   Issue 27: every path the run writes (CSV, checkpoint, snapshots, their
#   .tmp, summary) and reads (params) checked before any work: FIFOs,
#   directories, missing or read-only directories, one file for two uses;
#   strict numbers (5x, 1e-400), NUL bytes, conflicting options; what is not
#   done said (validation skipped, no triad); rho and case in the checkpoint
#   (and a version-2 one read); the scaling plot's block per rank; the
#   device scripts parse, and run_multigpu.sh's lb section rehearsed on the
#   CPU (LB_SMOKE=1) runs the shear wave and compares checkpoints bitwise.
#   Every run under `timeout`: a hang is a failure.
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
  echo "ok - lb safety suite # SKIP no MPI (scripts/install_deps.sh installs openmpi-bin libopenmpi-dev)"
  exit 0
fi
if ! make -j2 lb >"$tmp/build-lb.log" 2>&1; then
  notok "lb builds (default configuration)" "$tmp/build-lb.log"
  exit 0
fi
b=$(make -s lb-build-dir)

# lb NP OUT [options]: run the app (output prefix $tmp/OUT unless an
# --output follows), log in $tmp/OUT.log, status in $rc. No run may hang.
lb() { lbRun 60 "$@"; }
msg() { grep -a -o 'lb: error: .*' "$1" | head -n 1 | head -c 160; }

# refused NAME PATTERN ARGS...: one rank, exit 2, 'lb: error: ...PATTERN'.
refused() {
  local name=$1 pattern=$2
  shift 2
  lb 1 bad "$@"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    notok "$name: refused (the run hung, killed after 60 s)" "$tmp/bad.log"
  elif [ "$rc" -ne 2 ]; then
    notok "$name: refused with exit status 2 (got $rc)" "$tmp/bad.log"
  elif ! grep -aq -- "lb: error: .*$pattern" "$tmp/bad.log"; then
    notok "$name: refused with a clear message (wanted '$pattern')" "$tmp/bad.log"
  elif grep -aq "^step " "$tmp/bad.log"; then
    notok "$name: refused before any step" "$tmp/bad.log"
  else
    ok "$name: refused ($(msg "$tmp/bad.log"))"
  fi
}

flow=(--case shearwave --amplitude 0.01 --walls z --force 0,1e-4,0 --size 16x12x8 --print_every 10
      --checkpoint_every 10 --validate 0)
# The reference: the uninterrupted run to step 40, with snapshots; and a
# run that stopped at step 20 (its checkpoint is the restart point).
lb 2 ref "${flow[@]}" --steps 40 --vtk_every 10
lb 2 good "${flow[@]}" --steps 20 --vtk_every 10
if [ "$rc" -ne 0 ] || [ ! -f "$tmp/good.chk" ] || [ ! -f "$tmp/ref.chk" ]; then
  notok "reference runs for the safety checks" "$tmp/good.log"
  exit 0
fi
cp "$tmp/good.chk" "$tmp/good20.chk"

# ---------------------------------------------------------------- restart: CSV
# A run that got to step 30 (its CSV has rows 0..30) restarts from the
# step-20 checkpoint: the rows after 20 are redone, none is lost or doubled.
strip() { cut -d, -f1-8 "$1"; } # all but the MLUPS column (a timing)
lb 2 cont "${flow[@]}" --steps 30
lb 2 cont "${flow[@]}" --steps 40 --restart "$tmp/good20.chk"
if [ "$rc" -eq 0 ] && [ "$(strip "$tmp/cont.csv")" = "$(strip "$tmp/ref.csv")" ]; then
  ok "CSV after a restart from step 20 (old rows to 30) equals the uninterrupted run's ($(wc -l <"$tmp/cont.csv") lines)"
else
  notok "CSV after a restart from step 20 (old rows to 30) equals the uninterrupted run's (rc $rc)" "$tmp/cont.csv"
  diff <(strip "$tmp/cont.csv") <(strip "$tmp/ref.csv") | head -n 8
fi
# A CSV of another run (case uniform: another metric column) where the
# restart would append (the case itself is in the checkpoint: issue 27).
lb 1 other --size 16x12x8 --steps 2
cp "$tmp/other.csv" "$tmp/other.csv.before"
refused "restart onto a CSV of another case (other header)" "other.csv' has the header" \
  --output "$tmp/other" "${flow[@]}" --steps 40 --restart "$tmp/good20.chk"
cmp -s "$tmp/other.csv" "$tmp/other.csv.before" && ok "the CSV with the other header is unchanged" ||
  notok "the CSV with the other header is unchanged"

# ---------------------------------------------------------------- restart: physics
refused "restart with other walls" "walls: z in the checkpoint, y now" "${flow[@]}" --walls y \
  --steps 40 --restart "$tmp/good20.chk"
refused "restart with no walls" "walls: z in the checkpoint, none now" "${flow[@]}" --walls none \
  --steps 40 --restart "$tmp/good20.chk"
refused "restart with another tau" "tau: 1 in the checkpoint, 0.9.* now" "${flow[@]}" --tau 0.9 \
  --steps 40 --restart "$tmp/good20.chk"
refused "restart with another force" "force along y: 0.0001 in the checkpoint, 0.0002.* now" \
  "${flow[@]}" --force 0,2e-4,0 --steps 40 --restart "$tmp/good20.chk"

# ---------------------------------------------------------------- odd input
mkfifo "$tmp/fifo.chk"
refused "FIFO as restart file (no hang)" "fifo.chk' is a FIFO, not a regular file" "${flow[@]}" \
  --steps 40 --restart "$tmp/fifo.chk"
mkdir "$tmp/dir.chk"
refused "directory as restart file" "dir.chk' is a directory" "${flow[@]}" --steps 40 \
  --restart "$tmp/dir.chk"
refused "device as restart file" "'/dev/null' is a character device" "${flow[@]}" --steps 40 \
  --restart /dev/null
# Today's bug: the 1023 bytes of the line are read, then its tail as a
# line of its own ("steps = 3" here, applied silently).
{ echo "size = 8 8 8"; printf 'tau = 0.8%1020s steps = 3\n' ""; } >"$tmp/long.params"
refused "parameter-file line over 1023 bytes" "long.params:2: line longer than 1023 bytes" \
  --params "$tmp/long.params"
# (under an 8 GB address-space limit: today's main tries to allocate 72 GB)
(ulimit -v 8000000
 refused "triad size beyond an int" "triad is 3000000000 doubles per array: must be in \\[0, 2147483647\\]" \
   --size 8x8x8 --triad 3000000000)
lb 1 zero --size 8x8x8 --steps 0 --checkpoint_every 5
if [ "$rc" -eq 0 ] && grep -q "^# checkpoint: .*zero.chk (step 0)" "$tmp/zero.log" &&
   timeout -k 5 20 "$b/lbcmp" "$tmp/zero.chk" "$tmp/zero.chk" >"$tmp/cmp.log" 2>&1 &&
   grep -q "steps 0 / 0" "$tmp/cmp.log"; then
  ok "--steps 0 with a checkpoint request writes the step-0 checkpoint it reports"
else
  notok "--steps 0 with a checkpoint request writes the step-0 checkpoint it reports (rc $rc)" "$tmp/zero.log"
fi
for t in abc 1e-x -1 nan inf ""; do
  timeout -k 5 20 "$b/lbcmp" "$tmp/ref.chk" "$tmp/good20.chk" "$t" >"$tmp/cmp.log" 2>&1
  r=$?
  if [ "$r" -eq 2 ] && grep -q "lbcmp: the tolerance must be a finite number >= 0, not '$t'" "$tmp/cmp.log"; then
    ok "lbcmp refuses the tolerance '$t'"
  else
    notok "lbcmp refuses the tolerance '$t' (status $r)" "$tmp/cmp.log"
  fi
done
timeout -k 5 20 "$b/lbcmp" "$tmp/ref.chk" "$tmp/fifo.chk" >"$tmp/cmp.log" 2>&1
r=$?
if [ "$r" -eq 2 ] && grep -q "is a FIFO" "$tmp/cmp.log"; then
  ok "lbcmp refuses a FIFO without blocking"
else
  notok "lbcmp refuses a FIFO without blocking (status $r; 124: it hung)" "$tmp/cmp.log"
fi

# ---------------------------------------------------------------- files of the wrong kind (issue 27)
# Every path the run will write is checked before any work: a FIFO would
# block its open (before step 0 for the CSV, after the last step for the
# summary), a directory would fail the final rename after the whole run.
mkfifo "$tmp/ff.csv" "$tmp/sum.fifo" "$tmp/p.fifo" "$tmp/ft.chk.tmp"
mkdir "$tmp/sumdir" "$tmp/dv_00000002.vtk"
tiny=(--size 8x8x8 --steps 2)
refused "FIFO as the CSV time series <output>.csv (no hang)" \
  "ff.csv': it is a FIFO, not a regular file" --output "$tmp/ff" "${tiny[@]}"
refused "FIFO as --summary (no hang after the last step)" \
  "sum.fifo': it is a FIFO, not a regular file" "${tiny[@]}" --summary "$tmp/sum.fifo"
refused "FIFO as --params (no hang)" "p.fifo' is a FIFO, not a regular file" --params "$tmp/p.fifo"
refused "FIFO at the checkpoint's temporary name" "ft.chk.tmp': it is a FIFO" --output "$tmp/ft" \
  "${tiny[@]}" --checkpoint_every 1
refused "directory as --summary" "sumdir': Is a directory" "${tiny[@]}" --summary "$tmp/sumdir"
refused "directory as a VTK snapshot's name (before the run, not at its rename)" \
  "dv_00000002.vtk': Is a directory" --output "$tmp/dv" "${tiny[@]}" --vtk_every 1
refused "--summary in a directory that does not exist (before the run)" \
  "cannot create '.*no/such/s.csv': No such file or directory" "${tiny[@]}" \
  --summary "$tmp/no/such/s.csv"
refused "--summary X.csv with --output X (one file for both)" "name the same file" \
  --output "$tmp/same" "${tiny[@]}" --summary "$tmp/same.csv"
refused "--summary onto the restart checkpoint" "name the same file" "${flow[@]}" --steps 40 \
  --restart "$tmp/good20.chk" --summary "$tmp/good20.chk"
ro=$tmp/ro
mkdir -p "$ro"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o ro,size=64k tmpfs "$ro" 2>/dev/null; then
  refused "--summary in a read-only directory (before the run)" "ro/s.csv': Read-only file system" \
    "${tiny[@]}" --summary "$ro/s.csv"
  umount "$ro"
elif [ "$(id -u)" != 0 ]; then
  chmod 555 "$ro"
  refused "--summary in a read-only directory (before the run)" "ro/s.csv': Permission denied" \
    "${tiny[@]}" --summary "$ro/s.csv"
  chmod 755 "$ro"
else
  echo "ok - --summary in a read-only directory # SKIP root without mount (a read-only tmpfs is needed)"
fi

# ---------------------------------------------------------------- options (issue 27)
refused "--steps 5x" "steps needs an integer, not '5x'" --size 8x8x8 --steps 5x
refused "--tau 1e-400 (underflows a double)" "tau: '1e-400' underflows a double" --tau 1e-400
refused "--overlap 1 with --kernel split" "overlap 1 needs kernel fused" --overlap 1 --kernel split
refused "inject_nan beyond steps" "inject_nan 50 is beyond steps = 40" --inject_nan 50 --steps 40
# A NUL hides the line's length from strlen: the tail past it (steps = 3)
# was read as a line of its own on main.
printf 'size = 8 8 8\ntau = 0.8\0%1020s steps = 3\n' "" >"$tmp/nul.params"
refused "NUL byte inside a parameter-file line" "nul.params:2: .*NUL byte" --params "$tmp/nul.params"
lb 1 zv --size 12x4x4 --case poiseuille --walls x --force 0,1e-6,0 --steps 0
if [ "$rc" -eq 0 ] && grep -q "^# validation skipped: no step was run" "$tmp/zv.log" &&
   ! grep -qE "^(PASS|FAIL)" "$tmp/zv.log"; then
  ok "--steps 0: no verdict, and 'validation skipped' said"
else
  notok "--steps 0: no verdict, and 'validation skipped' said (rc $rc)" "$tmp/zv.log"
fi
lb 1 uv --size 8x8x8 --steps 2
if [ "$rc" -eq 0 ] && grep -q "^# validation skipped: case uniform has no check" "$tmp/uv.log"; then
  ok "case uniform: 'validation skipped' said"
else
  notok "case uniform: 'validation skipped' said (rc $rc)" "$tmp/uv.log"
fi
rm -f "$tmp/nts.csv"
lb 1 nt --size 8x8x8 --steps 4 --summary "$tmp/nts.csv"
pct=$(awk '$1 == "#" && ($2 == "update" || $2 == "step") { printf "%s ", $5 }' "$tmp/nt.log")
if [ "$rc" -eq 0 ] && [ "$pct" = "- - " ] &&
   awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            { bad = $c["triad_gbs"] != "" || $c["step_pct_triad"] != "" || $c["update_pct_triad"] != "" }
            END { exit bad || NR != 2 }' "$tmp/nts.csv"; then
  ok "no triad run: %triad is '-' in the table and empty in the summary row"
else
  notok "no triad run: %triad is '-' in the table and empty in the summary row (table: '$pct')" "$tmp/nt.log"
fi

# ---------------------------------------------------------------- verdicts after a restart (issue 27)
# The Poiseuille verdict depends on rho: the checkpoint stores it (and the
# case), and a restart that contradicts them is refused.
pflow=(--size 12x4x4 --case poiseuille --walls x --force 0,1e-5,0 --print_every 100
       --checkpoint_every 100 --validate 0)
lb 1 p100 "${pflow[@]}" --steps 100
if [ "$rc" -ne 0 ]; then
  notok "Poiseuille run for the restart checks (rc $rc)" "$tmp/p100.log"
else
  refused "restart with another rho" "rho: 1 in the checkpoint, 2 now" "${pflow[@]}" --steps 200 \
    --restart "$tmp/p100.chk" --rho 2
  refused "restart with another case" "case: poiseuille in the checkpoint, uniform now" \
    "${pflow[@]}" --case uniform --steps 200 --restart "$tmp/p100.chk"
fi
# A checkpoint of version 2 (written by main at 904b6c2: no rho, no case)
# is read, and the run says what it could not check.
cp tests/suites/data/lb-v2-4x4x6.chk "$tmp/v2.chk"
v2=(--size 4x4x6 --case poiseuille --walls z --force 1e-5,0,0 --print_every 10 --validate 0)
lb 1 v2r "${v2[@]}" --tau 0.8 --steps 20 --restart "$tmp/v2.chk"
if [ "$rc" -eq 0 ] && grep -q "^# checkpoint '.*v2.chk' is version 2: it does not record rho and case" "$tmp/v2r.log" &&
   grep -q "^step       20 " "$tmp/v2r.log"; then
  ok "a version-2 checkpoint is read, and the run says rho and case are unchecked"
else
  notok "a version-2 checkpoint is read, and the run says rho and case are unchecked (rc $rc)" "$tmp/v2r.log"
fi
refused "version-2 checkpoint with another tau" "tau: 0.8 in the checkpoint, 1 now" \
  "${v2[@]}" --steps 20 --restart "$tmp/v2.chk"

# ---------------------------------------------------------------- scaling plot (issue 27)
# plot_scaling.py names the block per rank the rows have, not always 64^3.
rm -f "$tmp/scal.csv"
lb 1 s1 --size 16x16x16 --steps 4 --print_every 0 --summary "$tmp/scal.csv"
lb 2 s2 --size 32x16x16 --decomposition 2,1,1 --steps 4 --print_every 0 --summary "$tmp/scal.csv"
if python3 apps/lb/plot_scaling.py "$tmp/scal.csv" >"$tmp/plot.log" 2>&1 &&
   grep -q "16^3 per rank" "$tmp/plot.log" && ! grep -q "64^3" "$tmp/plot.log" &&
   grep -q "^    2 ranks" "$tmp/plot.log"; then
  ok "plot_scaling.py names the rows' block per rank (16^3), not a fixed 64^3"
else
  notok "plot_scaling.py names the rows' block per rank (16^3), not a fixed 64^3" "$tmp/plot.log"
fi

# ---------------------------------------------------------------- device scripts (issue 27)
# They need GPUs; here they must parse, and the CPU rehearsal of the
# multi-GPU section (LB_SMOKE=1: the default C build, 2 ranks on the
# host standing in for GPUs) must run the shear wave and compare the
# checkpoints bitwise.
for s in scripts/run_multigpu.sh apps/lb/run_device.sh apps/milc/run_device.sh tests/run_device.sh; do
  if bash -n "$s" 2>"$tmp/n.log"; then ok "bash -n $s"; else notok "bash -n $s" "$tmp/n.log"; fi
done
LB_SMOKE=1 MG_PARTS=lb OUT="$tmp/mg" timeout -k 5 600 bash scripts/run_multigpu.sh >"$tmp/mg.log" 2>&1
dl=$tmp/mg/lb_device.log
nsame=$(grep -c "^ok - .*: checkpoint bitwise equal to 1 rank's" "$dl" 2>/dev/null)
ncase=$(grep -c "^# case shearwave" "$dl" 2>/dev/null)
if [ "${nsame:-0}" -ge 5 ] && ! grep -q "^not ok" "$dl" && [ "${ncase:-0}" -ge 7 ] &&
   ! grep -q "^# case uniform" "$dl"; then
  ok "run_multigpu.sh lb section, CPU rehearsal: shear wave throughout, $nsame checkpoints bitwise equal to 1 rank's"
else
  notok "run_multigpu.sh lb section, CPU rehearsal: shear wave throughout, checkpoints compared bitwise ($nsame compared, $ncase shear-wave runs)" "$tmp/mg.log"
  grep -E "^(not ok|ok) -|^# case" "$dl" 2>/dev/null | head -n 20
fi

# ---------------------------------------------------------------- full disk
# A 4 MiB tmpfs, or (where mount is not allowed) a file-size limit. Either
# way the runs below may write files of about LIMIT KiB and no more.
fs=$tmp/fs
mkdir -p "$fs"
mode=ulimit
if [ "${LB_SAFETY_FILL:-}" != ulimit ] && mount -t tmpfs -o size=4m tmpfs "$fs" 2>/dev/null; then
  mode=tmpfs
  trap 'umount "$fs" 2>/dev/null; rm -rf "$tmp"' EXIT
fi
echo "# full-disk checks use: $mode"
# limited KIB NAME ARGS...: run in $fs with KIB KiB left (tmpfs, 2 ranks) or
# with files limited to KIB KiB (one rank: mpirun's own shared memory files
# do not survive the limit; PMIx and the BTL are told to do without them).
limited() {
  local kib=$1 name=$2
  shift 2
  if [ "$mode" = tmpfs ]; then
    rm -f "$fs/filler"
    local avail
    avail=$(df -B1 --output=avail "$fs" | tail -n 1)
    dd if=/dev/zero of="$fs/filler" bs=4096 count=$(((avail - kib * 1024) / 4096)) 2>/dev/null
    timeout -k 5 60 mpirun --oversubscribe -np 2 "$b/lb" "$@" >"$tmp/$name.log" 2>&1
    rc=$?
    rm -f "$fs/filler"
  else
    (trap '' XFSZ; ulimit -f "$kib"; PMIX_MCA_gds=hash OMPI_MCA_btl=self \
       exec timeout -k 5 60 "$b/lb" "$@") >"$tmp/$name.log" 2>&1
    rc=$?
  fi
}
# fresh: $fs holds the stopped run's files (good.*) and nothing else
fresh() {
  rm -rf "${fs:?}"/*
  cp "$tmp"/good.chk "$tmp"/good.csv "$tmp"/good_000000[0-2]0.vtk "$fs"/
  cp "$tmp/ref_00000030.vtk" "$fs/good_00000030.vtk" # an earlier run's, to be kept
  (cd "$fs" && md5sum good.chk good_* >"$tmp/sums")
}
# csv_kept: the CSV, the one file that is appended to, still starts with
# the stopped run's rows, and every line is a whole row.
csv_kept() {
  head -c "$(stat -c %s "$tmp/good.csv")" "$fs/good.csv" | cmp -s - "$tmp/good.csv" &&
    [ "$(awk -F, 'NF != 9' "$fs/good.csv" | wc -l)" -eq 0 ] &&
    [ "$(tail -c 1 "$fs/good.csv" | od -An -c | tr -d ' ')" = '\n' ]
}
# filled NAME LOG FILE PATTERN: exit 1, the message names FILE and says
# PATTERN and the free space, every previous file bitwise unchanged (the
# CSV: its old rows), no temporary file left.
filled() {
  local name=$1 log=$tmp/$2.log file=$3 pattern=$4
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    notok "full disk during $name: the run hung" "$log"
  elif [ "$rc" -ne 1 ]; then
    notok "full disk during $name: exit status 1 (got $rc)" "$log"
  elif ! grep -a "lb: error: " "$log" | grep -F "'$fs/$file'" | grep -- "$pattern" |
       grep -qF "MiB free on the file system of '$fs'"; then
    notok "full disk during $name: the message names '$file', what failed and the free space" "$log"
  elif ! (cd "$fs" && md5sum --quiet -c "$tmp/sums") >"$tmp/sums.log" 2>&1; then
    notok "full disk during $name: the previous files are bitwise unchanged" "$tmp/sums.log"
  elif ! csv_kept; then
    notok "full disk during $name: the CSV keeps its old rows, no torn row" "$fs/good.csv"
  elif ls "$fs" | grep -q '\.tmp$'; then
    notok "full disk during $name: no temporary file left" "$log"
  else
    ok "full disk during $name: exit 1, previous files bitwise intact ($(msg "$log"))"
  fi
}
restart=(--output "$fs/good" "${flow[@]}" --restart "$tmp/good20.chk" --steps 40)
# The checkpoint (228 KiB) does not fit in 100 KiB; the snapshot (24 KiB) not
# in 16 KiB; the CSV grows past 4 KiB (about 30 rows) after the restart.
fresh
limited 100 fullchk "${restart[@]}"
filled "a checkpoint" fullchk good.chk "writing checkpoint"
fresh
limited 16 fullvtk "${restart[@]}" --vtk_every 10 --checkpoint_every 0
filled "a VTK snapshot" fullvtk good_00000030.vtk "writing VTK snapshot"
fresh
limited 4 fullcsv "${restart[@]}" --steps 400 --print_every 1 --checkpoint_every 0
filled "a CSV row" fullcsv good.csv "writing a row (step [0-9]*) to"
rows=$(($(wc -l <"$fs/good.csv") - 1))
if [ "$rows" -gt 20 ] && grep -aq "writing a row (step $((rows + 18)))" "$tmp/fullcsv.log"; then
  ok "full disk during a CSV row: the rows written before the failing one stay ($rows rows: steps 0, 10, 20..$((rows + 17)))"
else
  notok "full disk during a CSV row: the rows written before the failing one stay ($rows rows)" "$tmp/fullcsv.log"
fi
exit 0
