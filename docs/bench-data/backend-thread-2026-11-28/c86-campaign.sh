#!/usr/bin/env bash
# The twenty-fourth session, second campaign (issue 21 on one H200): where the tiny room's time
# goes at 07c793d: six debug runs (the first warms the caches), their logs and summary.json.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/logs" /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
for i in 0 1 2 3 4 5; do
  s=$(date +%s.%N)
  XDG_CACHE_HOME=/tmp/xdg $B/rsim run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/c86 > "$OUT/logs/tiny-$i.log" 2>&1
  e=$(date +%s.%N)
  echo "start $s end $e" >> "$OUT/logs/tiny-$i.log"
  cp /tmp/c86/summary.json "$OUT/logs/tiny-$i.json"
done
( time $B/rsim devices ) > "$OUT/devices.txt" 2>&1
