#!/usr/bin/env bash
# Host-side timeline of the tiny room's start and download (a build with TRACE debug lines).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
source scripts/device/place-build.sh
place_build .device/variants/rsim-trace2 rsim-trace2 $B
$B/rsim-trace2 run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1
for i in 1 2 3 4; do
  sleep 0.3
  $B/rsim-trace2 run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/t > /tmp/o/trace2-$i.log 2>&1
done
grep -hE "TRACE|instance|backend:|vulkan device|vkCreateDevice|BVH|radiosity:|wrote|scene " /tmp/o/trace2-4.log | cut -c1-140
cd /tmp/o && tar czf "$OUT/trace2.tgz" .
