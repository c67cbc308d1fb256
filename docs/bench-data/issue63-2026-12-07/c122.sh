#!/usr/bin/env bash
# c122: how sparse K is in the generated scenes (issue 63): each scene's K computed on the GPU into
# a K cache of its own, then .device/k_density over the file. On an H200, issue 61's phasors-ab.sh after.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh > "$OUT/gpu.txt"
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
o='--backend vulkan --no-progress --no-timeseries -q'
{
  echo "machine: $(nproc) cores, $(cat $OUT/gpu.txt)"
  for s in medium-room large-room traffic industry; do
    $B/rsim generate $s --output scenes/generated/$s -q > /dev/null
    timeout 120 $B/rsim run scenes/generated/$s/scene.toml $o --k-cache /tmp/kc/$s -o /tmp/r-$s || echo "FAILED $s"
    python3 -c "import json; j=json.load(open('/tmp/r-$s/summary.json')); print('$s', j['triangles'] if 'triangles' in j else '', j['timings_s'])"
  done
  timeout 300 $B/rsim run scenes/generated/industry/scene.toml $o --max-edge-m 0.7 --k-cache /tmp/kc/ind129 -o /tmp/r-ind129 || echo "FAILED ind129"
  python3 -c "import json; j=json.load(open('/tmp/r-ind129/summary.json')); print('ind129', j['timings_s'])"
  ls -la /tmp/kc/*/
  .device/k_density /tmp/kc/*/*.kcache
} > "$OUT/density.txt" 2>&1
if grep -q H200 "$OUT/gpu.txt"; then OUT=$OUT bash scripts/device/phasors-ab.sh > /dev/null 2>&1; fi
