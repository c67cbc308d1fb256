#!/usr/bin/env bash
# Visibility launches of 2^22, 2^23 and 2^24 pairs (their lists' allocation against the passes' barriers),
# and the shared castSides refactor against 14c7d49. Sets up through gpu-run.sh raysvariants (one repeat),
# then alternates the builds, summary.json's visibility phase per run.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/machine.txt" 2>&1; nproc >> "$OUT/machine.txt"
VIS_REPEATS=1 VARIANTS=".device/variants/rsim-14c7d49 .device/variants/rsim-launch23 .device/variants/rsim-launch22" \
  timeout 200 bash scripts/device/gpu-run.sh raysvariants medium-room,tiny-room,small-room,large-room > /dev/null 2>&1
B=/tmp/rsimb/rsim-bundle
echo "scene,build,repeat,visibility_s,wall_s,listed,traced,near,tiles,facing" > "$OUT/c24.csv"
for r in 1 2 3 4 5; do for s in tiny-room small-room medium-room large-room; do
  p=scenes/$s/scene.toml; [[ -f $p ]] || p=scenes/generated/$s/scene.toml
  for b in rsim rsim-14c7d49 rsim-launch23 rsim-launch22; do
    [[ $s == large-room && $r -gt 3 ]] && continue
    sleep 0.2
    t0=$(date +%s.%N)
    $B/$b run $p --backend vulkan --no-k-cache --no-timeseries --no-images -q -o /tmp/c24-$b-$s > /tmp/c24.log 2>&1 || { cat /tmp/c24.log; continue; }
    t1=$(date +%s.%N)
    python3 - "$s" "$b" "$r" "$t0" "$t1" /tmp/c24-$b-$s/summary.json >> "$OUT/c24.csv" <<'PY'
import json, sys
s, b, r, t0, t1, f = sys.argv[1:]
d = json.load(open(f)); det = d['timings_detail_s']
g = lambda k: det.get('visibility_gpu_' + k, 0.0)
print(f"{s},{b},{r},{d['timings_s']['visibility']:.4f},{float(t1)-float(t0):.4f},{g('listed_pairs'):.4f},{g('traced_pairs'):.4f},{g('near_pairs'):.4f},{g('tile_queries'):.4f},{g('facing_pairs'):.4f}")
PY
  done
done; done
python3 - "$OUT/c24.csv" <<'PY' | tee "$OUT/c24.txt"
import csv, sys, statistics as st
rows = list(csv.DictReader(open(sys.argv[1])))
for s in ['tiny-room', 'small-room', 'medium-room', 'large-room']:
    for b in ['rsim-14c7d49', 'rsim', 'rsim-launch23', 'rsim-launch22']:
        x = [r for r in rows if r['scene'] == s and r['build'] == b and r['repeat'] != '1']
        if not x: continue
        m = lambda k: st.median(float(r[k]) for r in x)
        print(f"{s:12s} {b:14s} n={len(x)} visibility {m('visibility_s'):.4f}  wall {m('wall_s'):.4f}  listed {m('listed'):.4f} traced {m('traced'):.4f} near {m('near'):.4f} tiles {m('tiles'):.4f} facing {m('facing'):.4f}")
PY
for s in tiny-room small-room medium-room large-room; do for b in rsim-14c7d49 rsim-launch23 rsim-launch22; do
  echo "compare $b against rsim, $s: $($B/rsim compare /tmp/c24-rsim-$s /tmp/c24-$b-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
done; done | tee -a "$OUT/c24.txt"
