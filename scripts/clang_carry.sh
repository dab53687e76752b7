#!/usr/bin/env bash
# clang (14, or CLANG_CARRY_VERSION) + libomp for a machine with no clang
# and no apt (the lent GPU machine's host: Ubuntu 24.04, gcc 13, binutils,
# no network), from the Debian bookworm .deb files of the box you fetch on.
#
#   [CLANG_CARRY_VERSION=16] scripts/clang_carry.sh fetch DIR
#       here (Debian bookworm, as root): apt-get download the .deb files
#       into DIR (clang 14 about 42 MiB, clang 16 about 43 MiB: one fits
#       the device tool's 64 MiB carry beside the 15 MiB tree; DIR is
#       usually .deps/clang, which git ignores and the device tool carries).
#       Bookworm has 13 to 16, and 19 and 22 from its point and security
#       updates (clang 22 about 45 MiB: its libLLVM alone is 29 MiB, so
#       libz3 is not fetched for 19 and 22 and unpack puts a stub in its
#       place where the machine lacks it; the GPU machine's host has the
#       small libraries). libicu72 (for libxml2) is not fetched: a machine
#       without libxml2 is told which library is missing.
#   scripts/clang_carry.sh unpack DIR [ROOT]  there: dpkg -x (or ar + tar)
#       every DIR/*.deb into ROOT (default build/clangV of this repository,
#       V the version of DIR's clang-V .deb; about 250 MiB: never inside
#       the carried .deps), then write ROOT/env.sh and print it:
#         export PATH=ROOT/run/bin:$PATH CLANG_OMP_LIB=ROOT/usr/lib/llvm-V/lib
#       ROOT/run/bin/clang (and clang-V) runs the unpacked clang with
#       LD_LIBRARY_PATH=ROOT/run/lib for it alone; ROOT/run/lib holds libLLVM,
#       libclang-cpp, libomp and only those of their libraries the machine
#       lacks (libz3, libicu72, ...), so nothing shadows the machine's own.
#       clang finds its builtin headers (stddef.h, omp.h) from its binary:
#       ROOT/usr/lib/llvm-V/lib/clang/*/include. config/clang-openmp.mk
#       links -L$(CLANG_OMP_LIB) with an rpath, so the programs find libomp.
#       The machine's gcc installation (crt files, libgcc), glibc headers
#       and ld are used as clang uses them anywhere.
#   scripts/clang_carry.sh check ROOT         print which clang runs, its
#       version and resource folder, and compile and run an OpenMP test
set -euo pipefail

# clang's driver and libraries, libomp, and libllvm's runtime libraries
# that a newer distribution may lack or name differently (libz3-4, libicu72
# from libxml2); the rest are small and linked only where missing.
# fetch's version; unpack reads its own from the .deb files.
V=${CLANG_CARRY_VERSION:-14}
pkgs() {
  local omp=libomp5-$V
  case "$V" in
  1[3-6]) ;;
  # 19 and 22 came later; 22's libomp-22-dev uses 19's runtime (libomp5-19)
  19 | 22) omp=libomp5-19 ;;
  *) die "CLANG_CARRY_VERSION=$V: bookworm has clang 13 to 16, 19 and 22" ;;
  esac
  PKGS=(clang-$V libclang-cpp$V libllvm$V libclang-common-$V-dev "$omp" libomp-$V-dev
    libxml2 libedit2 libbsd0 libmd0 libffi8 libtinfo6 liblzma5 zlib1g libelf1)
  # libz3 (7 MiB of .deb) only where the carry has room for it: clang 22's
  # libLLVM is 29 MiB, and with the tree (15 MiB) and libz3 the device
  # tool's 64 MiB were exceeded. unpack stubs it where the machine lacks it.
  case "$V" in
  19 | 22) ;;
  *) PKGS+=(libz3-4) ;;
  esac
}

die() { echo "clang_carry: $*" >&2; exit 1; }

