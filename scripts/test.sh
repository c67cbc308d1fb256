#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's second command: sets up everything and runs the whole test suite, then the
# same suite's CPU tests under AddressSanitizer + UndefinedBehaviorSanitizer and a short fuzzing
# run of every fuzz target (docs/reliability.md).
#   scripts/test.sh [extra ctest options, e.g. -R invariant]
#   RSIM_QUICK_TEST=1 scripts/test.sh    the normal suite only
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
(cd build && ctest --output-on-failure -j "${RSIM_JOBS:-$(nproc)}" "$@")
if [[ -z ${RSIM_QUICK_TEST:-} ]]; then
  scripts/sanitize.sh "$@"
  scripts/fuzz.sh --seconds "${RSIM_FUZZ_SECONDS:-40}"
fi
