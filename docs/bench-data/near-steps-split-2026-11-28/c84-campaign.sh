#!/usr/bin/env bash
# The twenty-third session, seventh campaign: several devices' near lists merged on every thread
# (fdde977) against 2fc43c7's build, one GPU and two, three repeats
# (scripts/device/two-gpus-ab.sh); then the whole suite under the validation layer at fdde977.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c81.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-2fc43c7 OLD_DEVICES="0 0,1" SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c84.txt" | cut -c1-120
(cd "$OUT" && grep -h "near lists merged" mg-*.log > c84-merge.txt; tar czf c84-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c84-machine.txt"; nproc >> "$OUT/c84-machine.txt"
OUT=$OUT/tests timeout 300 bash scripts/device/gpu-run.sh tests > "$OUT/tests.txt" 2>&1; echo "tests exit $?"; tail -4 "$OUT/tests.txt"
