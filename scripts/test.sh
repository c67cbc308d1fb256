#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's second command: sets up everything and runs the whole test suite.
#   scripts/test.sh [extra ctest options, e.g. -R invariant]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j "${RSIM_JOBS:-$(nproc)}" "$@"
