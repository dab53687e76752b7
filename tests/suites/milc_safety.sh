#!/usr/bin/env bash
# Suite: apps/milc loses no file, never hangs and gives no false verdict
# (issue 27; docs/milc.md "Files, odd input and breakdowns", docs/reliability.md).
#   Full disk: a small file system (a tmpfs when mount works, as root in CI;
#   otherwise a file-size limit, ulimit -f with SIGXFSZ ignored, so that
#   writes fail with EFBIG) fills during --save_gauge and --save: exit 1, the
#   message names the file and the free space, the previous file is bitwise
#   unchanged, no temporary file is left.
#   Odd files: a FIFO as --gauge_file, --save, --save_gauge (and milccheck
#   --compare), a directory, a missing or read-only directory: refused with
#   exit 2 before the solve; every run under `timeout`, so a hang fails.
#   Sizes: extents whose product wraps 64 bits (--size 65536: 2^64 sites) are
#   refused with the true number.
#   Breakdown: NaN links (in a gauge file with a valid checksum) and a mass
#   whose m^2 <p, p> overflows end with the breakdown message and exit 1;
#   a mass whose square overflows is refused as input.
#   Options: underflowing numbers, trailing junk, conflicting options
#   (--runs with --timing, --gauge with --gauge_file, two outputs in one
#   file) are refused; what is not done is said (--cg ahead on 2 ranks).
# Prints `ok - name` / `not ok - name` lines and exits 0 (tests/README.md).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
. tests/suites/lib/common.bash # $tmp, ok, notok

if ! command -v mpirun >/dev/null || ! command -v mpicc >/dev/null; then
  echo "ok - milc safety suite # SKIP no MPI (scripts/install_deps.sh installs openmpi-bin libopenmpi-dev)"
  exit 0
fi
if ! make -j2 milc >"$tmp/build-milc.log" 2>&1; then
  notok "milc builds (default configuration)" "$tmp/build-milc.log"
  exit 0
fi
b=$(make -s milc-build-dir)

# milc NP OUT ARGS...: run the app under a time limit (no run may hang), log
# $tmp/OUT.log, status in $rc. One rank runs as an MPI singleton.
milc() {
  local np=$1 out=$2
  shift 2
  if [ "$np" = 1 ]; then
    timeout -k 5 60 "$b/milc" "$@" >"$tmp/$out.log" 2>&1
  else
    timeout -k 5 60 mpirun --oversubscribe -np "$np" "$b/milc" "$@" >"$tmp/$out.log" 2>&1
  fi
  rc=$?
}
msg() { grep -a -o 'milc: error: .*' "$1" | head -n 1 | head -c 160; }
hung() { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }

# refused NAME PATTERN ARGS...: one rank, exit 2, 'milc: error: ...PATTERN', no solve.
refused() {
  local name=$1 pattern=$2
  shift 2
  milc 1 bad "$@"
  if hung; then
    notok "$name: refused (the run hung, killed after 60 s)" "$tmp/bad.log"
  elif [ "$rc" -ne 2 ]; then
    notok "$name: refused with exit status 2 (got $rc)" "$tmp/bad.log"
  elif ! grep -aq -- "milc: error: .*$pattern" "$tmp/bad.log"; then
    notok "$name: refused with a clear message (wanted '$pattern')" "$tmp/bad.log"
  elif grep -aqE "^(iter |CG )" "$tmp/bad.log"; then
    notok "$name: refused before the solve" "$tmp/bad.log"
  else
    ok "$name: refused ($(msg "$tmp/bad.log"))"
  fi
}

small=(--size 4,4,6,8 --mass 0.5 --tol 1e-10 --print_every 0)
milc 1 good "${small[@]}" --seed 3 --save_gauge "$tmp/g.bin" --save "$tmp/x.bin"
if [ "$rc" -ne 0 ] || [ ! -f "$tmp/g.bin" ] || [ ! -f "$tmp/x.bin" ]; then
  notok "reference run for the safety checks (rc $rc)" "$tmp/good.log"
  exit 0
