#!/usr/bin/env bash
# The twentieth session, first campaign (issue 17 point 5): the half blocks read back in 32 MiB
# pieces from two scratch slots on the transfer queue, the encoded K allocated while the own block
# is cast, the lists and scratch chunks kept until the release (the working tree, the bundle)
# against 708f2d9 on two GPUs; one GPU against two; three repeats, K cache off
# (scripts/device/two-gpus-ab.sh).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c56.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-708f2d9 OLD_DEVICES=0,1 SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c56.txt" | cut -c1-200
(cd "$OUT" && tar czf c56-logs.tgz mg-*.log && rm -f mg-*.log)
