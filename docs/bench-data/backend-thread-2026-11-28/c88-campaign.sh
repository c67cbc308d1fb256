#!/usr/bin/env bash
# The twenty-fourth session, fourth campaign (issue 21 on one H200): a small scene's device created
# as soon as the instance chose it, and the instance's thread joined only after (the working tree on 07c793d) against 07c793d's build:
# scripts/device/startup-ab.sh, the tiny room 21 times and the medium room 5; then three debug runs
# of the tiny room with each build (their logs packed in c88-logs.tgz).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/b /tmp/variants /tmp/c88-logs && tar xzf .device/rsim-bundle.tgz -C /tmp/b && tar xzf .device/variants-c87.tgz -C /tmp/variants
B=/tmp/b/rsim-bundle
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c88-machine.txt"; nproc >> "$OUT/c88-machine.txt"
OUT=$OUT OLD=/tmp/variants/rsim-07c793d TAG=c88 TINY_REPS=21 MEDIUM_REPS=5 bash scripts/device/startup-ab.sh
for i in 1 2 3; do for v in rsim rsim-old; do
  XDG_CACHE_HOME=/tmp/xdg-$v $B/$v run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/c88-$v > /tmp/c88-logs/tiny-$v-$i.log 2>&1
done; done
tar czf "$OUT/c88-logs.tgz" -C /tmp c88-logs
