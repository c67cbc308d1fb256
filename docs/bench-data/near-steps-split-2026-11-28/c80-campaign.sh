#!/usr/bin/env bash
# The twenty-third session, third campaign: the near steps split over 8 invocations per receiver
# (kNearSplit) against 615ead0's build, on one GPU and on two, three repeats, K cache off
# (scripts/device/two-gpus-ab.sh); then this build's two GPUs with three and four blocks a pass
# against its default two.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c77.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-615ead0 OLD_DEVICES="0 0,1" SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c80.txt" | cut -c1-200
(cd "$OUT" && tar czf c80-logs.tgz mg-*.log && rm -f mg-*.log)
for pb in 3 4; do
  OUT=$OUT/pb$pb REPS=2 RUN_TIMEOUT=60 OLD=/tmp/b/rsim-bundle/bin/rsim NEW_OPTS="--pass-blocks $pb" NEW_DEVICES="0,1" OLD_DEVICES="0,1" \
    SCENES=large-room,traffic,industry bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c80-pb$pb.txt" | cut -c1-120
  rm -f "$OUT"/pb$pb/mg-*.log
done
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c80-machine.txt"; nproc >> "$OUT/c80-machine.txt"
