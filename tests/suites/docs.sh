#!/usr/bin/env bash
# Suite: every command in the guides runs (issue 14: no command in the docs
# that nothing runs). Each ```sh block of docs/porting.md, docs/tuning.md
# and docs/migration.md is one check, run with `bash -e` from the repository
# root with HOME set to a temporary directory (the guides install under
# $HOME); the `export` lines of the earlier blocks of the same guide are
# run first, as a reader's shell would still have them. A block that uses
# nvcc is skipped where there is none. The guides may show other fenced
# blocks only as code (c, cpp, make, cmake, text), never as unrun shell.
# Contract: tests/README.md.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL GNUMAKEFLAGS
T=$(mktemp -d "${TMPDIR:-/tmp}/tdp-docs.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
NVCC_BIN=$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC_BIN" ] && export PATH="$(dirname "$NVCC_BIN"):$PATH"
REPO=$(pwd)

for doc in docs/porting.md docs/tuning.md docs/migration.md; do
  [ -f "$doc" ] || { echo "not ok - $doc exists"; continue; }
  # Fenced blocks: language and first line number; only sh blocks are run.
  bad=$(awk '/^```/ { if (!inb) { inb = 1; lang = substr($0, 4);
                        if (lang !~ /^(sh|c|cpp|make|cmake|text)$/) print FILENAME ":" NR ": ```" lang }
                      else inb = 0 }' "$doc")
  if [ -n "$bad" ]; then
    echo "not ok - $doc: every fenced block is sh (run here) or code (c, cpp, make, cmake, text)"
    echo "$bad"
  else
    echo "ok - $doc: every fenced block is sh (run here) or code"
  fi
  rm -f "$T"/block.*
  awk -v out="$T/block" '
    /^```sh$/ { inb = 1; n++; printf "%d\n", NR > (out "." n ".line"); next }
    /^```/ { inb = 0; next }
    inb { print > (out "." n ".sh") }' "$doc"
  exports=""
  n=1
  while [ -f "$T/block.$n.sh" ]; do
    line=$(cat "$T/block.$n.line")
    name="$doc: command block at line $line runs"
    if grep -qw nvcc "$T/block.$n.sh" && [ ! -x "$NVCC_BIN" ]; then
      echo "ok - $name # SKIP no nvcc"
    else
      mkdir -p "$T/home"
      if (cd "$REPO" && HOME="$T/home" bash -e -c "$exports"$'\n'"$(cat "$T/block.$n.sh")") \
           >"$T/out" 2>&1; then
        echo "ok - $name"; [ -n "${TDP_DOCS_VERBOSE:-}" ] && sed "s/^/    /" "$T/out"
      else
        echo "not ok - $name"
        sed 's/^/    /' "$T/block.$n.sh"
        echo "    ---- output"
        tail -n 20 "$T/out" | sed 's/^/    /'
      fi
    fi
    exports="$exports"$'\n'"$(grep -E '^export ' "$T/block.$n.sh" || true)"
    n=$((n + 1))
  done
done
exit 0
