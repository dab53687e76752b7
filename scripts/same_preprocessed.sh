#!/usr/bin/env bash
# Checks that a change to the layer's headers leaves every translation unit
# preprocessing to the same tokens: each tracked .c/.cu/.cpp that names
# targetDP is preprocessed in the tree of REF (default HEAD) and in the
# working tree, line markers and blank lines removed, and the two compared,
# in several configurations (layouts, VVL, checked, ILP simd, profile, C++,
# clang, nvcc). Moving a section of targetDP.h into a header included at
# the same point must give "same" for all of them. A file that moved (paired
# with the file of its name in REF) is also "same" when it differs only by
# its own path where __FILE__ names it (counted apart).
#   scripts/same_preprocessed.sh [REF [NEW]]  (NEW: a commit; default the
#   working tree; -j via JOBS, default 2;
#   ONLY=regex keeps the configurations whose name matches;
#   RENAMES=file.sed is applied to REF's preprocessed text first (sed -E,
#   as scripts/same_objects.sh does): a rename of internal names then
#   compares equal, e.g. RENAMES=scripts/renames.sed)
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
REF=${1:-HEAD}
NEW=${2:-}
JOBS=${JOBS:-2}
. scripts/same_trees.sh
same_trees_unpack
RENAMES=${RENAMES:-}
if [ -n "$RENAMES" ]; then RENAMES=$(cd "$(dirname "$RENAMES")" && pwd)/$(basename "$RENAMES"); fi

# name|compiler command (preprocess to stdout; the file is appended)
configs=(
  "gcc-SOA-vvl8|gcc -std=c99 -fopenmp -march=x86-64-v3 -DTARGETDP_SOA -DVVL=8 -E -P"
  "gcc-AOSOA-vvl4|gcc -std=c99 -fopenmp -march=x86-64-v3 -DTARGETDP_AOSOA -DVVL=4 -E -P"
  "gcc-AOS-vvl1|gcc -std=c99 -fopenmp -DTARGETDP_AOS -DVVL=1 -E -P"
  "gcc-serial-SOA-vvl8|gcc -std=c99 -DTARGETDP_SOA -DVVL=8 -E -P"
  "gcc-SOA-vvl8-check|gcc -std=c99 -fopenmp -DTARGETDP_SOA -DVVL=8 -DTARGETDP_CHECK -E -P"
  "gcc-SOA-vvl8-ilpsimd|gcc -std=c99 -fopenmp -DTARGETDP_SOA -DVVL=8 -DTDP_ILP_SIMD -E -P"
  "gcc-SOA-vvl8-profile|gcc -std=c99 -fopenmp -DTARGETDP_SOA -DVVL=8 -DTARGETDP_PROFILE -E -P"
  "g++-SOA-vvl8|g++ -std=c++17 -x c++ -fopenmp -DTARGETDP_SOA -DVVL=8 -E -P"
  "g++-AOSOA-vvl4-check|g++ -std=c++17 -x c++ -fopenmp -DTARGETDP_AOSOA -DVVL=4 -DTARGETDP_CHECK -E -P"
)
have clang && configs+=(
  "clang-SOA-vvl8|clang -std=c99 -fopenmp -march=x86-64-v3 -DTARGETDP_SOA -DVVL=8 -E -P"
  "clang-AOSOA-vvl4-check|clang -std=c99 -DTARGETDP_AOSOA -DVVL=4 -DTARGETDP_CHECK -E -P"
)
[ -x "$NVCC_BIN" ] && configs+=(
  "nvcc-SOA-vvl1|$NVCC_BIN -x cu -std=c++17 -arch=sm_90 -DTARGETDP_SOA -DVVL=1 -E -Xcompiler -P"
  "nvcc-SOA-vvl4|$NVCC_BIN -x cu -std=c++17 -arch=sm_90 -DTARGETDP_SOA -DVVL=4 -E -Xcompiler -P"
  "nvcc-SOA-vvl1-check-profile|$NVCC_BIN -x cu -std=c++17 -arch=sm_90 -DTARGETDP_SOA -DVVL=1 -DTARGETDP_CHECK -DTARGETDP_PROFILE -E -Xcompiler -P"
)

same_keep_only

pairs=$(same_pairs)

# One TU in one tree: normalised preprocessed text, or FAILED. -ItargetDP:
# the modules' folder (targetDP_halo.h), absent in trees before it.
pp() { # tree cfgname cmd file outname
  local tree=$1 name=$2 cmd=$3 f=$4 out
  out="$T/out/$name/$tree/$5"
  mkdir -p "$(dirname "$out")"
  (cd "$T/$tree" && $cmd -I. -ItargetDP $MPI_INC "$f" 2>/dev/null) |
    sed -e '/^#[[:space:]]*[0-9]/d' -e '/^#line/d' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' \
        -e '/^$/d' | if [ "$tree" = ref ] && [ -n "$RENAMES" ]; then sed -E -f "$RENAMES"; else cat; fi >"$out" || true
  [ -s "$out" ] || echo FAILED >"$out"
}
export -f pp
export T MPI_INC RENAMES
for c in "${configs[@]}"; do
  name=${c%%|*} cmd=${c#*|}
  echo "$pairs" | while read -r nf rf; do
    [ "$nf" = NEWONLY ] && continue
    printf '%s\0%s\0%s\0%s\0%s\0' ref "$name" "$cmd" "$rf" "${nf//\//_}"
    printf '%s\0%s\0%s\0%s\0%s\0' new "$name" "$cmd" "$nf" "${nf//\//_}"
  done
done | xargs -0 -n 5 -P "$JOBS" bash -c 'pp "$@"' _

echo "$pairs" | awk '$1 == "NEWONLY" { print "new file, no counterpart in " ref ": " $2 }' ref="$REF"
comm -23 <(sed 's|.*/||' "$T/ref.list" | sort) <(sed 's|.*/||' "$T/new.list" | sort) |
  sed "s/^/gone from the new tree (not compared): /"
status=0
for c in "${configs[@]}"; do
  name=${c%%|*}
  same=0 ws=0 path=0 differ=0 failed=0
  while read -r f rf; do
    [ "$f" = NEWONLY ] && continue
    a="$T/out/$name/ref/${f//\//_}" b="$T/out/$name/new/${f//\//_}"
    if [ "$(cat "$a")" = FAILED ] && [ "$(cat "$b")" = FAILED ]; then
      failed=$((failed + 1))
    elif cmp -s "$a" "$b"; then
      same=$((same + 1))
    elif [ "$f" != "$rf" ] && cmp -s "$a" <(sed "s|\"$f\"|\"$rf\"|g" "$b"); then
      path=$((path + 1)) # a moved file: its own __FILE__ names the new path
    elif cmp -s <(tr -s '[:space:]' '\n' <"$a") <(tr -s '[:space:]' '\n' <"$b"); then
      ws=$((ws + 1))
    else
      differ=$((differ + 1)) status=1
      echo "DIFFERS: $name $f (ref: $rf)"
      diff "$a" "$b" | head -n 10
    fi
  done <<<"$pairs"
  echo "$name: $same same, $ws same but for whitespace, $path same but for the moved file's own path (__FILE__), $differ differ, $failed not preprocessed in either tree"
done
exit $status
