#!/usr/bin/env bash
# Issue 57's code (91d0eaf) on one H200: the whole suite under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .device/prelude.sh
OUT=/tmp/tests-out timeout 480 bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1; echo "tests exit $?"
tail -5 /tmp/tests.txt
grep -E "FAILED|failed" /tmp/tests-out/gpu-tests.txt | head -20
cat /tmp/tests.txt /tmp/tests-out/gpu-tests.txt 2>/dev/null | gzip -c > "$OUT/h200-tests-c97.txt.gz"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/c97-machine.txt"; nproc >> "$OUT/c97-machine.txt"
