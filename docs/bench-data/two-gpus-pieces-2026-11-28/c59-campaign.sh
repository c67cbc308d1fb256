#!/usr/bin/env bash
# The twentieth session, fourth campaign: fp32 chunks released on another thread one at a time,
# 0.5 ms apart (the working tree, the bundle) against bccb00a, on one GPU and on two, three
# repeats, K cache off (scripts/device/two-gpus-ab.sh).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c59.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-bccb00a NEW_DEVICES="0 0,1" OLD_DEVICES="0 0,1" \
  SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c59.txt" | cut -c1-200
(cd "$OUT" && tar czf c59-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c59-machine.txt"; nproc >> "$OUT/c59-machine.txt"
