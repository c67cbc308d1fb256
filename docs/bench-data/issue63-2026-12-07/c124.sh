#!/usr/bin/env bash
# c124 (branch gpu-segments-far, a prototype): the GPU's far gather and near lists over K stored
# as segments (K made segments on the host after the GPU computed it) against dense K: radiosity,
# 1000 steps, one pose; medium room, large room, industry 53k and 129k.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh > "$OUT/gpu.txt"
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
o='--backend vulkan --no-progress --no-timeseries -q --no-k-cache'
{
  echo "machine: $(nproc) cores, $(cat $OUT/gpu.txt)"
  echo "scene,layout,k_bytes,segments,visibility_s,radiosity_s,radiosity_loop_s,near_lists_s,process_s"
  for s in ${SCENES:-medium-room large-room industry industry-0.7}; do
    scene=${s%-0.7}; edge=""; [[ $s == industry-0.7 ]] && edge="--max-edge-m 0.7"
    [[ -f scenes/generated/$scene/scene.toml ]] || $B/rsim generate $scene --output scenes/generated/$scene -q > /dev/null
    for L in dense segments; do
      d=/tmp/r-$s-$L
      timeout 200 $B/rsim run scenes/generated/$scene/scene.toml $o $edge --set "simulation.k_layout=\"$L\"" -o $d || echo "FAILED $s $L"
      python3 -c "
import json; j = json.load(open('$d/summary.json')); t = j['timings_s']; d = j.get('timings_detail_s', {})
print('$s,$L,%d,%s,%.3f,%.3f,%.3f,%.3f,%.3f' % (j['k_bytes'], j.get('k_segments', ''), t['visibility'], t['radiosity'], d.get('radiosity_loop', 0), d.get('near_lists', 0), j['process_s']))"
    done
    echo "compare $s:"; $B/rsim compare /tmp/r-$s-dense /tmp/r-$s-segments | tail -1
    $B/rsim compare /tmp/r-$s-dense /tmp/r-$s-segments --tol-m 1e-6 --max-fraction 0 | tail -1
  done
} > "$OUT/gpu-segments.txt" 2>&1
