#!/usr/bin/env bash
# The twentieth session, seventh campaign: c61's balanced cut of the shared block, and fp32 K
# kept until the device's release up to a 16th of its free memory (a 32nd before; the working
# tree, the bundle with the tests) against fa02907, one GPU against two, four repeats, K cache
# off (scripts/device/two-gpus-ab.sh); then the whole suite under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c61.tgz -C /tmp/variants
OUT=$OUT REPS=4 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-fa02907 OLD_DEVICES=0,1 SCENES=industry,large-room \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c62.txt" | cut -c1-200
(cd "$OUT" && for f in mg-*0x1-*.log; do echo "$f: $(grep -E "shared block cut|candidate pairs, |own block cast, halves|device time in the passes" "$f" | sed -E 's/^\[debug\] [0-9:.]+ //' | cut -c1-190 | tr '\n' '|')"; done > c62-devices.txt; tar czf c62-logs.tgz mg-*.log && rm -f mg-*.log)
cat "$OUT/c62-devices.txt" | cut -c1-900
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c62-machine.txt"; nproc >> "$OUT/c62-machine.txt"
OUT=$OUT/tests timeout 330 bash scripts/device/gpu-run.sh tests 2>&1 | tail -5
