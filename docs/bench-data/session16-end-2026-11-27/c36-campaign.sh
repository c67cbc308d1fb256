#!/usr/bin/env bash
# Issue 17 point 5 at the sixteenth session's code (26edfde): one GPU against two, large room and
# industry, against 9717a85 on two GPUs; two repeats, K cache off (scripts/device/two-gpus-ab.sh).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c35.tgz -C /tmp/variants
OUT=$OUT RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-9717a85 OLD_DEVICES=0,1 SCENES=large-room,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c36.txt" | cut -c1-200
