#!/usr/bin/env bash
# Issue 18/21: fp32 K kept until the device's release (working tree) against 369737f, which
# frees it on another thread right after the encoding.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
source scripts/device/place-build.sh
place_build .device/variants/rsim-369737f rsim-old $B
for s in small-room medium-room; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > /tmp/o/machine.txt
$R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/hold.txt
import json, subprocess, sys, time, statistics as st, csv
b = sys.argv[1]
V = {"old": b + "/rsim-old", "new": b + "/rsim"}
scenes = {"tiny-room": "scenes/tiny-room/scene.toml", "small-room": "scenes/generated/small-room/scene.toml",
          "medium-room": "scenes/generated/medium-room/scene.toml"}
rows = []
for scene in scenes:
    for rep in range(9):
        for v in V:
            time.sleep(0.3)
            out = "/tmp/r-" + v
            t0 = time.perf_counter()
            p = subprocess.run([V[v], "run", scenes[scene], "--backend", "vulkan", "--no-k-cache", "--no-progress", "--no-timeseries",
                                "--log-level", "debug", "-o", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            w = time.perf_counter() - t0
            s = json.load(open(out + "/summary.json")); t = s["timings_s"]
            vis_line = [l for l in p.stdout.splitlines() if "rays in" in l and "candidate pairs" in l]
            rows.append(dict(scene=scene, variant=v, rep=rep, wall_s=round(w, 4), process_s=s["process_s"], total=t["total"],
                             visibility=t.get("visibility"), compress=t.get("compress"), radiosity=t.get("radiosity"),
                             log_line=vis_line[0].split(" in ")[-1].split(" s ")[0] if vis_line else ""))
    def col(v, k): return [r[k] for r in rows if r["scene"] == scene and r["variant"] == v]
    for k in ("wall_s", "visibility", "compress", "radiosity", "total"):
        a, c = col("old", k), col("new", k)
        d = [y - x for x, y in zip(a, c)]
        print("%-12s %-10s old %.4f new %.4f  paired %+.4f (%d of %d lower)" % (scene, k, st.median(a), st.median(c), st.median(d), sum(x < 0 for x in d), len(d)))
    print("%-12s log line old %s new %s" % (scene, " ".join(col("old", "log_line")), " ".join(col("new", "log_line"))))
with open("/tmp/o/hold.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0].keys())); wr.writeheader(); wr.writerows(rows)
PY
$R run scenes/generated/medium-room/scene.toml --backend vulkan --no-k-cache --no-progress --no-timeseries --log-level debug -o /tmp/r-dbg > /tmp/o/timeline-medium-new.log 2>&1
$B/rsim-old run scenes/generated/medium-room/scene.toml --backend vulkan --no-k-cache --no-progress --no-timeseries --log-level debug -o /tmp/r-dbg0 > /tmp/o/timeline-medium-old.log 2>&1
$R compare /tmp/r-dbg0 /tmp/r-dbg --max-fraction 0 --tol-m 1e-6 > /tmp/o/compare.txt 2>&1; echo "compare rc $?" >> /tmp/o/compare.txt; tail -2 /tmp/o/compare.txt
cd /tmp/o && tar czf "$OUT/hold.tgz" .
