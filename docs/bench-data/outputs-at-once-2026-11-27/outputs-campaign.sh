#!/usr/bin/env bash
# A run's output files at once (and images.exr on several threads) against 5490fc0, warm.
set -uo pipefail
source .device/prelude.sh
REAL_OUT=$OUT; export OUT=/tmp/o; mkdir -p $OUT
STARTUP_OLD=.device/variants/rsim-5490fc0 STARTUP_BACKENDS=vulkan STARTUP_REPEATS=${REPEATS:-9} STARTUP_CACHE_REPEAT=1 \
  scripts/device/gpu-run.sh startup tiny-room,small-room,medium-room > $OUT/campaign.log 2>&1
B=/tmp/rsimb/rsim-bundle
{
for s in tiny-room medium-room; do
  p=scenes/$s/scene.toml; [[ -f $p ]] || p=scenes/generated/$s/scene.toml
  for w in rsim rsim-5490fc0; do $B/$w run $p --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/cmp-$w-$s 2>&1 | grep "partial"; done
  echo "$s: $($B/rsim compare /tmp/cmp-rsim-5490fc0-$s /tmp/cmp-rsim-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
done
} 2>&1 | tee $OUT/process.txt
tar czf $REAL_OUT/outputs-campaign.tgz -C $OUT .
grep -A9 "^| scene | backend | warm" $OUT/startup.txt