fi

# ---------------------------------------------------------------- sizes
refused "--size 65536 (2^64 sites, wraps to 0)" "18446744073709551616 sites" --size 65536
refused "--size 1000000 (10^24 sites)" "1000000000000000000000000 sites" --size 1000000
refused "--size 65536,65536,65536,2 (2^49 sites on one rank)" "562949953421312 sites" \
  --size 65536,65536,65536,2

# ---------------------------------------------------------------- odd files
mkfifo "$tmp/fifo"
mkdir "$tmp/adir"
refused "FIFO as --gauge_file (no hang)" "fifo' is a FIFO, not a regular file" "${small[@]}" \
  --gauge_file "$tmp/fifo"
refused "FIFO as --save" "fifo': it is a FIFO, not a regular file" "${small[@]}" --save "$tmp/fifo"
refused "FIFO as --save_gauge" "fifo': it is a FIFO, not a regular file" "${small[@]}" \
  --save_gauge "$tmp/fifo"
refused "directory as --gauge_file" "adir' is a directory" "${small[@]}" --gauge_file "$tmp/adir"
refused "directory as --save" "adir': Is a directory" "${small[@]}" --save "$tmp/adir"
refused "--save in a directory that does not exist (before the solve)" \
  "cannot create '.*no/such/x.bin': No such file or directory" "${small[@]}" \
  --save "$tmp/no/such/x.bin"
mkfifo "$tmp/g2.bin.tmp"
refused "FIFO at --save_gauge's temporary name" "g2.bin.tmp': it is a FIFO" "${small[@]}" \
  --save_gauge "$tmp/g2.bin"
rm -f "$tmp/g2.bin.tmp"
timeout -k 5 20 "$b/milccheck" --compare "$tmp/x.bin" "$tmp/fifo" 0 >"$tmp/cmp.log" 2>&1
r=$?
if [ "$r" -eq 2 ] && grep -q "is a FIFO" "$tmp/cmp.log"; then
  ok "milccheck --compare refuses a FIFO without blocking"
else
  notok "milccheck --compare refuses a FIFO without blocking (status $r; 124: it hung)" "$tmp/cmp.log"
fi
timeout -k 5 20 "$b/milccheck" --compare "$tmp/x.bin" "$tmp/x.bin" 1e-x >"$tmp/cmp.log" 2>&1
r=$?
if [ "$r" -eq 2 ] && grep -q "tolerance" "$tmp/cmp.log"; then
  ok "milccheck --compare refuses the tolerance '1e-x'"
else
  notok "milccheck --compare refuses the tolerance '1e-x' (status $r)" "$tmp/cmp.log"
fi

# A read-only directory (a read-only tmpfs: root writes through permission
# bits, not through a read-only mount).
ro=$tmp/ro
mkdir -p "$ro"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o ro,size=64k tmpfs "$ro" 2>/dev/null; then
  refused "--save in a read-only directory (before the solve)" "ro/x.bin': Read-only file system" \
    "${small[@]}" --save "$ro/x.bin"
  umount "$ro"
elif [ "$(id -u)" != 0 ]; then
  chmod 555 "$ro"
  refused "--save in a read-only directory (before the solve)" "ro/x.bin': Permission denied" \
    "${small[@]}" --save "$ro/x.bin"
  chmod 755 "$ro"
else
  echo "ok - --save in a read-only directory # SKIP root without mount (a read-only tmpfs is needed)"
fi

# ---------------------------------------------------------------- options
refused "--tol 1e-400 (underflows a double)" "tol: '1e-400' underflows a double" --tol 1e-400
refused "--maxiter 5x" "maxiter needs an integer, not '5x'" --maxiter 5x
refused "--mass 1e200 (its square overflows)" "mass 1e+200: its square overflows" --mass 1e200
refused "--runs with --timing" "cannot be combined with --timing" --runs events:fused --timing sync
refused "--gauge with --gauge_file" "cannot be combined with --gauge" "${small[@]}" --gauge unit \
  --gauge_file "$tmp/g.bin"
