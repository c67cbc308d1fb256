#!/usr/bin/env bash
# The nineteenth session, seventh campaign: at 9212f61 ("cur"), three blockers kept per listed
# pair instead of two ("b3"), and the occluder lists' limit 80 or 112 instead of 96 ("tl80",
# "tl112": cur with simulation.tile_list_max), against issue 7's estimator (c14d843,
# simulation.tile_list_max = 0; the medium room only). Each build with caches of its own, builds in
# turn, every default output, K cache off.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
mkdir -p /tmp/variants && tar xzf .device/variants-c55.tgz -C /tmp/variants
source scripts/device/place-build.sh
for v in c14d843 cur b3; do place_build /tmp/variants/rsim-$v rsim-$v $B; done
for s in medium-room large-room; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > /tmp/o/machine.txt; nproc >> /tmp/o/machine.txt
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/c55.txt
import json, os, subprocess, sys, time, statistics as st, csv
b = sys.argv[1]
V = {"issue7": b + "/rsim-c14d843", "cur": b + "/rsim-cur", "b3": b + "/rsim-b3", "tl80": b + "/rsim-cur", "tl112": b + "/rsim-cur"}
EXTRA = {"issue7": ["--set", "simulation.tile_list_max=0"], "tl80": ["--set", "simulation.tile_list_max=80"], "tl112": ["--set", "simulation.tile_list_max=112"]}
REPS = {"medium-room": 11, "large-room": 2}
ONLY = {"medium-room": V}  # issue 7 only where issue 18 compares against it
PH = ["load", "accel", "direct", "visibility", "compress", "radiosity", "distance", "output", "total"]
G = ["visibility_gpu_facing_pairs", "visibility_gpu_tile_queries", "visibility_gpu_listed_pairs", "visibility_gpu_traced_pairs", "visibility_gpu_near_pairs"]
rows = []
def path(scene):
    name = scene.partition("@")[0]
    return "scenes/tiny-room/scene.toml" if name == "tiny-room" else "scenes/generated/%s/scene.toml" % name
def run(v, scene, out):
    env = dict(os.environ, XDG_CACHE_HOME="/tmp/xdg-" + v)
    edge = scene.partition("@")[2]
    extra = ["--max-edge-m", edge, "--samples", "8", "--no-timeseries", "--no-images"] if edge else []
    cmd = [V[v], "run", path(scene), "--backend", "vulkan", "--no-k-cache", "--no-progress", "-o", out] + extra + EXTRA.get(v, [])
    t0 = time.perf_counter(); p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env); w = time.perf_counter() - t0
    s = json.load(open(out + "/summary.json")) if p.returncode == 0 else {}
    t = s.get("timings_s", {}); d = s.get("timings_detail_s", {})
    r = dict(wall_s=round(w, 4), rc=p.returncode, process_s=s.get("process_s", float("nan")),
             rays=s.get("rays", {}).get("visibility", float("nan")) if isinstance(s.get("rays"), dict) else float("nan"),
             max_row_sum=s.get("max_form_factor_row_sum", float("nan")))
    for k in PH: r[k] = t.get(k, float("nan"))
    for k in G: r[k] = d.get(k, float("nan"))
    r["passes"] = sum(r[k] for k in G)
    return r
for v in V: # two warm-up runs of each build, each filling its own caches
    for _ in range(2): run(v, "medium-room", "/tmp/w-" + v)
for scene, reps in REPS.items():
    builds = [v for v in V if v in ONLY.get(scene, ["cur", "b3", "tl80", "tl112"])]
    for rep in range(reps):
        for v in builds:
            time.sleep(0.35)
            r = run(v, scene, "/tmp/r-%s-%s" % (v, scene)); r.update(scene=scene, variant=v, rep=rep); rows.append(r)
    def col(v, k): return [r[k] for r in rows if r["scene"] == scene and r["variant"] == v]
    print("%s (%d runs of each; medians; paired against cur)" % (scene, reps))
    for v in builds:
        dv = [a - c for a, c in zip(col(v, "visibility"), col("cur", "visibility"))]
        line = "  %-7s visibility %.4f (%.4f-%.4f) paired %+.4f (%d lower)" % (v, st.median(col(v, "visibility")), min(col(v, "visibility")),
               max(col(v, "visibility")), st.median(dv), sum(x < 0 for x in dv))
        if "issue7" in builds:
            q = [a / c for a, c in zip(col("issue7", "visibility"), col(v, "visibility"))]
            line += "  issue7/this %.3f (paired %.3f, %.3f-%.3f)" % (st.median(col("issue7", "visibility")) / st.median(col(v, "visibility")), st.median(q), min(q), max(q))
        print(line)
        print("      passes %.4f: %s  rays %.4g  max row sum %.4f" % (st.median(col(v, "passes")), " ".join("%s %.4f" % (k[15:], st.median(col(v, k))) for k in G),
              st.median(col(v, "rays")), st.median(col(v, "max_row_sum"))))
        print("      phases:", "  ".join("%s %.4f" % (k, st.median(col(v, k))) for k in PH), " process %.4f" % st.median(col(v, "process_s")))
        dp = [a - c for a, c in zip(col(v, "process_s"), col("cur", "process_s"))]
        print("      process paired %+.4f (%d lower), wall %.4f" % (st.median(dp), sum(x < 0 for x in dp), st.median(col(v, "wall_s"))))
        print("      visibility runs:", " ".join("%.4f" % x for x in col(v, "visibility")))
with open("/tmp/o/c55.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0].keys())); wr.writeheader(); wr.writerows(rows)
print("bad exit codes:", [(r["scene"], r["variant"]) for r in rows if r["rc"] != 0][:5])
PY
for s in medium-room large-room; do for v in b3 tl80 tl112; do
  echo "compare $s $v against cur: $($R compare /tmp/r-cur-$s /tmp/r-$v-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
  echo "compare $s $v against cur, default tolerances: $($R compare /tmp/r-cur-$s /tmp/r-$v-$s 2>&1 | tail -1)"
done; done | tee -a /tmp/o/c55.txt
XDG_CACHE_HOME=/tmp/xdg-b3 $B/rsim-b3 run scenes/generated/medium-room/scene.toml --backend vulkan --no-k-cache --no-progress -o /tmp/dbg --log-level debug > /tmp/o/log-medium-b3.txt 2>&1
(cd /tmp/o && tar czf "$OUT/c55.tgz" . && cp c55.txt "$OUT/")
