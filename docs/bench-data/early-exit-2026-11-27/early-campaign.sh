#!/usr/bin/env bash
# Issue 21: the command's end at the results (util/early_exit.h) against the run that waits for
# its release; one queue family against two (experiment). Whole process, timed by the parent.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
source scripts/device/place-build.sh
place_build .device/variants/rsim-head rsim-head $B
for s in small-room medium-room; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > /tmp/o/machine.txt; nproc >> /tmp/o/machine.txt
$R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1   # first run: cold pipelines
$B/rsim-head run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/early.txt
import json, os, subprocess, sys, time, statistics, csv
b = sys.argv[1]
V = {  # name: (binary, extra args, extra env)
    "head": (b + "/rsim-head", [], {}),
    "wait": (b + "/rsim", ["--exit-after-release"], {}),
    "early": (b + "/rsim", [], {}),
    "early1q": (b + "/rsim", [], {"RSIM_EXPERIMENT_ONE_QUEUE": "1"}),
}
scenes = {"tiny-room": "scenes/tiny-room/scene.toml", "small-room": "scenes/generated/small-room/scene.toml",
          "medium-room": "scenes/generated/medium-room/scene.toml"}
rows = []
def run(v, scene, out):
    exe, extra, env = V[v]
    cmd = [exe, "run", scenes[scene], "--backend", "vulkan", "--no-k-cache", "--no-progress", "-o", out] + extra
    e = dict(os.environ, **env)
    t0 = time.perf_counter(); p = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT); w = time.perf_counter() - t0
    s = json.load(open(out + "/summary.json")) if p.returncode == 0 else {}
    return w, p.returncode, s.get("process_s", float("nan")), s.get("timings_s", {}).get("total", float("nan"))
print("isolated runs: 0.35 s apart, variants in turn")
for scene in scenes:
    for rep in range(9):
        for v in V:
            time.sleep(0.35)
            w, rc, ps, tot = run(v, scene, "/tmp/r-" + v)
            rows.append(dict(mode="isolated", scene=scene, variant=v, rep=rep, wall_s=round(w, 4), rc=rc, process_s=ps, phases_s=tot))
    for v in V:
        xs = [r["wall_s"] for r in rows if r["scene"] == scene and r["variant"] == v and r["mode"] == "isolated"]
        print("  %-12s %-8s median %.3f  min %.3f  max %.3f  (n=%d)" % (scene, v, statistics.median(xs), min(xs), max(xs), len(xs)))
print("back to back: blocks of 10 runs of the tiny room, total seconds per block")
for rnd in range(3):
    for v in V:
        time.sleep(0.5)
        t0 = time.perf_counter()
        for i in range(10):
            w, rc, ps, tot = run(v, "tiny-room", "/tmp/r-" + v)
            rows.append(dict(mode="block", scene="tiny-room", variant=v, rep=rnd * 10 + i, wall_s=round(w, 4), rc=rc, process_s=ps, phases_s=tot))
        rows.append(dict(mode="block-total", scene="tiny-room", variant=v, rep=rnd, wall_s=round(time.perf_counter() - t0, 4), rc=0, process_s=0, phases_s=0))
for v in V:
    print("  %-8s %s" % (v, " ".join("%.3f" % r["wall_s"] for r in rows if r["mode"] == "block-total" and r["variant"] == v)))
with open("/tmp/o/early.csv", "w", newline="") as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0].keys())); wr.writeheader(); wr.writerows(rows)
print("bad exit codes:", [r for r in rows if r["rc"] != 0][:5])
PY
# Results of the last runs: the same
$B/rsim compare /tmp/r-head /tmp/r-early --max-fraction 0 --tol-m 1e-6 > /tmp/o/compare.txt 2>&1; echo "compare head/early rc $?" >> /tmp/o/compare.txt
$B/rsim compare /tmp/r-head /tmp/r-early1q --max-fraction 0 --tol-m 1e-6 >> /tmp/o/compare.txt 2>&1; echo "compare head/early1q rc $?" >> /tmp/o/compare.txt
$R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/r-dbg > /tmp/o/timeline-tiny-early.log 2>&1
RSIM_EXPERIMENT_ONE_QUEUE=1 $R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/r-dbg > /tmp/o/timeline-tiny-early1q.log 2>&1
$R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug --exit-after-release -o /tmp/r-dbg > /tmp/o/timeline-tiny-wait.log 2>&1
cd /tmp/o && tar czf "$OUT/early.tgz" . && cp early.txt compare.txt "$OUT/"
