#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Start-up A/B (issue 21): this bundle's rsim against an older build's binary
# .device/old-rsim-fa9338c (same libraries), the tiny room on the GPU, alternating five times:
# whole-process wall time, the load phase, all phases and the process's age at summary.json.
# Run on a GPU machine of the device tool from the repository root; writes $OUT/ab-startup.txt.
source .device/prelude.sh >/dev/null
mkdir -p /tmp/rsimb && rm -rf /tmp/rsimb/rsim-bundle && tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle
cp .device/old-rsim-fa9338c $B/bin/rsim-old && chmod +x $B/bin/rsim-old
sed 's#/bin/rsim"#/bin/rsim-old"#' $B/rsim > $B/rsim-old && chmod +x $B/rsim-old
$B/rsim devices > /dev/null
for r in 1 2 3 4 5; do for v in rsim-old rsim; do
  t0=$(date +%s.%N)
  $B/$v run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-timeseries --no-progress -q -o /tmp/ab-$v >/dev/null 2>&1
  t1=$(date +%s.%N)
  python3 -c "import json,sys; s=json.load(open('/tmp/ab-$v/summary.json')); print('$v', $r, 'wall %.3f' % ($t1-$t0), 'load %.3f' % s['timings_s']['load'], 'phases %.3f' % s['timings_s']['total'], 'process %.3f' % s['process_s'])"
done; done | tee $OUT/ab-startup.txt
