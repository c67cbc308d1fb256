#!/usr/bin/env bash
# Issue 21: HEAD's binary against the working tree (the command ends at its results; one queue
# family where K stays resident; timeseries.h5 in more, smaller chunks), whole process timed by the parent.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
source scripts/device/place-build.sh
place_build .device/variants/rsim-head rsim-head $B
for s in small-room medium-room; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > /tmp/o/machine.txt; nproc >> /tmp/o/machine.txt
$R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1   # first runs: cold pipelines
$B/rsim-head run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/final13.txt
import json, os, subprocess, sys, time, statistics as st, csv
b = sys.argv[1]
V = {  # name: (binary, extra args)
    "head": (b + "/rsim-head", []),
    "new": (b + "/rsim", []),
    "head-nots": (b + "/rsim-head", ["--no-timeseries"]),
    "new-nots": (b + "/rsim", ["--no-timeseries"]),
    "new-nots-wait": (b + "/rsim", ["--no-timeseries", "--exit-after-release"]),
}
scenes = {"tiny-room": "scenes/tiny-room/scene.toml", "small-room": "scenes/generated/small-room/scene.toml",
          "medium-room": "scenes/generated/medium-room/scene.toml"}
rows = []
def run(v, scene, out):
    exe, extra = V[v]
    cmd = [exe, "run", scenes[scene], "--backend", "vulkan", "--no-k-cache", "--no-progress", "-o", out] + extra
    t0 = time.perf_counter(); p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT); w = time.perf_counter() - t0
    s = json.load(open(out + "/summary.json")) if p.returncode == 0 else {}
    t = s.get("timings_s", {})
    return dict(wall_s=round(w, 4), rc=p.returncode, process_s=s.get("process_s", float("nan")), phases_s=t.get("total", float("nan")),
                output_s=t.get("output", float("nan")))
print("isolated runs: 0.35 s apart, variants in turn; medians (n=7), paired against head / head-nots")
for scene in scenes:
    for rep in range(7):
        for v in V:
            time.sleep(0.35)
            r = run(v, scene, "/tmp/r-" + v); r.update(mode="isolated", scene=scene, variant=v, rep=rep); rows.append(r)
    def col(v, k): return [r[k] for r in rows if r["mode"] == "isolated" and r["scene"] == scene and r["variant"] == v]
    for v in V:
        w = col(v, "wall_s"); ref = "head" if "nots" not in v else "head-nots"
        d = [a - c for a, c in zip(w, col(ref, "wall_s"))]
        print("  %-12s %-14s wall %.3f (min %.3f max %.3f)  output %.3f  outside %.3f  paired vs %s %+.3f (%d of %d faster)" % (
            scene, v, st.median(w), min(w), max(w), st.median(col(v, "output_s")),
            st.median([p - q for p, q in zip(col(v, "process_s"), col(v, "phases_s"))]), ref, st.median(d), sum(x < 0 for x in d), len(d)))
print("back to back: blocks of 10 runs of the tiny room, default outputs, total seconds per block")
for rnd in range(3):
    for v in ("head", "new"):
        time.sleep(0.5)
        t0 = time.perf_counter()
        for i in range(10):
            r = run(v, "tiny-room", "/tmp/r-" + v); r.update(mode="block", scene="tiny-room", variant=v, rep=rnd * 10 + i); rows.append(r)
        rows.append(dict(mode="block-total", scene="tiny-room", variant=v, rep=rnd, wall_s=round(time.perf_counter() - t0, 4), rc=0, process_s=0, phases_s=0, output_s=0))
for v in ("head", "new"):
    print("  %-8s %s" % (v, " ".join("%.3f" % r["wall_s"] for r in rows if r["mode"] == "block-total" and r["variant"] == v)))
with open("/tmp/o/final13.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0].keys())); wr.writeheader(); wr.writerows(rows)
print("bad exit codes:", [r for r in rows if r["rc"] != 0][:5])
PY
for s in tiny-room medium-room; do
  f=scenes/tiny-room/scene.toml; [[ $s == medium-room ]] && f=scenes/generated/medium-room/scene.toml
  $B/rsim-head run $f --backend vulkan --no-k-cache --no-progress -q -o /tmp/c-head-$s > /dev/null 2>&1
  $R run $f --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/c-new-$s > /tmp/o/timeline-$s-new.log 2>&1
  $R compare /tmp/c-head-$s /tmp/c-new-$s --max-fraction 0 --tol-m 1e-6 > /tmp/o/compare-$s.txt 2>&1; echo "compare $s rc $?" >> /tmp/o/compare-$s.txt
done
(cd /tmp/o && cp final13.txt "$OUT/" && tail -n 3 compare-*.txt)
# The whole suite on this GPU, under the validation layer
OUT=/tmp/o/tests bash scripts/device/gpu-run.sh tests > /tmp/o/tests-stage.log 2>&1; echo "tests rc $?" >> /tmp/o/tests-stage.log
gzip -f /tmp/o/tests/gpu-tests.txt; tail -3 /tmp/o/tests-stage.log
cd /tmp/o && tar czf "$OUT/final13.tgz" .
