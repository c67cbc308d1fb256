#!/usr/bin/env bash
# d8582dd (batch.h5 as virtual datasets) against 2926efe's build on one H200: a batch of 32 poses
# of the medium room, every default output but timeseries.h5, the builds alternating, five
# repeats after one that warms each build's caches, K cache off.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .device/prelude.sh
mkdir -p /tmp/variants /tmp/b && tar xzf .device/variants-c97.tgz -C /tmp/variants && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
source scripts/device/place-build.sh
place_build /tmp/variants/rsim-2926efe rsim-old $B
$B/rsim generate medium-room --output scenes/generated/medium-room -q > /dev/null
$B/rsim poses scenes/generated/medium-room/scene.toml --orbit 32 -o /tmp/poses32.csv
for r in 0 1 2 3 4 5; do for which in old new; do
  bin=$B/rsim; [[ $which == old ]] && bin=$B/rsim-old
  rm -rf /tmp/b32-$which
  XDG_CACHE_HOME=/tmp/xdg-$which timeout 120 $bin run scenes/generated/medium-room/scene.toml --backend vulkan --no-k-cache \
    --no-timeseries --no-progress --poses /tmp/poses32.csv -o /tmp/b32-$which > /tmp/b32-$which.log 2>&1 || { tail -5 /tmp/b32-$which.log; }
  [[ $r == 0 ]] && continue
  python3 -c "import json,sys;s=json.load(open('/tmp/b32-$which/summary.json'));t=s['timings_s'];print('batch32 $which $r process %.3f total %.3f output %.3f radiosity %.3f visibility %.3f' % (s.get('process_s',0), t['total'], t.get('output',0), t.get('radiosity',0), t.get('visibility',0)))"
done; done | tee "$OUT/c99-batch.txt"
for p in orbit-000 orbit-017; do echo "compare $p: $($B/rsim compare /tmp/b32-old/$p /tmp/b32-new/$p --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"; done | tee -a "$OUT/c99-batch.txt"
du -sh /tmp/b32-old/batch.h5 /tmp/b32-new/batch.h5 | tee -a "$OUT/c99-batch.txt"
python3 -c "import h5py; f=h5py.File('/tmp/b32-new/batch.h5'); print('range_m', f['range_m'].shape, f['range_m'].is_virtual, float(f['range_m'][31][60][80]))" 2>&1 | tee -a "$OUT/c99-batch.txt"
