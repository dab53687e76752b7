# Sourced by scripts/same_objects.sh and scripts/same_preprocessed.sh: the
# two trees they compare, the configurations kept, and the file pairs.
# Run from the repository root; REF, NEW, ONLY, FILES as those scripts say.

# $T/ref = REF; $T/new = NEW, or the working tree as it is (tracked and
# untracked files that git does not ignore). T is removed on exit.
same_trees_unpack() {
  T=$(mktemp -d)
  trap 'rm -rf "$T"' EXIT
  mkdir -p "$T/ref" "$T/new"
  git archive "$REF" | tar -x -C "$T/ref" || exit 2
  if [ -n "$NEW" ]; then
    git archive "$NEW" | tar -x -C "$T/new" || exit 2
  else
    git ls-files -co --exclude-standard -z | tar --null -T - -c | tar -x -C "$T/new" || exit 2
  fi
  NVCC_BIN=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
  MPI_INC=$(mpicc --showme:compile 2>/dev/null)
}
have() { command -v "$1" >/dev/null 2>&1; }

# configs (name|...): only those whose name matches ONLY, when set
same_keep_only() {
  [ -n "${ONLY:-}" ] || return 0
  local kept=() c
  for c in "${configs[@]}"; do [[ ${c%%|*} =~ $ONLY ]] && kept+=("$c"); done
  configs=("${kept[@]}")
}

# Pairs "new-path ref-path" of the .c/.cu/.cpp files that name targetDP
# (FILES=regex: only those): the same path, else the one file of that name
# in REF (a file that moved, e.g. into targetDP/); "NEWONLY path" if none.
same_pairs() {
  tracked() { (cd "$1" && find . \( -name '*.c' -o -name '*.cu' -o -name '*.cpp' \) -type f |
               sed 's|^\./||' | while read -r f; do grep -q targetDP "$f" && echo "$f"; done) | sort; }
  tracked "$T/ref" >"$T/ref.list"
  tracked "$T/new" >"$T/new.list"
  local f m
  while read -r f; do
    [[ -n "${FILES:-}" && ! $f =~ $FILES ]] && continue
    if [ -f "$T/ref/$f" ]; then echo "$f $f"; continue; fi
    m=$(grep -E "(^|/)$(basename "$f")\$" "$T/ref.list")
    if [ "$(echo "$m" | grep -c .)" = 1 ]; then echo "$f $m"; else echo "NEWONLY $f"; fi
  done <"$T/new.list"
}
