#!/usr/bin/env bash
# timeseries.h5 in 16 chunks (rounded up) instead of 17 (working tree) against 703b90c.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
source scripts/device/place-build.sh
place_build .device/variants/rsim-703b90c rsim-old $B
$R generate small-room --output scenes/generated/small-room -q > /dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > /tmp/o/machine.txt
$R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/chunks16.txt
import json, re, subprocess, sys, time, statistics as st, csv
b = sys.argv[1]
V = {"old": b + "/rsim-old", "new": b + "/rsim"}
scenes = {"tiny-room": "scenes/tiny-room/scene.toml", "small-room": "scenes/generated/small-room/scene.toml"}
rows = []
for scene in scenes:
    for rep in range(9):
        for v in V:
            time.sleep(0.35)
            out = "/tmp/r-" + v
            t0 = time.perf_counter()
            p = subprocess.run([V[v], "run", scenes[scene], "--backend", "vulkan", "--no-k-cache", "--no-progress",
                                "--log-level", "debug", "-o", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            w = time.perf_counter() - t0
            s = json.load(open(out + "/summary.json"))
            m = re.search(r"timeseries.h5 ([0-9.]+) s", p.stdout)
            rows.append(dict(scene=scene, variant=v, rep=rep, wall_s=round(w, 4), output=s["timings_s"]["output"],
                             timeseries=float(m.group(1)) if m else float("nan")))
    def col(v, k): return [r[k] for r in rows if r["scene"] == scene and r["variant"] == v]
    for k in ("wall_s", "output", "timeseries"):
        a, c = col("old", k), col("new", k)
        d = [y - x for x, y in zip(a, c)]
        print("%-12s %-10s old %.4f new %.4f  paired %+.4f (%d of %d lower)" % (scene, k, st.median(a), st.median(c), st.median(d), sum(x < 0 for x in d), len(d)))
with open("/tmp/o/chunks16.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0].keys())); wr.writeheader(); wr.writerows(rows)
PY
$R compare /tmp/r-old /tmp/r-new --max-fraction 0 --tol-m 1e-6 > /tmp/o/compare.txt 2>&1; echo "compare rc $?" >> /tmp/o/compare.txt; tail -1 /tmp/o/compare.txt
cd /tmp/o && tar czf "$OUT/chunks16.tgz" .
