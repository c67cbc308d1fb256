#!/usr/bin/env bash
# Issue 17 point 5 at the nineteenth session's code (7faeb59, the bundle): one GPU against two,
# large room and industry, against 73b8e60 ("wu" of c52) on two GPUs; two repeats, K cache off
# (scripts/device/two-gpus-ab.sh).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c52.tgz -C /tmp/variants
OUT=$OUT RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-wu OLD_DEVICES=0,1 SCENES=large-room,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c54.txt" | cut -c1-200
(cd "$OUT" && tar czf c54-logs.tgz mg-*.log && rm -f mg-*.log)
