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
          valgrind pkg-config)

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

missing=()
for p in "${PACKAGES[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
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
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

still=()
for p in "${missing[@]}"; do
  installed "$p" || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
  echo "install_deps: could not install: ${still[*]}" >&2
  exit 1
fi
echo "install_deps: done"
