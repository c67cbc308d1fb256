#!/usr/bin/env bash
# The session's end: a0ec74a (its start) against the working tree ("new", d586491's code), every
# default output; then the whole suite under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
cp .device/extra-libs/* $B/lib/   # the older builds link libdeflate, which the bundle no longer packs
source scripts/device/place-build.sh
:
place_build .device/variants/rsim-a0ec74a rsim-a0ec74a $B
for s in small-room medium-room; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > /tmp/o/machine.txt; nproc >> /tmp/o/machine.txt
$R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1   # first runs: cold pipelines
:
for v in a0ec74a; do $B/rsim-$v run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1; done
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/c22.txt
import json, os, subprocess, sys, time, statistics as st, csv
b = sys.argv[1]
V = {"a0ec74a": b + "/rsim-a0ec74a", "new": b + "/rsim"}
REF = "a0ec74a"
scenes = {"tiny-room": "scenes/tiny-room/scene.toml", "small-room": "scenes/generated/small-room/scene.toml",
          "medium-room": "scenes/generated/medium-room/scene.toml"}
rows = []
def run(v, scene, out):
    cmd = [V[v], "run", scenes[scene], "--backend", "vulkan", "--no-k-cache", "--no-progress", "-o", out]
    t0 = time.perf_counter(); p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT); w = time.perf_counter() - t0
    s = json.load(open(out + "/summary.json")) if p.returncode == 0 else {}
    t = s.get("timings_s", {}); d = s.get("timings_detail_s", {})
    r = dict(wall_s=round(w, 4), rc=p.returncode, process_s=s.get("process_s", float("nan")), phases_s=t.get("total", float("nan")),
             output_s=t.get("output", float("nan")), radiosity_s=t.get("radiosity", float("nan")), visibility_s=t.get("visibility", float("nan")),
             radiosity_setup=d.get("radiosity_setup", float("nan")), radiosity_loop=d.get("radiosity_loop", float("nan")),
             near_lists=d.get("near_lists", float("nan")), download_s=t.get("download", float("nan")),
             create_device=next((x for k, x in s.get("startup_s", {}).items() if k.startswith("vkCreateDevice")), float("nan")),
             ts_bytes=os.path.getsize(out + "/timeseries.h5") if p.returncode == 0 else 0)
    return r
print("isolated runs: 0.35 s apart, variants in turn; medians (n=13), paired against a0ec74a")
for scene in scenes:
    for rep in range(13):
        for v in V:
            time.sleep(0.35)
            r = run(v, scene, "/tmp/r-" + v); r.update(scene=scene, variant=v, rep=rep); rows.append(r)
    def col(v, k): return [r[k] for r in rows if r["scene"] == scene and r["variant"] == v]
    for v in V:
        w = col(v, "wall_s"); d = [a - c for a, c in zip(w, col(REF, "wall_s"))]
        o = [a - c for a, c in zip(col(v, "output_s"), col(REF, "output_s"))]
        print("  %-12s %-6s wall %.3f (min %.3f max %.3f)  output %.3f (paired %+.4f)  outside %.3f  paired wall %+.4f (%d of %d faster)  timeseries.h5 %.1f MB" % (
            scene, v, st.median(w), min(w), max(w), st.median(col(v, "output_s")), st.median(o),
            st.median([p - q for p, q in zip(col(v, "process_s"), col(v, "phases_s"))]), st.median(d), sum(x < 0 for x in d), len(d),
            col(v, "ts_bytes")[0] / 1e6))
    print("  %-12s medians: %s" % (scene, "  ".join("%s visibility %.4f radiosity %.4f download %.4f" % (v, st.median(col(v, "visibility_s")), st.median(col(v, "radiosity_s")), st.median(col(v, "download_s"))) for v in V)))
    print("  %-12s detail (new medians): radiosity %.4f = setup %.4f + loop %.4f, near lists %.4f; visibility %.4f" % (
        scene, st.median(col("new", "radiosity_s")), st.median(col("new", "radiosity_setup")), st.median(col("new", "radiosity_loop")),
        st.median(col("new", "near_lists")), st.median(col("new", "visibility_s"))))
with open("/tmp/o/c22.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0].keys())); wr.writeheader(); wr.writerows(rows)
print("bad exit codes:", [r for r in rows if r["rc"] != 0][:5])
PY
for s in tiny-room medium-room; do
  f=scenes/tiny-room/scene.toml; [[ $s == medium-room ]] && f=scenes/generated/medium-room/scene.toml
  for v in a0ec74a new; do
    exe=$B/rsim-$v; [[ $v == new ]] && exe=$R
    $exe run $f --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/c-$v-$s > /tmp/o/timeline-$s-$v.log 2>&1
  done
  cp /tmp/c-new-$s/summary.json /tmp/o/summary-$s-new.json
  for v in a0ec74a new; do
    $R compare /tmp/c-a0ec74a-$s /tmp/c-$v-$s --max-fraction 0 --tol-m 1e-6 > /tmp/o/compare-$s-$v.txt 2>&1; echo "compare $s $v rc $?" >> /tmp/o/compare-$s-$v.txt
  done
  for f in /tmp/o/timeline-$s-*.log; do echo "$(basename $f): $(grep -o "triangles.csv.*" $f)"; done >> /tmp/o/c22.txt
done
(cd /tmp/o && cp c22.txt "$OUT/" && tail -qn 1 compare-*.txt)
# The whole suite on this GPU, under the validation layer
OUT=/tmp/o/tests bash scripts/device/gpu-run.sh tests > /tmp/o/tests-stage.log 2>&1; echo "tests rc $?" >> /tmp/o/tests-stage.log
gzip -f /tmp/o/tests/gpu-tests.txt; tail -3 /tmp/o/tests-stage.log
cd /tmp/o && tar czf "$OUT/c22.tgz" .
