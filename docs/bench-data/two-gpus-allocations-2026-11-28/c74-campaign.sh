#!/usr/bin/env bash
# The twenty-second session, fourth campaign (issue 21 on one H200 of a two-GPU host): the tiny room (eleven runs)
# and the medium room (five) on the GPU with every default output, K cache off, a2f65b7's
# bundle and 3338d8a's
# binary in turn, each with caches of its own after one run each to warm them: process_s, the
# command's wall time, and process_s less the phases' total (start-up and shut-down outside the
# phases).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/b /tmp/variants && tar xzf .device/rsim-bundle.tgz -C /tmp/b && tar xzf .device/variants-c71.tgz -C /tmp/variants
B=/tmp/b/rsim-bundle
source scripts/device/place-build.sh
place_build /tmp/variants/rsim-3338d8a rsim-old $B
$B/rsim generate medium-room --output scenes/generated/medium-room -q > /dev/null
python3 - "$B" <<'PY' 2>&1 | tee "$OUT/c74.txt"
import json, os, subprocess, sys, time, statistics as st
b = sys.argv[1]
V = {"new": b + "/rsim", "old": b + "/rsim-old"}
S = {"tiny-room": ("scenes/tiny-room/scene.toml", 11), "medium-room": ("scenes/generated/medium-room/scene.toml", 5)}
for scene, (path, reps) in S.items():
    rows = {v: [] for v in V}
    def run(v, keep):
        out = "/tmp/c74-%s-%s" % (scene, v)
        env = dict(os.environ, XDG_CACHE_HOME="/tmp/xdg-" + v)
        t = time.time()
        r = subprocess.run([V[v], "run", path, "--backend", "vulkan", "--no-k-cache", "--no-progress", "-o", out],
                           env=env, capture_output=True, text=True)
        wall = time.time() - t
        if r.returncode: print(v, "exit", r.returncode, r.stderr[-300:]); return
        s = json.load(open(out + "/summary.json"))
        if keep: rows[v].append((s["process_s"], wall, s["process_s"] - s["timings_s"]["total"]))
    for v in V: run(v, False)
    for rep in range(reps):
        for v in V: run(v, True); time.sleep(0.3)
    for v in V:
        p = [x[0] for x in rows[v]]; w = [x[1] for x in rows[v]]; o = [x[2] for x in rows[v]]
        print("%s %s: process_s median %.4f (%.4f-%.4f), wall median %.4f, outside the phases median %.4f; runs %s"
              % (scene, v, st.median(p), min(p), max(p), st.median(w), st.median(o), " ".join("%.4f" % x for x in p)))
    d = [a[0] - c[0] for a, c in zip(rows["new"], rows["old"])]
    print("%s paired process new - old: median %+.4f, %d of %d lower" % (scene, st.median(d), sum(x < 0 for x in d), len(d)))
    r = subprocess.run([b + "/rsim", "compare", "/tmp/c74-%s-old" % scene, "/tmp/c74-%s-new" % scene, "--max-fraction", "0", "--tol-m", "1e-6"], capture_output=True, text=True)
    print("compare %s new against old: %s" % (scene, (r.stdout + r.stderr).strip().splitlines()[-1]))
PY
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/c74-machine.txt"; nproc >> "$OUT/c74-machine.txt"
