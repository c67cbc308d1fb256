#!/usr/bin/env bash
# End of session: this bundle (with tests) against c985a80, warm start-up of three rooms; then
# the whole test suite under the validation layer.
set -uo pipefail
source .device/prelude.sh
REAL_OUT=$OUT; export OUT=/tmp/o; mkdir -p $OUT
STARTUP_OLD=.device/variants/rsim-c985a80 STARTUP_BACKENDS=vulkan STARTUP_REPEATS=${REPEATS:-13} STARTUP_CACHE_REPEAT=1 \
  scripts/device/gpu-run.sh startup tiny-room,small-room,medium-room > $OUT/campaign.log 2>&1
B=/tmp/rsimb/rsim-bundle
for s in tiny-room medium-room; do
  p=scenes/$s/scene.toml; [[ -f $p ]] || p=scenes/generated/$s/scene.toml
  $B/rsim run $p --backend vulkan --no-k-cache --no-progress -q -o /tmp/cmp-new-$s
  $B/rsim-c985a80 run $p --backend vulkan --no-k-cache --no-progress -q -o /tmp/cmp-old-$s
  echo "$s: $($B/rsim compare /tmp/cmp-old-$s /tmp/cmp-new-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
done | tee $OUT/compare.txt
grep -A9 "^| scene | backend | warm" $OUT/startup.txt
timeout 420 scripts/device/gpu-run.sh tests > $OUT/tests-stage.log 2>&1; echo "tests rc $?"
tail -5 $OUT/gpu-tests.txt; grep -c "VUID" $OUT/gpu-tests.txt
gzip -f $OUT/gpu-tests.txt
tar czf $REAL_OUT/final-campaign.tgz -C $OUT .
