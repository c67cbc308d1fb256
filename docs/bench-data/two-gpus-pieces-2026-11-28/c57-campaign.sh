#!/usr/bin/env bash
# The twentieth session, second campaign: c56's changes plus the halves' scratch in stripes and
# the pinned buffers of the halves kept until the release (the working tree, the bundle with the
# tests) against 708f2d9: (1) one GPU against two, three repeats, K cache off
# (scripts/device/two-gpus-ab.sh); (2) issue 21: the tiny room on GPU 0 with every default output,
# eleven runs of each build in turn after one each to warm their caches; (3) the whole suite under
# the validation layer (scripts/device/gpu-run.sh tests).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants && tar xzf .device/variants-c56.tgz -C /tmp/variants
OUT=$OUT REPS=3 RUN_TIMEOUT=60 OLD=/tmp/variants/rsim-708f2d9 OLD_DEVICES=0,1 SCENES=large-room,traffic,industry \
  bash scripts/device/two-gpus-ab.sh 2>&1 | grep -v "^\[" | tee "$OUT/c57.txt" | cut -c1-200
(cd "$OUT" && tar czf c57-logs.tgz mg-*.log && rm -f mg-*.log)
# The tiny room (two-gpus-ab.sh left the bundle in /tmp/b and the old build beside it).
B=/tmp/b/rsim-bundle
python3 - "$B" <<'PY' 2>&1 | tee "$OUT/c57-tiny.txt"
import json, os, subprocess, sys, time, statistics as st
b = sys.argv[1]
V = {"new": b + "/rsim", "old": b + "/rsim-old"}
rows = {v: [] for v in V}
def run(v, rep):
    out = "/tmp/tiny-%s" % v
    env = dict(os.environ, XDG_CACHE_HOME="/tmp/xdg-" + v)
    t = time.time()
    r = subprocess.run([V[v], "run", "scenes/tiny-room/scene.toml", "--backend", "vulkan", "--devices", "0",
                        "--no-k-cache", "--no-progress", "-o", out], env=env, capture_output=True, text=True)
    wall = time.time() - t
    if r.returncode: print(v, "exit", r.returncode, r.stderr[-300:]); return
    s = json.load(open(out + "/summary.json"))
    if rep > 0: rows[v].append((s["process_s"], wall, s["timings_s"]["total"]))
for v in V: run(v, 0)
for rep in range(1, 12):
    for v in V: run(v, rep); time.sleep(0.3)
for v in V:
    p = [x[0] for x in rows[v]]; w = [x[1] for x in rows[v]]; t = [x[2] for x in rows[v]]
    print("tiny-room %s: process_s median %.4f (%.4f-%.4f), wall median %.4f, phases total median %.4f; process runs %s"
          % (v, st.median(p), min(p), max(p), st.median(w), st.median(t), " ".join("%.4f" % x for x in p)))
d = [a[0] - b[0] for a, b in zip(rows["new"], rows["old"])]
print("paired process new - old: median %+.4f, %d of %d lower" % (st.median(d), sum(x < 0 for x in d), len(d)))
PY
echo "compare tiny-room new against old: $($B/rsim compare /tmp/tiny-old /tmp/tiny-new --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/machine.txt"; nproc >> "$OUT/machine.txt"
OUT=$OUT/tests timeout 330 bash scripts/device/gpu-run.sh tests 2>&1 | tail -15
