#!/usr/bin/env bash
# The twentieth session, fifth campaign: where two devices' near lists and transport setup go,
# and each device's candidate pairs and rays (debug lines added to the working tree; no other
# change): large room, traffic and industry on GPU 0 and on GPUs 0 and 1, two repeats, K cache off.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
R=/tmp/b/rsim-bundle/rsim
for s in large-room traffic industry; do
  $R generate $s --output scenes/generated/$s -q > /dev/null
  for rep in 1 2; do for devs in 0 0,1; do
    timeout 60 $R run scenes/generated/$s/scene.toml --backend vulkan --devices $devs --no-k-cache --no-timeseries \
      --no-images --no-progress --log-level debug -o /tmp/c60-$s > "$OUT/c60-$s-${devs/,/x}-$rep.log" 2>&1
    echo "$s devices $devs rep $rep: $(grep -E "near lists of|near lists merged|transport's buffers|candidate pairs, " "$OUT/c60-$s-${devs/,/x}-$rep.log" | sed -E 's/^\[debug\] [0-9:.]+ //' | cut -c1-170 | tr '\n' '|')"
  done; done
done | tee "$OUT/c60.txt"
(cd "$OUT" && tar czf c60-logs.tgz c60-*.log && rm -f c60-*.log)
