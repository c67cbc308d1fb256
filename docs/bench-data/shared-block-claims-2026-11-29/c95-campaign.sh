#!/usr/bin/env bash
# The twenty-fifth session, second campaign (one H200: the two-GPU kind is withheld): the shared
# block claimed from both ends and the halves handed over cast by cast, (cc0f9c6: the uploads a staging fill per submission) against 507177a's build,
# on one GPU and on two slots of it (0,0), two repeats, K cache off (scripts/device/two-gpus-ab.sh);
# then the whole suite under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c94.tgz -C /tmp/variants
OUT=$OUT REPS=2 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-507177a NEW_DEVICES="0 0,0" OLD_DEVICES="0 0,0" \
  SCENES=large-room,traffic,industry timeout 270 bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c95.txt" | cut -c1-160
(cd "$OUT" && tar czf c95-logs.tgz mg-*.log && rm -f mg-*.log)
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c95-machine.txt"; nproc >> "$OUT/c95-machine.txt"
OUT=/tmp/tests-out timeout 300 bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1; echo "tests exit $?"
tail -4 /tmp/tests.txt
cat /tmp/tests.txt /tmp/tests-out/gpu-tests.txt 2>/dev/null | gzip -c > "$OUT/h200-tests-c95.txt.gz"
