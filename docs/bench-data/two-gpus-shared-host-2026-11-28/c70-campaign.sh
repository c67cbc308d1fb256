#!/usr/bin/env bash
# The twenty-first session, seventh campaign: the session's end (6183e32, the bundle) against its
# start (1ccafd8), one GPU against two, three repeats, K cache off
# (scripts/device/two-gpus-ab.sh).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c64.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-1ccafd8 OLD_DEVICES=0,1 SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c70.txt" | cut -c1-200
(cd "$OUT" && tar czf c70-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c70-machine.txt"; nproc >> "$OUT/c70-machine.txt"
