#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs every package rsim needs to build, test and run on Debian bookworm, idempotently.
# Adds the bookworm-backports source when it is missing (Catch2 v3 and Mesa >= 24.1, whose
# lavapipe driver has the ray-tracing extensions the Vulkan tests need).
#
#   scripts/install-deps.sh            install what is missing (uses sudo when not root)
#   scripts/install-deps.sh --check    only report what is missing; exit 1 if anything is
set -euo pipefail

# Packages from bookworm itself. libboost-dev: Boost.Math's chi-square distribution for the tests of
# the BSDFs' sampling (tests/test_bsdf.cpp), header-only.
MAIN_PKGS=(
  cmake ninja-build g++ pkg-config
  libvulkan-dev libvulkan-volk-dev glslang-tools spirv-tools
  libglm-dev libassimp-dev libcli11-dev libspdlog-dev libembree-dev libhdf5-dev
  libtomlplusplus-dev nlohmann-json3-dev libpng-dev libxxhash-dev zlib1g-dev libisal-dev libopenexr-dev
  vulkan-validationlayers vulkan-tools
  python3 python3-numpy python3-h5py python3-matplotlib
  python3-dev pybind11-dev python3-pybind11 python3-pip python3-pytest
  clang libclang-rt-14-dev
  libopenmpi-dev openmpi-bin
  libboost-dev
)
# Packages that must come from bookworm-backports, with the minimum version we need.
# scikit-build-core builds `pip install --no-build-isolation .` (python/, pyproject.toml).
BACKPORT_PKGS=(catch2 mesa-vulkan-drivers python3-scikit-build-core)
declare -A MIN_VERSION=([catch2]=3.0 [mesa-vulkan-drivers]=24.1 [python3-scikit-build-core]=0.5)

check_only=0
[[ ${1:-} == --check ]] && check_only=1

say() { printf 'install-deps: %s\n' "$*" >&2; }

if [[ -r /etc/os-release ]]; then
  . /etc/os-release
  if [[ ${VERSION_CODENAME:-} != bookworm ]]; then
    say "warning: this script targets Debian bookworm; this machine is ${PRETTY_NAME:-unknown}."
  fi
fi

# Prints the installed version of package $1, or nothing. Never fails: dpkg-query exits
# non-zero for a package it has never seen, which must not stop this script under pipefail.
installed_version() { { dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null || true; } |
  awk '$1=="install" && $3=="installed" {print $4}'; }

missing=()
for p in "${MAIN_PKGS[@]}"; do
  [[ -n $(installed_version "$p") ]] || missing+=("$p")
done
missing_bp=()
for p in "${BACKPORT_PKGS[@]}"; do
  v=$(installed_version "$p")
  if [[ -z $v ]] || dpkg --compare-versions "$v" lt "${MIN_VERSION[$p]}"; then missing_bp+=("$p"); fi
done

if [[ ${#missing[@]} -eq 0 && ${#missing_bp[@]} -eq 0 ]]; then
  say "all dependencies are installed."
  exit 0
fi
if [[ $check_only -eq 1 ]]; then
  say "missing: ${missing[*]} ${missing_bp[*]}"
  exit 1
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { say "error: need root or sudo to install: ${missing[*]} ${missing_bp[*]}"; exit 1; }
  SUDO=(sudo)
fi

has_backports() {
  grep -rqsE '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}
if ! has_backports; then
  say "adding the bookworm-backports source (/etc/apt/sources.list.d/bookworm-backports.sources)"
  printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm-backports' \
    'Components: main' 'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
    "${SUDO[@]}" tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
fi

export DEBIAN_FRONTEND=noninteractive
say "apt-get update"
"${SUDO[@]}" apt-get update -q >/dev/null
if [[ ${#missing[@]} -gt 0 ]]; then
  say "installing: ${missing[*]}"
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
if [[ ${#missing_bp[@]} -gt 0 ]]; then
  say "installing from bookworm-backports: ${missing_bp[*]}"
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends -t bookworm-backports "${missing_bp[@]}" >/dev/null
fi
say "done."
