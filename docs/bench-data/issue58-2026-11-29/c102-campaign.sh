#!/usr/bin/env bash
# c100 saw the large room's visibility 0.5% slower in 72e0f5a than in 724e991 (3 pairs); this
# repeats it 8 times, the builds alternating, with the device time of each visibility pass
# (timings_detail_s) beside the phase, to tell the device's work from the host's gaps.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .device/prelude.sh > /dev/null
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b && tar xzf .device/base-724e991.tgz -C /tmp
B=/tmp/b/rsim-bundle
source scripts/device/place-build.sh
place_build /tmp/base rsim-old $B
$B/rsim generate large-room --output scenes/generated/large-room -q > /dev/null
python3 - "$B" <<'PY' 2>&1 | tee "$OUT/c102.txt"
import json, os, subprocess, sys, statistics as st
b = sys.argv[1]
V = {"old": b + "/rsim-old", "new": b + "/rsim"}
keys = ["visibility_rays", "visibility_gpu_facing_pairs", "visibility_gpu_tile_queries", "visibility_gpu_listed_pairs",
        "visibility_gpu_traced_pairs", "visibility_gpu_near_pairs"]
rows = {v: [] for v in V}
def run(v):
    out = "/tmp/c102-" + v
    r = subprocess.run([V[v], "run", "scenes/generated/large-room/scene.toml", "--backend", "vulkan", "--no-k-cache",
                        "--no-progress", "--no-timeseries", "--no-images", "-o", out],
                       env=dict(os.environ, XDG_CACHE_HOME="/tmp/xdg-" + v), capture_output=True, text=True)
    if r.returncode: print(v, r.stderr[-300:]); return None
    s = json.load(open(out + "/summary.json"))
    d = dict(s.get("timings_detail_s", {}))
    return [s["timings_s"]["visibility"], s["timings_s"]["radiosity"]] + [d.get(k, float("nan")) for k in keys]
for v in V: run(v)
for r in range(8):
    for v in V:
        x = run(v)
        if x: rows[v].append(x); print(v, r, " ".join("%.4f" % y for y in x), flush=True)
names = ["visibility", "radiosity"] + keys
for i, n in enumerate(names):
    o = [x[i] for x in rows["old"]]; w = [x[i] for x in rows["new"]]
    d = [b - a for a, b in zip(o, w)]
    print("%-30s old median %.4f [%.4f, %.4f]  new median %.4f [%.4f, %.4f]  paired new-old median %+.4f [%+.4f, %+.4f]" %
          (n, st.median(o), min(o), max(o), st.median(w), min(w), max(w), st.median(d), min(d), max(d)))
PY
