#!/usr/bin/env bash
# Issue 58's restructuring (72e0f5a) against the build before it (724e991: the same numerics and
# options) on one H200: the medium room, the large room and industry on the GPU, the builds
# alternating (5, 3 and 2 repeats), every phase of summary.json and the whole command's wall
# time; `rsim compare --tol-m 1e-6 --max-fraction 0` of each scene's last outputs; then the tiny
# room with the default (one process) against --set tuning.early_exit=true (the fork), 11
# alternating runs each. K cache off, every default output but timeseries.h5.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .device/prelude.sh
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b && tar xzf .device/base-724e991.tgz -C /tmp
B=/tmp/b/rsim-bundle
source scripts/device/place-build.sh
place_build /tmp/base rsim-old $B
for s in medium-room large-room industry; do $B/rsim generate $s --output scenes/generated/$s -q > /dev/null; done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/c100-machine.txt"; nproc >> "$OUT/c100-machine.txt"
python3 - "$B" <<'PY' 2>&1 | tee "$OUT/c100.txt"
import json, os, subprocess, sys, time, statistics as st
b = sys.argv[1]
V = {"old": b + "/rsim-old", "new": b + "/rsim"}
def run(v, path, out, extra=()):
    env = dict(os.environ, XDG_CACHE_HOME="/tmp/xdg-" + v)
    t = time.time()
    r = subprocess.run([V[v], "run", path, "--backend", "vulkan", "--no-k-cache", "--no-progress", "--no-timeseries",
                        "-o", out, *extra], env=env, capture_output=True, text=True)
    wall = time.time() - t
    if r.returncode:
        print(v, path, "exit", r.returncode, r.stderr[-400:]); return None
    s = json.load(open(out + "/summary.json"))
    return wall, s
for scene, reps in (("medium-room", 5), ("large-room", 3), ("industry", 2)):
    path = "scenes/generated/%s/scene.toml" % scene
    for v in V: run(v, path, "/tmp/warm-%s-%s" % (scene, v))  # each build's pipeline cache warm
    rows = {v: [] for v in V}
    for r in range(reps):
        for v in V:
            got = run(v, path, "/tmp/c100-%s-%s" % (scene, v))
            if got:
                wall, s = got
                t = s["timings_s"]
                rows[v].append((wall, t))
                print("%s %s %d wall %.3f total %.4f %s" % (scene, v, r, wall, t["total"],
                      " ".join("%s %.4f" % (k, x) for k, x in t.items() if k != "total")), flush=True)
    for v in V:
        if rows[v]:
            med = {k: st.median(t[k] for _, t in rows[v]) for k in rows[v][0][1]}
            print("%s %s median wall %.3f %s" % (scene, v, st.median(w for w, _ in rows[v]),
                  " ".join("%s %.4f" % (k, x) for k, x in med.items())))
    c = subprocess.run([V["new"], "compare", "/tmp/c100-%s-old" % scene, "/tmp/c100-%s-new" % scene,
                        "--tol-m", "1e-6", "--max-fraction", "0"], capture_output=True, text=True)
    print("compare %s old new --tol-m 1e-6 --max-fraction 0: %s" % (scene, (c.stdout + c.stderr).strip().splitlines()[-1]))
# The fork (tuning.early_exit) against one process, the tiny room, wall time of the command.
tiny = "scenes/tiny-room/scene.toml"
walls = {"one process": [], "early_exit": []}
run("new", tiny, "/tmp/c100-tiny-warm")
for r in range(11):
    for k, extra in (("one process", ()), ("early_exit", ("--set", "tuning.early_exit=true"))):
        got = run("new", tiny, "/tmp/c100-tiny-%s" % k.replace(" ", "-"), extra)
        if got: walls[k].append(got[0])
for k, w in walls.items():
    print("tiny room %s: median wall %.4f s, min %.4f, max %.4f (%d runs)" % (k, st.median(w), min(w), max(w), len(w)))
d = [a - b for a, b in zip(walls["one process"], walls["early_exit"])]
print("tiny room paired (one process - early_exit): median %.4f s, min %.4f, max %.4f" % (st.median(d), min(d), max(d)))
PY
