#!/usr/bin/env bash
# The seventeenth session: the visibility's two tuning constants measured again at today's code
# (d7246eb, "new"): the blocker rounds after the first (RSIM_BLOCKER_ROUNDS, 8; builds r4, r6) and
# the pairs a launch covers (visibilityPairsPerLaunch, sqrt(P x 2^21); build l2: sqrt(P x 2^22),
# fewer launches now that a pair's lists take 30 bytes). Each build with caches of its own; the
# medium room eleven runs of each build in turn, the large room three, industry two; every default
# output, K cache off; summary.json's visibility phase and the passes' device time.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
mkdir -p /tmp/variants && tar xzf .device/variants-c42.tgz -C /tmp/variants
source scripts/device/place-build.sh
for v in r4 r6 l2; do place_build /tmp/variants/rsim-$v rsim-$v $B; done
for s in medium-room large-room industry; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > /tmp/o/machine.txt; nproc >> /tmp/o/machine.txt
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/c42.txt
import json, os, subprocess, sys, time, statistics as st, csv
b = sys.argv[1]
V = {"new": b + "/rsim", "r4": b + "/rsim-r4", "r6": b + "/rsim-r6", "l2": b + "/rsim-l2"}
REPS = {"medium-room": 11, "large-room": 3, "industry": 2}
G = ["visibility_gpu_facing_pairs", "visibility_gpu_tile_queries", "visibility_gpu_listed_pairs", "visibility_gpu_traced_pairs", "visibility_gpu_near_pairs"]
rows = []
def run(v, scene, out):
    env = dict(os.environ, XDG_CACHE_HOME="/tmp/xdg-" + v)
    cmd = [V[v], "run", "scenes/generated/%s/scene.toml" % scene, "--backend", "vulkan", "--no-k-cache", "--no-progress", "-o", out]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    s = json.load(open(out + "/summary.json")) if p.returncode == 0 else {}
    r = dict(rc=p.returncode, visibility=s.get("timings_s", {}).get("visibility", float("nan")),
             rays=s.get("rays", {}).get("visibility", float("nan")) if isinstance(s.get("rays"), dict) else float("nan"),
             max_row_sum=s.get("max_form_factor_row_sum", float("nan")), process_s=s.get("process_s", float("nan")))
    d = s.get("timings_detail_s", {})
    for k in G: r[k] = d.get(k, float("nan"))
    r["passes"] = sum(r[k] for k in G)
    return r
for v in V: # warm-up runs, each build filling its own caches
    for _ in range(2): run(v, "medium-room", "/tmp/w-" + v)
for scene, reps in REPS.items():
    for rep in range(reps):
        for v in V:
            time.sleep(0.35)
            r = run(v, scene, "/tmp/r-%s-%s" % (v, scene)); r.update(scene=scene, variant=v, rep=rep); rows.append(r)
    def col(v, k): return [r[k] for r in rows if r["scene"] == scene and r["variant"] == v]
    print("%s (%d runs of each; medians; paired against new)" % (scene, reps))
    for v in V:
        dv = [a - c for a, c in zip(col(v, "visibility"), col("new", "visibility"))]
        print("  %-4s visibility %.4f (%.4f-%.4f) paired %+.4f (%d lower)  passes %.4f: %s  max row sum %.4f" % (
            v, st.median(col(v, "visibility")), min(col(v, "visibility")), max(col(v, "visibility")), st.median(dv), sum(x < 0 for x in dv),
            st.median(col(v, "passes")), " ".join("%s %.4f" % (k[15:], st.median(col(v, k))) for k in G), st.median(col(v, "max_row_sum"))))
with open("/tmp/o/c42.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0].keys())); wr.writeheader(); wr.writerows(rows)
print("bad exit codes:", [(r["scene"], r["variant"]) for r in rows if r["rc"] != 0][:5])
PY
for s in medium-room large-room industry; do for v in r4 r6 l2; do
  echo "compare $s $v against new: $($R compare /tmp/r-new-$s /tmp/r-$v-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
done; done | tee -a /tmp/o/c42.txt
(cd /tmp/o && tar czf "$OUT/c42.tgz" . && cp c42.txt "$OUT/")