refused "--save and --save_gauge to one file" "name the same file" "${small[@]}" \
  --save "$tmp/same.bin" --save_gauge "$tmp/same.bin"
refused "--save onto the --gauge_file it reads" "name the same file" "${small[@]}" \
  --gauge_file "$tmp/g.bin" --save "$tmp/g.bin"
refused "--inject_nan 2" "inject_nan must be 0 or 1" --inject_nan 2
milc 2 ahead "${small[@]}" --cg ahead --sums host
if [ "$rc" -eq 0 ] && grep -q "^# global sums: host MPI_Allreduce; .*--cg ahead needs the sums on the target: ran as fused" "$tmp/ahead.log"; then
  ok "--cg ahead on 2 ranks with the sums through the host says it runs fused"
else
  notok "--cg ahead on 2 ranks with the sums through the host says it runs fused (rc $rc)" "$tmp/ahead.log"
fi
milc 2 ahead2 "${small[@]}" --cg ahead
if [ "$rc" -eq 0 ] && grep -q "^# global sums: device (" "$tmp/ahead2.log" && ! grep -q "ran as fused" "$tmp/ahead2.log"; then
  ok "--cg ahead on 2 ranks keeps the sums on the target and runs ahead (says so)"
else
  notok "--cg ahead on 2 ranks keeps the sums on the target and runs ahead (says so) (rc $rc)" "$tmp/ahead2.log"
fi

# ---------------------------------------------------------------- breakdown
# breaks NAME LOG PATTERN: exit 1, the breakdown message (with PATTERN), no
# "converged" verdict and no NaN printed as a residual.
breaks() {
  local name=$1 log=$tmp/$2.log pattern=$3
  if hung; then
    notok "$name: the run hung" "$log"
  elif [ "$rc" -ne 1 ]; then
    notok "$name: exit status 1 (got $rc)" "$log"
  elif ! grep -aq "milc: error: CG broke down.*$pattern" "$log"; then
    notok "$name: the breakdown message (wanted '$pattern')" "$log"
  elif grep -aqE "(^|[ (=:])-?nan([ ,)]|$)|^CG (NOT )?converged" "$log"; then
    notok "$name: no residual verdict, no NaN printed" "$log"
  else
    ok "$name: $(msg "$log")"
  fi
}
# NaN in one link (test hook), written to a gauge file with its checksum:
# the solve breaks down, and so does a run that reads the file back.
milc 1 nanw "${small[@]}" --inject_nan 1 --save_gauge "$tmp/nan.bin"
breaks "a NaN link" nanw "non-finite"
milc 1 nanr "${small[@]}" --gauge_file "$tmp/nan.bin"
breaks "a gauge file with a NaN link and a valid checksum" nanr "non-finite"
# A broken-down solve has no solution to save: an old file stays.
cp "$tmp/x.bin" "$tmp/keep.bin"
milc 1 nans "${small[@]}" --inject_nan 1 --save "$tmp/keep.bin"
if [ "$rc" -eq 1 ] && cmp -s "$tmp/x.bin" "$tmp/keep.bin" &&
   grep -q "save '.*keep.bin' not written: the solve broke down" "$tmp/nans.log"; then
  ok "a broken-down solve does not replace the --save file, and says so"
else
  notok "a broken-down solve does not replace the --save file, and says so (rc $rc)" "$tmp/nans.log"
fi
milc 1 big "${small[@]}" --mass 1e154
breaks "mass 1e154 (m^2 <p, M p> overflows)" big "not positive and finite"
milc 1 bign "${small[@]}" --mass 1e154 --cg classic
breaks "mass 1e154, --cg classic" bign "not positive and finite"
milc 2 big2 "${small[@]}" --mass 1e154
breaks "mass 1e154 on 2 ranks" big2 "not positive and finite"

