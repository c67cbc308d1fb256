#!/usr/bin/env bash
# The listed pass with fewer registers: two entries a trip (rsim-listed2), one blocker kept (rsim-blockers1),
# against this bundle's rsim (HEAD); visibility alone, and each pipeline's register count.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
mkdir -p /tmp/variants && tar xzf .device/variants-c29.tgz -C /tmp/variants
source scripts/device/place-build.sh
for v in listed2 blockers1; do place_build /tmp/variants/rsim-$v rsim-$v $B; done
for s in medium-room large-room; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
for v in rsim rsim-listed2 rsim-blockers1; do
  RSIM_PIPELINE_STATISTICS=1 $B/$v run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-timeseries --no-images -o /tmp/w0 2>&1 | grep -o 'visibility listed pairs.*Register Count = [0-9]*' | sed "s/^/$v: /"
done | tee /tmp/o/c29.txt
for r in 1 2 3 4; do for s in medium-room large-room; do for v in rsim rsim-listed2 rsim-blockers1; do
  $B/$v run scenes/generated/$s/scene.toml --backend vulkan --no-k-cache --no-timeseries --no-images --no-progress -o /tmp/l-$v-$s > /tmp/l.log 2>&1
  echo "$v $r $s: $(grep -o 'device time.*listed pairs' /tmp/l.log) | $(grep -o '[0-9]* rays ([0-9.]*%) answered' /tmp/l.log) | phase $(python3 -c "import json;print(round(json.load(open('/tmp/l-$v-$s/summary.json'))['timings_s']['visibility'],4))")"
done; done; done | tee -a /tmp/o/c29.txt
for s in medium-room large-room; do for v in rsim-listed2 rsim-blockers1; do echo "compare $v $s: $($R compare /tmp/l-rsim-$s /tmp/l-$v-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"; done; done | tee -a /tmp/o/c29.txt
cp /tmp/o/c29.txt "$OUT/"
