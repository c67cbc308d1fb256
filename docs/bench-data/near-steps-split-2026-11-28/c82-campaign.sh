#!/usr/bin/env bash
# The twenty-third session, fifth campaign: the whole suite under the validation layer at 1bb3bc6.
set -uo pipefail
OUT=${OUT:-/tmp/out}
OUT=$OUT/tests timeout 500 bash scripts/device/gpu-run.sh tests > "$OUT/tests.txt" 2>&1; echo "tests exit $?"; tail -4 "$OUT/tests.txt"
