#!/usr/bin/env bash
# Issue 17 point 5 at the seventeenth session's code (69ea26a): one GPU against two, large room
# and industry, against d288636 on two GPUs; two repeats, K cache off (scripts/device/two-gpus-ab.sh).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c38.tgz -C /tmp/variants
OUT=$OUT RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-d288636 OLD_DEVICES=0,1 SCENES=large-room,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c41.txt" | cut -c1-200
(cd "$OUT" && tar czf c41-logs.tgz mg-*.log && rm -f mg-*.log)
