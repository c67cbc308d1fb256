#!/usr/bin/env bash
# Issue 57's code (91d0eaf) against 2926efe's build on one H200: start-up and whole process of the
# tiny and medium rooms (scripts/device/startup-ab.sh), then a batch of 32 poses of the medium
# room with every default output but timeseries.h5 (batch.h5 now holds every images.h5 array),
# the builds alternating, three repeats, K cache off.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .device/prelude.sh
mkdir -p /tmp/variants && tar xzf .device/variants-c97.tgz -C /tmp/variants
OUT=$OUT OLD=/tmp/variants/rsim-2926efe TAG=c98-startup TINY_REPS=11 MEDIUM_REPS=5 timeout 240 bash scripts/device/startup-ab.sh > /dev/null 2>&1
tail -12 "$OUT/c98-startup.txt"
B=/tmp/b/rsim-bundle
$B/rsim poses scenes/generated/medium-room/scene.toml --orbit 32 -o /tmp/poses32.csv
for r in 1 2 3; do for which in old new; do
  bin=$B/rsim; [[ $which == old ]] && bin=$B/rsim-old
  rm -rf /tmp/b32-$which
  XDG_CACHE_HOME=/tmp/xdg-$which timeout 120 $bin run scenes/generated/medium-room/scene.toml --backend vulkan --no-k-cache \
    --no-timeseries --no-progress --poses /tmp/poses32.csv -o /tmp/b32-$which > /tmp/b32-$which.log 2>&1 || { tail -5 /tmp/b32-$which.log; }
  python3 -c "import json,sys;s=json.load(open('/tmp/b32-$which/summary.json'));t=s['timings_s'];print('batch32 $which $r process %.3f total %.3f output %.3f radiosity %.3f visibility %.3f' % (s.get('process_s',0), t['total'], t.get('output',0), t.get('radiosity',0), t.get('visibility',0)))"
done; done | tee "$OUT/c98-batch.txt"
for p in orbit-000 orbit-017; do echo "compare $p: $($B/rsim compare /tmp/b32-old/$p /tmp/b32-new/$p --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"; done | tee -a "$OUT/c98-batch.txt"
du -sh /tmp/b32-old/batch.h5 /tmp/b32-new/batch.h5 | tee -a "$OUT/c98-batch.txt"
