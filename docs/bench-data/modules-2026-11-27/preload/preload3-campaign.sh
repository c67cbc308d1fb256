#!/usr/bin/env bash
# The output modules opened when the outputs are written (this bundle) against 31bbdd0 (right after the devices) and the variant that opens them after the devices first work.
# The output modules opened when the outputs are written (this bundle) against 31bbdd0 (right after the devices) and the variant that opens them after the devices first work.
set -uo pipefail
source .device/prelude.sh
REAL_OUT=$OUT; export OUT=/tmp/o; mkdir -p $OUT
B=/tmp/rsimb/rsim-bundle
OUT=$OUT/a STARTUP_OLD=.device/variants/rsim-31bbdd0 STARTUP_BACKENDS=vulkan STARTUP_REPEATS=${REPEATS:-9} STARTUP_CACHE_REPEAT=0 \
  scripts/device/gpu-run.sh startup tiny-room,small-room,medium-room > $OUT/campaign-a.log 2>&1
OUT=$OUT/b STARTUP_OLD=.device/variants/rsim-afterprep STARTUP_BACKENDS=vulkan STARTUP_REPEATS=${REPEATS:-9} STARTUP_CACHE_REPEAT=0 \
  scripts/device/gpu-run.sh startup tiny-room,small-room,medium-room > $OUT/campaign-b.log 2>&1
s=tiny-room; $B/rsim run scenes/$s/scene.toml --backend vulkan --no-k-cache --no-progress -q -o /tmp/cmp-new
$B/rsim-afterprep run scenes/$s/scene.toml --backend vulkan --no-k-cache --no-progress -q -o /tmp/cmp-old
echo "compare: $($B/rsim compare /tmp/cmp-old /tmp/cmp-new --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)" | tee $OUT/compare.txt
tar czf $REAL_OUT/preload3-campaign.tgz -C $OUT .
grep -A8 "^| scene | backend | warm" $OUT/a/startup.txt $OUT/b/startup.txt
