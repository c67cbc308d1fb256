#!/usr/bin/env bash
# K's visibility compiled from the first phase (this bundle) against 23ea451: cold driver cache,
# then warm.
set -uo pipefail
source .device/prelude.sh
REAL_OUT=$OUT; export OUT=/tmp/o; mkdir -p $OUT
OLD=.device/variants/rsim-23ea451 COLD_SCENES=tiny-room,medium-room COLD_REPEATS=${COLD:-3} scripts/device/startup-cold.sh > $OUT/cold.log 2>&1
STARTUP_OLD=.device/variants/rsim-23ea451 STARTUP_BACKENDS=vulkan STARTUP_REPEATS=${REPEATS:-11} STARTUP_CACHE_REPEAT=1 \
  scripts/device/gpu-run.sh startup tiny-room,small-room,medium-room > $OUT/campaign.log 2>&1
tar czf $REAL_OUT/warmvis-campaign.tgz -C $OUT .
cat $OUT/startup-cold.txt
grep -A9 "^| scene | backend | warm" $OUT/startup.txt
