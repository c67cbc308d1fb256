#!/usr/bin/env bash
# The twenty-first session, fourth campaign: the cast-once path's pinned buffers adopted as the
# devices' staging, the near lists merged on every thread, the far sums' host memory pinned
# beside the near lists (the working tree, the bundle with the tests) against e85989c, one GPU
# against two, three repeats, K cache off (scripts/device/two-gpus-ab.sh); then the whole suite
# under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c67.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-e85989c OLD_DEVICES=0,1 SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c67.txt" | cut -c1-200
(cd "$OUT" && for f in mg-*0x1-*.log; do echo "$f: $(grep -E "far sums|radiosity:|transport.s buffers|staging|near lists|merged" "$f" | sed -E 's/^\[[a-z]+\] [0-9:.]+ //' | cut -c1-190 | tr '\n' '|')"; done > c67-devices.txt; tar czf c67-logs.tgz mg-*.log && rm -f mg-*.log)
cat "$OUT/c67-devices.txt" | cut -c1-600 | head -12
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c67-machine.txt"; nproc >> "$OUT/c67-machine.txt"
OUT=$OUT/tests timeout 330 bash scripts/device/gpu-run.sh tests 2>&1 | tail -5
