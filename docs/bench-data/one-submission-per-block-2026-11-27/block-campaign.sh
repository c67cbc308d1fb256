#!/usr/bin/env bash
# One submission per time block (K resident, nothing exchanged) against 23ea451, warm.
set -uo pipefail
source .device/prelude.sh
REAL_OUT=$OUT; export OUT=/tmp/o; mkdir -p $OUT
STARTUP_OLD=.device/variants/rsim-23ea451 STARTUP_BACKENDS=vulkan STARTUP_REPEATS=${REPEATS:-13} STARTUP_CACHE_REPEAT=0 \
  scripts/device/gpu-run.sh startup tiny-room,small-room,medium-room > $OUT/campaign.log 2>&1
B=/tmp/rsimb/rsim-bundle
for s in tiny-room small-room medium-room; do
  p=scenes/$s/scene.toml; [[ -f $p ]] || p=scenes/generated/$s/scene.toml
  for w in rsim rsim-23ea451 rsim rsim-23ea451; do
    $B/$w run $p --backend vulkan --no-k-cache --no-progress --log-level info -o /tmp/cmp-$w-$s 2>&1 | grep "radiosity:" | sed "s#^#$s $w #"
  done
  echo "$s: $($B/rsim compare /tmp/cmp-rsim-23ea451-$s /tmp/cmp-rsim-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
done | tee $OUT/loops.txt
tar czf $REAL_OUT/block-campaign.tgz -C $OUT .
grep -A8 "^| scene | backend | warm" $OUT/startup.txt
