#!/usr/bin/env bash
# Suite: the OpenMP reduction forms of the host compilers (issue 25 item 1).
# tests/compilers/omp_cond_reduce.c (plain OpenMP) runs every reduction form
# on bodies that store and reduce under a condition, against the serial
# loop. Checked: each compiler gets right the form that TDP_TLP_REDUCE uses
# with it (gcc: omp parallel for simd; clang: omp parallel for over chunks +
# omp simd, since clang 14 and 16 miscompile `omp for simd` with a
# reduction there). The other forms' outcome is printed, not counted: a
# clang that gets `omp parallel for simd` right again shows up here.
# Contract: tests/README.md.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
OUTD=build/test-compilers
mkdir -p "$OUTD"
# Every clang on PATH is checked, not only `clang`: a user has Debian's
# newest too (bookworm's clang-22 left the edge rows scalar where clang 14
# vectorised them, issue 28); scripts/install_deps.sh installs it where the
# archive has it.
# (one name per binary: clang-14 is `clang` on bookworm).
CLANGS=$(
  { command -v clang >/dev/null 2>&1 && echo clang
    compgen -c clang- | grep -E '^clang-[0-9]+$' | sort -u -t- -k2,2n; } |
    while read -r c; do echo "$(readlink -f "$(command -v "$c")") $c"; done |
    awk '!seen[$1]++ {printf "%s ", $2}')
SRC=tests/compilers/omp_cond_reduce.c
for cc in gcc ${CLANGS:-clang}; do
  form=pfs
  [ "${cc%%-*}" = clang ] && form=chunk
  name="$cc: the layer's in-kernel reduction form ($form) on conditional bodies"
  if ! command -v $cc >/dev/null 2>&1 ||
     ! echo 'int main(void){return 0;}' | $cc -fopenmp -x c - -o /dev/null 2>/dev/null; then
    echo "ok - $name # SKIP no $cc with OpenMP"
    continue
  fi
  bin=$OUTD/omp_cond_reduce_$cc
  if ! $cc -O3 -march=native -fopenmp -Wall -Wextra $([ "${cc%%-*}" = clang ] && echo -Wno-pass-failed) \
       "$SRC" -o "$bin" >"$bin.build.log" 2>&1; then
    echo "not ok - $name (build failed)"
    head -n 15 "$bin.build.log"
    continue
  fi
  if OMP_NUM_THREADS=2 "$bin" "$form" >"$bin.log" 2>&1; then
    echo "ok - $name"
  else
    echo "not ok - $name"
  fi
  sed "s/^/  [$cc] /" "$bin.log"
done

# clang_compile NAME LOG ARGS...: compile with $CC (a clang) and the default
# build's flags plus ARGS, compiler output in LOG. Prints the SKIP line (no
# such clang with OpenMP) or the failure of check NAME and returns 1; returns
# 0 when there is code to judge.
clang_compile() {
  local name=$1 log=$2
  shift 2
  # compile only: these checks judge code, not a run (clang-22 comes without
  # its libomp where clang 14's is installed: the two conflict)
  if ! command -v "$CC" >/dev/null 2>&1 ||
     ! echo 'int main(void){return 0;}' | $CC -fopenmp -x c -c - -o /dev/null 2>/dev/null; then
    echo "ok - $name # SKIP no $CC with OpenMP"
    return 1
  fi
  if ! $CC -std=c99 -O3 -march=native -fopenmp -Wall -Wextra -Wno-pass-failed -I. -ItargetDP \
       -DTARGETDP_SOA -DVVL=8 -DSAL=8 -DTDP_NO_LEGACY_NAMES "$@" >"$log" 2>&1; then
    echo "not ok - $name (compile failed)"
    head -n 15 "$log"
    return 1
  fi
}

# vec_remarks FILE MARKER LOG: "W I" (vectorisation width, interleave count)
# of each -Rpass=loop-vectorize remark in LOG on the line of FILE that holds
# MARKER ("file:LINE:COL: remark: vectorized loop (vectorization width: W,
# interleaved count: I)").
vec_remarks() {
  local line
  line=$(grep -n "$2" "$1" | head -n 1 | cut -d: -f1)
  grep "$(basename "$1"):$line:.*vectorized loop" "$3" |
    sed 's/.*width: \([0-9]*\), interleaved count: \([0-9]*\).*/\1 \2/'
}

