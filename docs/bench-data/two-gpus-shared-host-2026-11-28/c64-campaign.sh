#!/usr/bin/env bash
# The twenty-first session, first campaign: two devices' far sums through host memory both
# import (the working tree, the bundle with the tests) against 1ccafd8, one GPU against two,
# three repeats, K cache off (scripts/device/two-gpus-ab.sh); then the whole suite under the
# validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c64.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-1ccafd8 OLD_DEVICES=0,1 SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c64.txt" | cut -c1-200
(cd "$OUT" && for f in mg-*0x1-*.log; do echo "$f: $(grep -E "far sums|radiosity:|transport's buffers" "$f" | sed -E 's/^\[[a-z]+\] [0-9:.]+ //' | cut -c1-190 | tr '\n' '|')"; done > c64-devices.txt; tar czf c64-logs.tgz mg-*.log && rm -f mg-*.log)
cat "$OUT/c64-devices.txt" | cut -c1-600 | head -12
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c64-machine.txt"; nproc >> "$OUT/c64-machine.txt"
OUT=$OUT/tests timeout 330 bash scripts/device/gpu-run.sh tests 2>&1 | tail -5
