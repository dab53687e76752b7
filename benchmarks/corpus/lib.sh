# benchmarks/corpus/lib.sh -- sourced by run_bench.sh and run_device.sh
# (from the repository root, with $out set and an array `failed`): build
# the corpus with one compiler, run one timing pass of it.

# corpus_build CC: build bench_corpus with compiler CC (gcc: the gcc-openmp
# preset; a clang: clang-openmp with CC=it) into build/corpus-CC; on
# success append "CC folder" to the array `builds`. A clang whose OpenMP
# runtime is not where it looks: CLANG_OMP_ROOT_<CC, - as _>=.../llvm-NN
# (omp.h under lib/clang/*/include, libomp.so in lib).
corpus_build() {
  local cc=$1 dir=build/corpus-$1 ok=0 root_var root inc
  local args=(BUILD="$dir")
  if [ "${cc%%-*}" = gcc ]; then
    args+=(CONFIG=gcc-openmp CC="$cc")
  else
    args+=(CONFIG=clang-openmp)
    root_var=CLANG_OMP_ROOT_${cc//-/_}
    root=${!root_var:-}
    if [ -n "$root" ]; then
      inc=$(dirname "$(ls "$root"/lib/clang/*/include/omp.h | head -n 1)")
      args+=(CC="$cc -isystem $inc" CLANG_OMP_LIB="$root/lib")
    else
      args+=(CC="$cc")
    fi
  fi
  echo "=== build $cc: make ${args[*]} corpus-build"
  make -s -j"$(nproc)" "${args[@]}" corpus-build >"$out/build-$cc.log" 2>&1 && ok=1
  # clang 16 announces OpenMP 5.0 (_OPENMP 201811) and refuses "omp atomic
  # compare" (5.1) unless asked for 5.1. targetDP_atomics.h no longer emits
  # it where its compare-and-swap is the compilers' builtin (clang >= 16;
  # 2026-11-27: the layer's and the corpus's sources compile with clang 16
  # at its default version), so this retry should not fire; it stays so
  # that a run still measures clang 16 if it does.
  if [ "$ok" = 0 ] && grep -q "unexpected OpenMP clause 'compare'" "$out/build-$cc.log"; then
    echo "=== $cc refuses 'omp atomic compare' at its default OpenMP version: again with -fopenmp-version=51"
    args=("${args[@]/#CC=$cc/CC=$cc -fopenmp-version=51}")
    make -s -j"$(nproc)" "${args[@]}" corpus-build >"$out/build-$cc.log" 2>&1 && ok=1
  fi
  if [ "$ok" = 1 ]; then
    builds+=("$cc $dir")
  else
    echo "=== FAILED: build $cc (log: $out/build-$cc.log)"
    grep -m 5 -E 'error|Error' "$out/build-$cc.log"
    failed+=("build $cc")
  fi
}

# corpus_run FOLDER NAME THREADS [bench_corpus options]: one pass of every
# shape, its CSV rows into $out/corpus.csv, its output into $out/run-NAME.log.
# THREADS empty: a GPU build. The OpenMP wait policy is the runtime's own
# (what a user gets) unless OMP_WAIT_POLICY is set.
corpus_run() {
  local dir=$1 name=$2 t=$3 log=$out/run-$2.log
  shift 3
  local envs=(TARGETDP_QUIET=1)
  [ -n "$t" ] && envs+=(OMP_NUM_THREADS="$t" OMP_PROC_BIND=close OMP_PLACES=cores)
  echo "=== [$(($(date +%s) - ${t0:-$(date +%s)})) s] $name: $dir/bench_corpus $*"
  if env "${envs[@]}" timeout -k 10 "${CORPUS_RUN_TIMEOUT:-300}" "$dir/bench_corpus" "$@" \
       --csv "$out/corpus.csv" >"$log" 2>&1; then
    return 0
  fi
  echo "=== FAILED: $name (log: $log)"
  grep -E 'FAILED|wrong|error' "$log" | head -n 5
  failed+=("$name")
  return 1
}

# corpus_table: plot.py's tables of $out/corpus.csv into corpus.md (and the
# chart where matplotlib is); prints the compact summary (the tables with
# CORPUS_FULL_TABLE=1).
corpus_table() {
  local py=/usr/bin/python3 plot=()
  [ -x "$py" ] || py=python3
  [ -s "$out/corpus.csv" ] || { echo "=== no corpus.csv"; return 1; }
  "$py" -c 'import matplotlib' 2>/dev/null && plot=(--out "$out/corpus.png")
  if "$py" benchmarks/corpus/plot.py "$out/corpus.csv" --markdown "$out/corpus.md" "${plot[@]}" \
       --summary; then
    [ "${CORPUS_FULL_TABLE:-0}" = 1 ] && cat "$out/corpus.md"
  else
    failed+=("plot.py")
  fi
}

# corpus_clang: put the carried clang (the .deb files of scripts/clang_carry.sh
# in CORPUS_CLANG_DEBS, default .deps/clang: clang 14, or the version
# fetched) first in PATH where it was carried; returns 1 if its unpacking
# failed (log: $out/clang-unpack.log) or CORPUS_CLANG_DEBS names a folder
# without .deb files (a typo would otherwise time another clang), 0
# otherwise (no .deps/clang: the machine's clang, if any).
corpus_clang() {
  local debs=${CORPUS_CLANG_DEBS:-.deps/clang} root
  if ! ls "$debs"/*.deb >/dev/null 2>&1; then
    [ -z "${CORPUS_CLANG_DEBS:-}" ] && return 0
    echo "=== FAILED: CORPUS_CLANG_DEBS=$debs holds no .deb files"
    return 1
  fi
  root=${CLANG_ROOT:-$PWD/build/carried-$(basename "$debs")}
  if scripts/clang_carry.sh unpack "$debs" "$root" >"$out/clang-unpack.log" 2>&1; then
    # shellcheck disable=SC1091
    . "$root/env.sh"
    return 0
  fi
  echo "=== FAILED: unpacking the carried clang (log: $out/clang-unpack.log)"
  return 1
}
