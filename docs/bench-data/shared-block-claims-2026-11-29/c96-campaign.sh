#!/usr/bin/env bash
# The twenty-fifth session, third campaign (one H200): the encoded K allocated while the own
# block's rest runs (this bundle) against cc0f9c6 (allocated as the devices meet), three repeats,
# then against 507177a (the facing-pair cut, the bulk swap), two repeats; two slots of the GPU
# (0,0), K cache off (scripts/device/two-gpus-ab.sh).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c96.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-cc0f9c6 NEW_DEVICES="0,0" OLD_DEVICES="0,0" \
  SCENES=large-room,traffic,industry timeout 250 bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c96-cc0f9c6.txt" | cut -c1-160
(cd "$OUT" && tar czf c96-cc0f9c6-logs.tgz mg-*.log && rm -f mg-*.log)
OUT=$OUT REPS=2 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-507177a NEW_DEVICES="0 0,0" OLD_DEVICES="0,0" \
  SCENES=large-room,traffic,industry timeout 250 bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c96-507177a.txt" | cut -c1-160
(cd "$OUT" && tar czf c96-507177a-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c96-machine.txt"; nproc >> "$OUT/c96-machine.txt"
