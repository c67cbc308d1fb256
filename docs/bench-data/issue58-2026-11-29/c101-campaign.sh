#!/usr/bin/env bash
# Issue 58's restructuring (72e0f5a) on one H200: the whole Catch2 suite under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .device/prelude.sh
OUT=/tmp/tests-out timeout 540 bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1; echo "tests exit $?"
tail -5 /tmp/tests.txt
grep -E "FAILED|failed" /tmp/tests-out/gpu-tests.txt | head -20
cat /tmp/tests.txt /tmp/tests-out/gpu-tests.txt 2>/dev/null | gzip -c > "$OUT/h200-tests-c101.txt.gz"
