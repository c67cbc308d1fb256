#!/usr/bin/env bash
# The twentieth session, third campaign: the near lists' pass in blocks of 2048 columns, the
# delay tested before K is read (the working tree, the bundle with the tests) against 0f6f7cf,
# on one GPU and on two, three repeats, K cache off (scripts/device/two-gpus-ab.sh); then the
# whole suite under the validation layer (scripts/device/gpu-run.sh tests).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c58.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-0f6f7cf NEW_DEVICES="0 0,1" OLD_DEVICES="0 0,1" \
  SCENES=medium-room,large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c58.txt" | cut -c1-200
(cd "$OUT" && tar czf c58-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c58-machine.txt"; nproc >> "$OUT/c58-machine.txt"
OUT=$OUT/tests timeout 330 bash scripts/device/gpu-run.sh tests 2>&1 | tail -5
