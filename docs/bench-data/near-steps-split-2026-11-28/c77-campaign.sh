#!/usr/bin/env bash
# The twenty-third session, first campaign: two devices' far sums exchanged while they gather the
# next period (c7dd38e) against 615ead0's build, on two GPUs (and this build on one, for the
# ratio), three repeats, K cache off (scripts/device/two-gpus-ab.sh); then this build's two GPUs
# with four blocks a pass (16-step periods, near pairs below 32 steps) against its default.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c77.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-615ead0 OLD_DEVICES="0,1" SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c77.txt" | cut -c1-200
(cd "$OUT" && tar czf c77-logs.tgz mg-*.log && rm -f mg-*.log)
OUT=$OUT/pb4 REPS=3 RUN_TIMEOUT=60 OLD=/tmp/b/rsim-bundle/bin/rsim NEW_OPTS="--pass-blocks 4" NEW_DEVICES="0,1" OLD_DEVICES="0,1" \
  SCENES=large-room,traffic,industry bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c77-pb4.txt" | cut -c1-200
(cd "$OUT/pb4" && tar czf ../c77-pb4-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c77-machine.txt"; nproc >> "$OUT/c77-machine.txt"
