#!/usr/bin/env bash
# The twenty-fourth session, first campaign (issue 21 on one H200 of the single-GPU kind, at
# 07c793d): the tiny room's first run on the fresh machine (cold driver, empty caches), then
# scripts/device/startup-ab.sh against 2fc43c7's build (tiny room 11 runs, medium room 5).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/b /tmp/variants && tar xzf .device/rsim-bundle.tgz -C /tmp/b && tar xzf .device/variants-c81.tgz -C /tmp/variants
B=/tmp/b/rsim-bundle
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c85-machine.txt"; nproc >> "$OUT/c85-machine.txt"
start=$(date +%s.%N)
XDG_CACHE_HOME=/tmp/xdg-cold $B/rsim run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress -o /tmp/c85-cold > /dev/null 2>&1
end=$(date +%s.%N)
python3 -c "import json,sys; s=json.load(open('/tmp/c85-cold/summary.json')); print('cold first run: process_s %.4f, wall %.4f, phases %.4f' % (s['process_s'], $end-$start, s['timings_s']['total']))" | tee "$OUT/c85-cold.txt"
OUT=$OUT OLD=/tmp/variants/rsim-2fc43c7 TAG=c85 bash scripts/device/startup-ab.sh
