#!/usr/bin/env bash
# Where the medium room's visibility phase goes beyond its passes' device time (a build with TRACE lines).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
source scripts/device/place-build.sh
place_build .device/variants/rsim-vtrace rsim-vtrace $B
$R generate medium-room --output scenes/generated/medium-room -q > /dev/null
$B/rsim-vtrace run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1
for i in 1 2 3; do
  sleep 0.3
  $B/rsim-vtrace run scenes/generated/medium-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/t > /tmp/o/vtrace-$i.log 2>&1
done
grep -hE "TRACE|K resident|allocated|device time|K encoded|candidate pairs|compress:" /tmp/o/vtrace-3.log | cut -c1-200
cd /tmp/o && tar czf "$OUT/vtrace.tgz" .
