#!/usr/bin/env bash
# Install the Debian/Ubuntu packages that targetDP's build, tests, apps and
# plots need. Idempotent and silent when everything is already installed.
# As root it installs what is missing (apt-get update + install); as
# another user it prints the command to run and fails.
#
# TDP_SKIP_DEPS=1 skips the check (a machine that cannot install packages
# but has what it needs some other way).
set -euo pipefail

PACKAGES=(build-essential libcmocka-dev openmpi-bin libopenmpi-dev python3-matplotlib
          valgrind pkg-config cmake)
# The fuzz suite's compiler (clang with libFuzzer and the sanitizer runtimes;
# Debian bookworm names). Optional: where they cannot be installed the
# suite reports itself skipped instead of failing the whole run.
# libomp-dev: OpenMP for clang and clang++ (the clang-openmp preset, the C++ test
# configuration with clang++).
# clang-22: Debian's newest clang (bookworm's security updates), whose code
# tests/suites/compilers.sh checks beside clang 14's (it left the edge rows
# scalar where clang 14 vectorised them, issue 28). Not libomp-22-dev: it
# conflicts with libomp-dev (clang 14's), and those checks only compile.
OPTIONAL=(clang libclang-rt-14-dev libomp-dev clang-22)

if [ "${TDP_SKIP_DEPS:-0}" = 1 ]; then
  exit 0
fi

if ! command -v dpkg >/dev/null 2>&1; then
  echo "install_deps: no dpkg (not Debian/Ubuntu): install the equivalents of" \
       "${PACKAGES[*]}, then run with TDP_SKIP_DEPS=1" >&2
  exit 1
fi

installed() {
  dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}

# install_optional: best effort, as root, for the packages the archive has.
install_optional() {
  local want=() p
  for p in "${OPTIONAL[@]}"; do
    installed "$p" && continue
    if [ "$(id -u)" -ne 0 ]; then
      echo "install_deps: optional package $p is missing (the suites that use it will be skipped)" >&2
      continue
    fi
    want+=("$p")
  done
  [ ${#want[@]} -eq 0 ] && return 0
  export DEBIAN_FRONTEND=noninteractive
  [ -n "${updated:-}" ] || apt-get update -qq >/dev/null 2>&1 || true
  for p in "${want[@]}"; do
    if apt-cache show "$p" >/dev/null 2>&1 &&
       apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1; then
      echo "install_deps: installed optional $p"
    else
      echo "install_deps: optional package $p is not available here (the suites that use it will be skipped)" >&2
    fi
  done
  return 0
}

missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  install_optional
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install_deps: missing Debian packages: ${missing[*]}" >&2
  echo "install_deps: run as root:  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
updated=1
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

still=()
for p in "${missing[@]}"; do
  installed "$p" || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
  echo "install_deps: could not install: ${still[*]}" >&2
  exit 1
fi
install_optional
echo "install_deps: done"