# ---------------------------------------------------------------- full disk
# A tmpfs of 1 MiB, or (where mount is not allowed) a file-size limit. Either
# way the runs below may write files of about LIMIT KiB and no more.
fs=$tmp/fs
mkdir -p "$fs"
mode=ulimit
if [ "${MILC_SAFETY_FILL:-}" != ulimit ] && mount -t tmpfs -o size=1m tmpfs "$fs" 2>/dev/null; then
  mode=tmpfs
  trap 'umount "$fs" 2>/dev/null; rm -rf "$tmp"' EXIT
fi
echo "# full-disk checks use: $mode"
# limited KIB NAME ARGS...: run in $fs with KIB KiB left (tmpfs, 2 ranks) or
# with files limited to KIB KiB (one rank, as lb_safety.sh).
limited() {
  local kib=$1 name=$2
  shift 2
  if [ "$mode" = tmpfs ]; then
    rm -f "$fs/filler"
    local avail
    avail=$(df -B1 --output=avail "$fs" | tail -n 1)
    dd if=/dev/zero of="$fs/filler" bs=4096 count=$(((avail - kib * 1024) / 4096)) 2>/dev/null
    timeout -k 5 60 mpirun --oversubscribe -np 2 "$b/milc" "$@" >"$tmp/$name.log" 2>&1
    rc=$?
    rm -f "$fs/filler"
  else
    (trap '' XFSZ; ulimit -f "$kib"; PMIX_MCA_gds=hash OMPI_MCA_btl=self \
       exec timeout -k 5 60 "$b/milc" "$@") >"$tmp/$name.log" 2>&1
    rc=$?
  fi
}
# fresh: $fs holds the good gauge file and solution and nothing else
fresh() {
  rm -rf "${fs:?}"/*
  cp "$tmp/g.bin" "$tmp/x.bin" "$fs/"
  (cd "$fs" && md5sum g.bin x.bin >"$tmp/sums")
}
# filled NAME LOG FILE PATTERN: exit 1, the message names FILE, says PATTERN
# and the free space, the previous files bitwise unchanged, no .tmp left.
filled() {
  local name=$1 log=$tmp/$2.log file=$3 pattern=$4
  if hung; then
    notok "full disk during $name: the run hung" "$log"
  elif [ "$rc" -ne 1 ]; then
    notok "full disk during $name: exit status 1 (got $rc)" "$log"
  elif ! grep -a "milc: error: " "$log" | grep -F "'$fs/$file'" | grep -- "$pattern" |
       grep -qF "MiB free on the file system of '$fs'"; then
    notok "full disk during $name: the message names '$file', what failed and the free space" "$log"
  elif ! (cd "$fs" && md5sum --quiet -c "$tmp/sums") >"$tmp/sums.log" 2>&1; then
    notok "full disk during $name: the previous files are bitwise unchanged" "$tmp/sums.log"
  elif ls "$fs" | grep -q '\.tmp$'; then
    notok "full disk during $name: no temporary file left" "$log"
  else
    ok "full disk during $name: exit 1, previous file bitwise intact ($(msg "$log"))"
  fi
}
# The gauge file (432 KiB) does not fit in 200 KiB; the solution (18 KiB)
# not in 8 KiB. Another seed: the file would differ from the one kept.
fresh
limited 200 fullg "${small[@]}" --seed 4 --save_gauge "$fs/g.bin"
filled "--save_gauge" fullg g.bin "writing gauge file"
fresh
limited 8 fullx "${small[@]}" --seed 4 --save "$fs/x.bin"
filled "--save" fullx x.bin "writing solution"
if grep -aq "^CG converged" "$tmp/fullx.log"; then
  ok "full disk during --save: the solve's verdict is still printed"
else
  notok "full disk during --save: the solve's verdict is still printed" "$tmp/fullx.log"
fi
exit 0