for CC in ${CLANGS:-clang}; do
  # clang: a lane loop calling a TDP_INLINE helper with an argument it does
  # not read vectorises without a run-time alias check (issue 28: clang 14's
  # dead-argument elimination dropped the loop pragma's assume_safety from the
  # inlined body, and every VVL stride paid an alias check; TDP_INLINE's
  # "used" keeps the arguments). Judged on the LLVM IR of the default build's
  # flags: no "vector.memcheck" block, vector loads of doubles (clang 14 keeps a
  # "vector.body" loop; clang 22 folds the one-trip vector loop of a stride away).
  SRC=tests/compilers/inline_dead_arg.c
  name="$CC: a TDP_INLINE helper with an unread argument keeps the lane loop free of alias checks"
  ll=$OUTD/inline_dead_arg-$CC.ll
  if clang_compile "$name" "$ll.build.log" -S -emit-llvm -fno-discard-value-names "$SRC" \
       -o "$ll"; then
    nmem=$(grep -c '^vector\.memcheck[0-9]*:' "$ll")
    nvec=$(grep -c 'load <[0-9]* x double>' "$ll")
    if [ "$nmem" = 0 ] && [ "$nvec" -ge 1 ]; then
      echo "ok - $name"
    else
      echo "not ok - $name ($nmem alias-check blocks, $nvec vector loads in $ll)"
    fi
  fi

  # clang: the stencil-with-walls loop's rows (TDP_TLP_3D_EDGE) are as wide as
  # clang's own "omp simd" loop of the same update and interleaved 4 times (16
  # sites an iteration at width 4): "omp simd simdlen(8)" made them 8 wide,
  # interleaved 4, and clang's heat3d port ran at 0.87-0.94 of its native on
  # one thread (issue 28, targetDP_C.h TDP_EDGE_IC_). Judged on the
  # -Rpass=loop-vectorize remarks of the default build's flags.
  SRC=tests/compilers/edge_row_width.c
  name="$CC: an edge row is vectorised at clang's own width, interleaved 4 times"
  log=$OUTD/edge_row_width-$CC.remarks
  if clang_compile "$name" "$log" -Rpass=loop-vectorize -c "$SRC" -o "$OUTD/edge_row_width-$CC.o"; then
    native=$(vec_remarks "$SRC" NATIVE_ROW "$log" | head -n 1)
    edge=$(vec_remarks "$SRC" EDGE_ROW "$log" | sort -u)
    nw=${native%% *}
    if [ -n "$native" ] && [ -n "$edge" ] && [ "$edge" = "$nw 4" ]; then
      echo "ok - $name"
    else
      echo "not ok - $name (native row: width ${nw:-none}; edge row, width and" \
           "interleave: $(echo $edge))"
    fi
  fi

  # clang: the reduction loops (a box sum's rows: the corpus's jacobi2d port,
  # which reduce_row_ic.c includes; a 1-D sum's chunks) are interleaved
  # TDP_REDUCE_IC_ (4) times: left to itself clang interleaved the Jacobi
  # residual half as often as its native loop, the lane's one-trip loop
  # inflating its register estimate (issue 28, targetDP_C.h).
  SRC=tests/compilers/reduce_row_ic.c
  name="$CC: a box sum's rows and a 1-D sum are vectorised and interleaved 4 times"
  log=$OUTD/reduce_row_ic-$CC.remarks
  if clang_compile "$name" "$log" -Rpass=loop-vectorize -c "$SRC" -o "$OUTD/reduce_row_ic-$CC.o"; then
    ics() { vec_remarks "$1" "$2" "$log" | cut -d' ' -f2 | sort -u | tr '\n' ' '; }
    box=$(ics benchmarks/corpus/jacobi2d.c "TDP_TLP_2D_SUM(box") flat=$(ics "$SRC" FLAT_ROW)
    if [ "$box" = "4 " ] && [ "$flat" = "4 " ]; then
      echo "ok - $name"
    else
      echo "not ok - $name (interleave counts: box row ${box:-not vectorised}, 1-D ${flat:-not vectorised})"
    fi
  fi
done
exit 0
