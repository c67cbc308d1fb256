#!/bin/bash
# Issue 21: the tiny room's K on the CPU while the GPU is created without ray tracing.
source .device/prelude.sh
export OUT=${OUT:-/tmp/rsim-out}
mkdir -p $OUT
STARTUP_REPEATS=7 STARTUP_UNCACHED_HOST_RAYS=auto,never STARTUP_CACHE_SCENE=tiny-room STARTUP_CACHE_REPEAT=3 \
  STARTUP_HOST_RAYS=auto,never scripts/device/gpu-run.sh startup tiny-room,small-room > /dev/null 2>&1
tail -12 $OUT/startup.txt
B=/tmp/rsimb/rsim-bundle
for mode in auto never auto; do
  /usr/bin/time -f "wall %e s" $B/rsim run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --host-rays $mode \
    --no-timeseries --no-progress --log-level debug -o /tmp/tl-$mode > $OUT/tiny-timeline-$mode.txt 2>&1
done
tail -1 $OUT/tiny-timeline-auto.txt $OUT/tiny-timeline-never.txt
$B/rsim compare /tmp/tl-never /tmp/tl-auto | tail -1 | tee $OUT/tiny-compare.txt
