#!/usr/bin/env bash
# The twenty-second session, sixth campaign: the review's final code (the ranks path's first
# launches through castVisibilityRows) against c71's build, one repeat of the large room and
# industry on one GPU and two (scripts/device/two-gpus-ab.sh); then the whole suite.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c72.tgz -C /tmp/variants
OUT=$OUT REPS=1 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-c71 OLD_DEVICES=0,1 SCENES=large-room,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c76.txt" | cut -c1-200
(cd "$OUT" && tar czf c76-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c76-machine.txt"; nproc >> "$OUT/c76-machine.txt"
OUT=$OUT/tests timeout 280 bash scripts/device/gpu-run.sh tests > "$OUT/tests.txt" 2>&1; echo "tests exit $?"; tail -4 "$OUT/tests.txt"
