#!/usr/bin/env bash
# Visibility launches of about sqrt(P x 2^21) pairs (new), sqrt(P x 2^20) (rsim-sqrt20) and 2^24 (14c7d49).
# then alternates the builds, summary.json's visibility phase per run.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/machine.txt" 2>&1; nproc >> "$OUT/machine.txt"
VIS_REPEATS=1 VARIANTS=".device/variants/rsim-14c7d49 .device/variants/rsim-sqrt20" \
  timeout 200 bash scripts/device/gpu-run.sh raysvariants medium-room,tiny-room,small-room > /dev/null 2>&1
B=/tmp/rsimb/rsim-bundle
echo "scene,build,repeat,visibility_s,wall_s,listed,traced,near,tiles,facing" > "$OUT/c26.csv"
for r in 1 2 3 4 5 6 7 8 9 10; do for s in tiny-room corridor small-room medium-room; do
  p=scenes/$s/scene.toml; [[ -f $p ]] || p=scenes/generated/$s/scene.toml
  for b in rsim rsim-14c7d49 rsim-sqrt20; do
    [[ ($s == large-room || $s == traffic) && $r -gt 4 ]] && continue
    sleep 0.2
    t0=$(date +%s.%N)
    $B/$b run $p --backend vulkan --no-k-cache --no-timeseries --no-images -q -o /tmp/c26-$b-$s > /tmp/c26.log 2>&1 || { cat /tmp/c26.log; continue; }
    t1=$(date +%s.%N)
    python3 - "$s" "$b" "$r" "$t0" "$t1" /tmp/c26-$b-$s/summary.json >> "$OUT/c26.csv" <<'PY'
import json, sys
s, b, r, t0, t1, f = sys.argv[1:]
d = json.load(open(f)); det = d['timings_detail_s']
g = lambda k: det.get('visibility_gpu_' + k, 0.0)
print(f"{s},{b},{r},{d['timings_s']['visibility']:.4f},{float(t1)-float(t0):.4f},{g('listed_pairs'):.4f},{g('traced_pairs'):.4f},{g('near_pairs'):.4f},{g('tile_queries'):.4f},{g('facing_pairs'):.4f}")
PY
  done
done; done
python3 - "$OUT/c26.csv" <<'PY' | tee "$OUT/c26.txt"
import csv, sys, statistics as st
rows = list(csv.DictReader(open(sys.argv[1])))
for s in ['tiny-room', 'corridor', 'small-room', 'medium-room', 'large-room', 'traffic']:
    for b in ['rsim-14c7d49', 'rsim-sqrt20', 'rsim']:
        x = [r for r in rows if r['scene'] == s and r['build'] == b and r['repeat'] != '1']
        if not x: continue
        m = lambda k: st.median(float(r[k]) for r in x)
        print(f"{s:12s} {b:14s} n={len(x)} visibility {m('visibility_s'):.4f}  wall {m('wall_s'):.4f}  listed {m('listed'):.4f} traced {m('traced'):.4f} near {m('near'):.4f} tiles {m('tiles'):.4f} facing {m('facing'):.4f}")
    new = {r['repeat']: r for r in rows if r['scene'] == s and r['build'] == 'rsim' and r['repeat'] != '1'}
    for ob in ['rsim-14c7d49', 'rsim-sqrt20']:
        old = {r['repeat']: r for r in rows if r['scene'] == s and r['build'] == ob and r['repeat'] != '1'}
        for k in ['visibility_s', 'wall_s']:
            d = [float(new[r][k]) - float(old[r][k]) for r in new if r in old]
            if d: print(f"{s:12s} paired against {ob} {k}: median {st.median(d):+.4f} s, new faster in {sum(x < 0 for x in d)} of {len(d)}")
PY
for s in tiny-room corridor small-room medium-room; do for b in rsim-14c7d49 rsim-sqrt20; do
  echo "compare $b against rsim, $s: $($B/rsim compare /tmp/c26-rsim-$s /tmp/c26-$b-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
done; done | tee -a "$OUT/c26.txt"