fetch() {
  local dir=$1
  pkgs
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  rm -f "$dir"/*.deb
  # apt-get download writes to the current folder
  (cd "$dir" && apt-get download "${PKGS[@]}")
  du -sh "$dir"
}

extract() { # extract DEB ROOT
  if command -v dpkg-deb >/dev/null 2>&1; then
    dpkg-deb -x "$1" "$2"
  else
    local t data
    t=$(mktemp -d)
    (cd "$t" && ar x "$1")
    data=$(ls "$t"/data.tar.*)
    tar -xf "$data" -C "$2"
    rm -rf "$t"
  fi
}

write_wrappers() { # ROOT
  local root=$1 name
  mkdir -p "$root/run/bin"
  for name in clang clang-$V; do
    cat >"$root/run/bin/$name" <<EOF
#!/bin/sh
# the clang unpacked by scripts/clang_carry.sh; its libraries for it alone
LD_LIBRARY_PATH="$root/run/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$root/usr/lib/llvm-$V/bin/clang" "\$@"
EOF
    chmod +x "$root/run/bin/$name"
  done
}

# missing ROOT: sonames the unpacked clang needs that neither the machine
# nor ROOT/run/lib provides
missing() {
  LD_LIBRARY_PATH="$1/run/lib" ldd "$1/usr/lib/llvm-$V/bin/clang" | awk '/not found/ {print $1}'
}

# stub_z3 ROOT: ROOT/run/lib/libz3.so.4, every Z3_ function libLLVM asks
# for, each stopping the program with a message. libLLVM links Z3 for the
# static analyzer's optional constraint solver (clang --analyze with
# -analyzer-constraints=z3); compiling and optimising never call it, and a
# function of a library is bound at its first call, so the stub is never
# entered by what the corpus builds. Built with the machine's cc.
stub_z3() {
  local root=$1 llvm c syms
  llvm=$(readlink -f "$root/run/lib/$(objdump -p "$root/usr/lib/llvm-$V/bin/clang" |
                                        awk '$1 == "NEEDED" && $2 ~ /^libLLVM/ {print $2}')")
  syms=$(nm -D --undefined-only "$llvm" | awk '$NF ~ /^Z3_/ {print $NF}')
  [ -n "$syms" ] || return 1
  c=$(mktemp -d)
  {
    echo '#include <stdio.h>'
    echo '#include <stdlib.h>'
    echo 'static void stop_(const char *f) { fprintf(stderr, "clang_carry: %s called: this clang'"'"'s libz3 is a stub (scripts/clang_carry.sh)\n", f); abort(); }'
    for s in $syms; do echo "void $s(void) { stop_(\"$s\"); }"; done
  } >"$c/z3.c"
  ${CC:-cc} -shared -fPIC -O1 -Wl,-soname,libz3.so.4 "$c/z3.c" -o "$root/run/lib/libz3.so.4" || return 1
  rm -rf "$c"
  echo "clang_carry: libz3.so.4: not on this machine nor carried; a stub of its $(echo "$syms" | wc -l) functions that libLLVM names"
}

link_lib() { # ROOT SONAME: link ROOT/run/lib/SONAME to the unpacked library
  local f
  for f in "$1"/usr/lib/x86_64-linux-gnu/"$2" "$1"/lib/x86_64-linux-gnu/"$2" \
    "$1"/usr/lib/llvm-$V/lib/"$2"; do
    if [ -e "$f" ]; then
      ln -sf "$(readlink -f "$f")" "$1/run/lib/$2"
      return 0
    fi
  done
  return 1
}

unpack() {
  local dir root deb soname n f
  dir=$(cd "$1" && pwd)
  ls "$dir"/*.deb >/dev/null 2>&1 || die "no .deb files in $dir (run: $0 fetch $1 on a Debian bookworm box)"
  # the version is the one of the driver's package, clang-V_*.deb
  f=$(ls "$dir"/clang-[0-9]*_*.deb 2>/dev/null | head -n 1 || true)
  [ -n "$f" ] || die "no clang-V_*.deb in $dir"
  V=$(basename "$f" | sed 's/^clang-\([0-9]*\)_.*/\1/')
  [ "$(ls "$dir"/clang-[0-9]*_*.deb | wc -l)" = 1 ] || die "more than one clang version in $dir"
  root=${2:-$(cd "$(dirname "$0")/.." && pwd)/build/clang$V}
  mkdir -p "$root"
  root=$(cd "$root" && pwd)
  rm -rf "$root/run/lib" "$root/run/bin"
  for deb in "$dir"/*.deb; do extract "$deb" "$root"; done
  mkdir -p "$root/run/lib"
  # the unpacked libLLVM and libclang-cpp (libLLVM-14.so.1 / libclang-cpp.so.14
  # to 16, libLLVM.so.22.1 / libclang-cpp.so.22.1 later: the names clang asks
  # for) and libomp, before the machine's own
  for soname in $(objdump -p "$root/usr/lib/llvm-$V/bin/clang" |
                  awk '$1 == "NEEDED" && $2 ~ /^lib(LLVM|clang-cpp)/ {print $2}') libomp.so.5; do
    link_lib "$root" "$soname" || die "$soname not in the unpacked files"
  done
  # the machine's own libraries where it has them; ours where it does not
  for _ in 1 2 3 4 5 6; do
    n=0
    for soname in $(missing "$root"); do
      if [ "$soname" = libz3.so.4 ] && ! link_lib "$root" "$soname"; then
        stub_z3 "$root" || die "libz3.so.4: needed, not on this machine nor in $dir, and no stub"
        n=$((n + 1))
        continue
      fi
      link_lib "$root" "$soname" || die "$soname: needed, not on this machine nor in $dir"
      echo "clang_carry: $soname from the .deb files (not on this machine)"
      n=$((n + 1))
    done
    [ "$n" = 0 ] && break
  done
  write_wrappers "$root"
  # a library the machine has in an older version than libLLVM needs: fall
  # back to all of ours
  if ! "$root/run/bin/clang" --version >/dev/null 2>&1; then
    echo "clang_carry: clang does not start with the machine's libraries; using all unpacked ones"
    for f in "$root"/usr/lib/x86_64-linux-gnu/*.so.[0-9]* "$root"/lib/x86_64-linux-gnu/*.so.[0-9]*; do
      [ -e "$f" ] && ln -sf "$(readlink -f "$f")" "$root/run/lib/$(basename "$f")"
    done
    "$root/run/bin/clang" --version >/dev/null || die "the unpacked clang does not start"
  fi
  cat >"$root/env.sh" <<EOF
export PATH="$root/run/bin:\$PATH" CLANG_OMP_LIB="$root/usr/lib/llvm-$V/lib"
EOF
  echo "clang_carry: unpacked into $root; to use it:"
  echo ". $root/env.sh"
  cat "$root/env.sh"
}

check() { # ROOT: the clang in ROOT/run/bin first in PATH, an OpenMP program
  local root t
  root=$(cd "$1" && pwd)
  # shellcheck disable=SC1091
  . "$root/env.sh"
  echo "command -v clang: $(command -v clang)"
  clang --version | head -n 1
  echo "resource dir: $(clang -print-resource-dir)"
  t=$(mktemp -d)
  cat >"$t/omp.c" <<'EOF'
#include <omp.h>
#include <stdio.h>
#include <stddef.h>
int main(void) {
  int n = 0;
#pragma omp parallel reduction(+ : n)
  n += 1;
  printf("omp threads: %d (max %d)\n", n, omp_get_max_threads());
  return n < 1;
}
EOF
  clang -O2 -fopenmp "$t/omp.c" -o "$t/omp" -L"$CLANG_OMP_LIB" -Wl,-rpath,"$CLANG_OMP_LIB"
  "$t/omp"
  echo "libomp loaded: $(LD_DEBUG=libs "$t/omp" 2>&1 | sed -n 's/.*calling init: \(.*libomp.*\)/\1/p' | head -n 1)"
  echo "libLLVM loaded: $(LD_DEBUG=libs clang --version 2>&1 | sed -n 's/.*calling init: \(.*libLLVM.*\)/\1/p' | head -n 1)"
  rm -rf "$t"
}

case "${1:-}" in
fetch) [ $# = 2 ] || die "usage: $0 fetch DIR"; fetch "$2" ;;
unpack) [ $# -ge 2 ] || die "usage: $0 unpack DIR [ROOT]"; unpack "$2" "${3:-}" ;;
check) [ $# = 2 ] || die "usage: $0 check ROOT"; check "$2" ;;
*) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
