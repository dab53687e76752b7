#!/usr/bin/env bash
# Checks that a change to the layer's headers leaves every translation unit
# preprocessing to the same tokens: each tracked .c/.cu/.cpp that names
# targetDP is preprocessed in the tree of REF (default HEAD) and in the
# working tree, line markers and blank lines removed, and the two compared,
# in several configurations (layouts, VVL, checked, ILP simd, profile, C++,
# clang, nvcc). Moving a section of targetDP.h into a header included at
# the same point must give "same" for all of them.
#   scripts/same_preprocessed.sh [REF]      (-j via JOBS, default 2;
#   ONLY=regex keeps the configurations whose name matches)
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
REF=${1:-HEAD}
JOBS=${JOBS:-2}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/ref" "$T/new"
git archive "$REF" | tar -x -C "$T/ref" || exit 2
# The working tree as it is (tracked and untracked files not ignored).
git ls-files -co --exclude-standard -z | tar --null -T - -c | tar -x -C "$T/new" || exit 2

NVCC_BIN=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
MPI_INC=$(mpicc --showme:compile 2>/dev/null)
have() { command -v "$1" >/dev/null 2>&1; }

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

if [ -n "$ONLY" ]; then
  kept=()
  for c in "${configs[@]}"; do [[ ${c%%|*} =~ $ONLY ]] && kept+=("$c"); done
  configs=("${kept[@]}")
fi

files=$(git ls-files '*.c' '*.cu' '*.cpp' | while read -r f; do
  [ -f "$T/new/$f" ] && grep -q targetDP "$T/new/$f" && echo "$f"; done)

# One TU in one tree: normalised preprocessed text, or FAILED.
pp() { # tree cfgname cmd file
  local tree=$1 name=$2 cmd=$3 f=$4 out
  out="$T/out/$name/$tree/${f//\//_}"
  mkdir -p "$(dirname "$out")"
  (cd "$T/$tree" && $cmd -I. $MPI_INC "$f" 2>/dev/null) |
    sed -e '/^#[[:space:]]*[0-9]/d' -e '/^#line/d' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' \
        -e '/^$/d' >"$out" || true
  [ -s "$out" ] || echo FAILED >"$out"
}
export -f pp
export T MPI_INC
for c in "${configs[@]}"; do
  name=${c%%|*} cmd=${c#*|}
  for f in $files; do
    printf '%s\0%s\0%s\0%s\0' ref "$name" "$cmd" "$f"
    printf '%s\0%s\0%s\0%s\0' new "$name" "$cmd" "$f"
  done
done | xargs -0 -n 4 -P "$JOBS" bash -c 'pp "$@"' _

status=0
for c in "${configs[@]}"; do
  name=${c%%|*}
  same=0 ws=0 differ=0 failed=0
  for f in $files; do
    a="$T/out/$name/ref/${f//\//_}" b="$T/out/$name/new/${f//\//_}"
    if [ "$(cat "$a")" = FAILED ] && [ "$(cat "$b")" = FAILED ]; then
      failed=$((failed + 1))
    elif cmp -s "$a" "$b"; then
      same=$((same + 1))
    elif cmp -s <(tr -s '[:space:]' '\n' <"$a") <(tr -s '[:space:]' '\n' <"$b"); then
      ws=$((ws + 1))
    else
      differ=$((differ + 1)) status=1
      echo "DIFFERS: $name $f"
      diff "$a" "$b" | head -n 10
    fi
  done
  echo "$name: $same same, $ws same but for whitespace, $differ differ, $failed not preprocessed in either tree"
done
exit $status
