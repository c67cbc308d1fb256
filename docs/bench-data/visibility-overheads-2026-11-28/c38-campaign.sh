#!/usr/bin/env bash
# The seventeenth session: the visibility phase's overheads (row sums in blocks of columns, the
# first launch's lists of pairs sized by its pairs, the visibility's pipelines compiled from the
# start of the scene's placement) against d288636 (the session's start), "ab" (the first two
# alone) and issue 7's estimator as issue 18 measures it (c14d843 with every ray traced,
# simulation.tile_list_max = 0), all on this one GPU: eleven runs of each build in turn, every
# default output, every phase of summary.json; debug timelines; rsim compare; the whole suite
# under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
mkdir -p /tmp/variants && tar xzf .device/variants-c38.tgz -C /tmp/variants
source scripts/device/place-build.sh
for v in c14d843 d288636 ab; do place_build /tmp/variants/rsim-$v rsim-$v $B; done
for s in small-room medium-room; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > /tmp/o/machine.txt; nproc >> /tmp/o/machine.txt
for v in rsim rsim-c14d843 rsim-d288636 rsim-ab; do $B/$v run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1; done
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/c38.txt
import json, os, subprocess, sys, time, statistics as st, csv
b = sys.argv[1]
V = {"issue7": b + "/rsim-c14d843", "d288636": b + "/rsim-d288636", "ab": b + "/rsim-ab", "new": b + "/rsim"}
EXTRA = {"issue7": ["--set", "simulation.tile_list_max=0"]}
REF = "d288636"
scenes = {"tiny-room": "scenes/tiny-room/scene.toml", "small-room": "scenes/generated/small-room/scene.toml",
          "medium-room": "scenes/generated/medium-room/scene.toml"}
PH = ["load", "accel", "direct", "visibility", "compress", "radiosity", "distance", "output", "total"]
rows = []
def run(v, scene, out):
    cmd = [V[v], "run", scenes[scene], "--backend", "vulkan", "--no-k-cache", "--no-progress", "-o", out] + EXTRA.get(v, [])
    t0 = time.perf_counter(); p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT); w = time.perf_counter() - t0
    s = json.load(open(out + "/summary.json")) if p.returncode == 0 else {}
    t = s.get("timings_s", {})
    r = dict(wall_s=round(w, 4), rc=p.returncode, process_s=s.get("process_s", float("nan")),
             max_row_sum=s.get("max_form_factor_row_sum", float("nan")))
    for k in PH: r[k] = t.get(k, float("nan"))
    return r
print("isolated runs: 0.35 s apart, builds in turn; medians (n=11), paired against", REF)
for scene in scenes:
    for rep in range(11):
        for v in V:
            time.sleep(0.35)
            r = run(v, scene, "/tmp/r-" + v); r.update(scene=scene, variant=v, rep=rep); rows.append(r)
    def col(v, k): return [r[k] for r in rows if r["scene"] == scene and r["variant"] == v]
    for v in V:
        w = col(v, "wall_s"); d = [a - c for a, c in zip(w, col(REF, "wall_s"))]
        dv = [a - c for a, c in zip(col(v, "visibility"), col(REF, "visibility"))]
        da = [a + b2 - c - e for a, b2, c, e in zip(col(v, "accel"), col(v, "direct"), col(REF, "accel"), col(REF, "direct"))]
        ratio = [a / c for a, c in zip(col("issue7", "visibility"), col(v, "visibility"))]
        print("  %-12s %-8s wall %.3f (min %.3f max %.3f)  paired %+.4f (%d of %d faster)  visibility %.4f (min %.4f max %.4f; paired %+.4f, %d faster)  accel+direct paired %+.4f  issue7/this %.3f (paired median %.3f, min %.3f)  max row sum %.4f" % (
            scene, v, st.median(w), min(w), max(w), st.median(d), sum(x < 0 for x in d), len(d),
            st.median(col(v, "visibility")), min(col(v, "visibility")), max(col(v, "visibility")), st.median(dv), sum(x < 0 for x in dv), st.median(da),
            st.median(col("issue7", "visibility")) / st.median(col(v, "visibility")), st.median(ratio), min(ratio), st.median(col(v, "max_row_sum"))))
        print("      phases:", "  ".join("%s %.4f" % (k, st.median(col(v, k))) for k in PH),
              " outside %.4f" % st.median([p - q for p, q in zip(col(v, "process_s"), col(v, "total"))]))
with open("/tmp/o/c38.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0].keys())); wr.writeheader(); wr.writerows(rows)
print("bad exit codes:", [r for r in rows if r["rc"] != 0][:5])
PY
for s in tiny-room medium-room; do
  f=scenes/tiny-room/scene.toml; [[ $s == medium-room ]] && f=scenes/generated/medium-room/scene.toml
  for v in c14d843 d288636 ab new; do
    exe=$B/rsim-$v; extra=""; [[ $v == new ]] && exe=$R; [[ $v == c14d843 ]] && extra="--set simulation.tile_list_max=0"
    $exe run $f --backend vulkan --no-k-cache --no-progress --log-level debug $extra -o /tmp/c-$v-$s > /tmp/o/timeline-$s-$v.log 2>&1
  done
  $R compare /tmp/c-d288636-$s /tmp/c-new-$s --max-fraction 0 --tol-m 1e-6 > /tmp/o/compare-$s.txt 2>&1; echo "compare $s rc $?" >> /tmp/o/compare-$s.txt
done
(cd /tmp/o && tail -qn 1 compare-*.txt)
(cd /tmp/o && tar czf "$OUT/c38.tgz" . && cp c38.txt "$OUT/")
# The whole suite on this GPU, under the validation layer
OUT=/tmp/o2/tests bash scripts/device/gpu-run.sh tests > /tmp/o2-stage.log 2>&1; echo "tests rc $?" >> /tmp/o2-stage.log
gzip -f /tmp/o2/tests/gpu-tests.txt; tail -3 /tmp/o2-stage.log; cp /tmp/o2-stage.log /tmp/o2/tests/gpu-tests.txt.gz "$OUT/"
