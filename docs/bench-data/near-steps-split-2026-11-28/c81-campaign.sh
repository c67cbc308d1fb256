#!/usr/bin/env bash
# The twenty-third session, fourth campaign: several devices created at once and the scene placed
# on them at once (1bb3bc6) against 2fc43c7's build, two GPUs, three repeats
# (scripts/device/two-gpus-ab.sh; start-up from each run's log); then issue 17's acceptance run at
# this code (industry at --max-edge-m 0.5, one H200).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c81.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-2fc43c7 NEW_DEVICES="0,1" OLD_DEVICES="0,1" SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c81.txt" | cut -c1-160
(cd "$OUT" && for f in mg-*.log; do echo "$f $(grep -o 'vkCreateDevice, device [01] [^)]*) [0-9.]* s' "$f" | sed 's/(NVIDIA H200) //' | tr '\n' ' ') $(grep -o 'wrote .* in [0-9.]* s' "$f" | grep -o 'in [0-9.]* s$')"; done > c81-startup.txt; cat c81-startup.txt; tar czf c81-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c81-machine.txt"; nproc >> "$OUT/c81-machine.txt"
OUT=$OUT/scale SCALE_MODES=inplace timeout 400 bash scripts/device/gpu-run.sh scale 0.5 2>&1 | tail -8
