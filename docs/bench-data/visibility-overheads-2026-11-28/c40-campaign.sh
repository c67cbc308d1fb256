#!/usr/bin/env bash
# The seventeenth session, third campaign: the code as committed (2e18480, "new") against d288636
# and issue 7's estimator (c14d843, simulation.tile_list_max = 0), each build with caches of its
# own (XDG_CACHE_HOME: rsim's pipeline cache and the driver's shader cache), so that no build's
# runs meet another's cache files; the tiny and medium rooms, eleven runs of each build in turn,
# every default output, K cache off.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
mkdir -p /tmp/variants && tar xzf .device/variants-c38.tgz -C /tmp/variants
source scripts/device/place-build.sh
for v in c14d843 d288636; do place_build /tmp/variants/rsim-$v rsim-$v $B; done
$R generate medium-room --output scenes/generated/medium-room -q > /dev/null
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > /tmp/o/machine.txt; nproc >> /tmp/o/machine.txt
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/c40.txt
import json, os, subprocess, sys, time, statistics as st, csv
b = sys.argv[1]
V = {"issue7": b + "/rsim-c14d843", "d288636": b + "/rsim-d288636", "new": b + "/rsim"}
EXTRA = {"issue7": ["--set", "simulation.tile_list_max=0"]}
scenes = {"tiny-room": "scenes/tiny-room/scene.toml", "medium-room": "scenes/generated/medium-room/scene.toml"}
PH = ["load", "accel", "direct", "visibility", "compress", "radiosity", "distance", "output", "total"]
rows = []
def run(v, scene, out):
    env = dict(os.environ, XDG_CACHE_HOME="/tmp/xdg-" + v)
    cmd = [V[v], "run", scenes[scene], "--backend", "vulkan", "--no-k-cache", "--no-progress", "-o", out] + EXTRA.get(v, [])
    t0 = time.perf_counter(); p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env); w = time.perf_counter() - t0
    s = json.load(open(out + "/summary.json")) if p.returncode == 0 else {}
    t = s.get("timings_s", {})
    r = dict(wall_s=round(w, 4), rc=p.returncode, process_s=s.get("process_s", float("nan")))
    for k in PH: r[k] = t.get(k, float("nan"))
    return r
for scene in scenes: # two warm-up runs of each build, each filling its own caches
    for v in V:
        for _ in range(2): run(v, scene, "/tmp/w-" + v)
print("isolated runs: 0.35 s apart, builds in turn, caches of their own; medians (n=11)")
for scene in scenes:
    for rep in range(11):
        for v in V:
            time.sleep(0.35)
            r = run(v, scene, "/tmp/r-" + v); r.update(scene=scene, variant=v, rep=rep); rows.append(r)
    def col(v, k): return [r[k] for r in rows if r["scene"] == scene and r["variant"] == v]
    for v in V:
        dv = [a - c for a, c in zip(col(v, "visibility"), col("d288636", "visibility"))]
        dw = [a - c for a, c in zip(col(v, "wall_s"), col("d288636", "wall_s"))]
        q = [a / c for a, c in zip(col("issue7", "visibility"), col(v, "visibility"))]
        print("  %-12s %-8s visibility %.4f (%.4f-%.4f; against d288636 paired %+.4f, %d of 11 lower)  issue7/this %.3f (paired %.3f, %.3f-%.3f)  wall %.3f (paired %+.4f, %d lower)" % (
            scene, v, st.median(col(v, "visibility")), min(col(v, "visibility")), max(col(v, "visibility")), st.median(dv), sum(x < 0 for x in dv),
            st.median(col("issue7", "visibility")) / st.median(col(v, "visibility")), st.median(q), min(q), max(q), st.median(col(v, "wall_s")), st.median(dw), sum(x < 0 for x in dw)))
        print("      visibility runs:", " ".join("%.4f" % x for x in col(v, "visibility")))
        print("      phases:", "  ".join("%s %.4f" % (k, st.median(col(v, k))) for k in PH),
              " outside %.4f" % st.median([p - q for p, q in zip(col(v, "process_s"), col(v, "total"))]))
with open("/tmp/o/c40.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0].keys())); wr.writeheader(); wr.writerows(rows)
print("bad exit codes:", [r for r in rows if r["rc"] != 0][:5])
PY
(cd /tmp/o && tar czf "$OUT/c40.tgz" . && cp c40.txt "$OUT/")
