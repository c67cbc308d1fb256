#!/usr/bin/env bash
# The twenty-second session, second campaign: one GPU's encoded K allocated while the last
# visibility launches run (and its fp32 chunks ahead while a launch runs), against c71's build;
# one GPU and two, three repeats, K cache off (scripts/device/two-gpus-ab.sh); then the whole
# suite under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c72.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-c71 OLD_DEVICES="0 0,1" SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c72.txt" | cut -c1-200
(cd "$OUT" && tar czf c72-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c72-machine.txt"; nproc >> "$OUT/c72-machine.txt"
OUT=$OUT/tests timeout 280 bash scripts/device/gpu-run.sh tests > "$OUT/tests.txt" 2>&1; echo "tests exit $?"; tail -4 "$OUT/tests.txt"
