#!/usr/bin/env bash
# The twentieth session, sixth campaign: two devices cut their shared block by the facing pairs
# each casts (k/shared_block_cut.h; the working tree, the bundle) against fa02907, one GPU
# against two, three repeats, K cache off (scripts/device/two-gpus-ab.sh).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c61.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-fa02907 OLD_DEVICES=0,1 SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c61.txt" | cut -c1-200
(cd "$OUT" && for f in mg-*0x1-*.log; do echo "$f: $(grep -E "shared block cut|candidate pairs, |own block cast, halves|device time in the passes" "$f" | sed -E 's/^\[debug\] [0-9:.]+ //' | cut -c1-190 | tr '\n' '|')"; done > c61-devices.txt; tar czf c61-logs.tgz mg-*.log && rm -f mg-*.log)
cat "$OUT/c61-devices.txt" | cut -c1-900
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c61-machine.txt"; nproc >> "$OUT/c61-machine.txt"
