#!/usr/bin/env bash
# The twenty-second session, first campaign: the ranks path's buffers allocated between the own
# block's first launches (one after another while a launch runs) and triangles.csv formatted on
# all cores, against 3338d8a; one GPU against two, three repeats, K cache off
# (scripts/device/two-gpus-ab.sh); then the whole suite under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c71.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-3338d8a OLD_DEVICES=0,1 SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c71.txt" | cut -c1-200
(cd "$OUT" && tar czf c71-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c71-machine.txt"; nproc >> "$OUT/c71-machine.txt"
OUT=$OUT/tests timeout 300 bash scripts/device/gpu-run.sh tests > "$OUT/tests.txt" 2>&1; echo "tests exit $?"; tail -4 "$OUT/tests.txt"
