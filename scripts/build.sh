#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs missing dependencies, then configures and builds rsim in build/ (Release).
#   scripts/build.sh [extra cmake -D options...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=${RSIM_JOBS:-$(nproc)}
if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
elif [[ $# -gt 0 ]]; then
  cmake build "$@"
fi
cmake --build build -j "$jobs"
