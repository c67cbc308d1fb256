#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 21's start-up A/B on a GPU machine of the device tool, from the repository root, with the
# bundle at .device/rsim-bundle.tgz and an older build at OLD (its rsim binary, or a folder with
# its binary and modules: scripts/device/place-build.sh): the tiny room TINY_REPS times (default
# 11) and the medium room MEDIUM_REPS times (default 5) on the GPU with every default output, K
# cache off, the two builds in turn, each with caches of its own warmed by one run. Prints per
# scene and build the median process_s (summary.json), the command's wall time and process_s less
# the phases' total (start-up and shut-down outside the phases), the paired differences, and
# `rsim compare` of the builds; writes $OUT/$TAG.txt (TAG default startup-ab).
# (Campaigns c63, c68, c69, c73 and c74 ran this as a copy inside their own scripts.)
#
#   OLD=/tmp/variants/rsim-3338d8a TAG=c76 scripts/device/startup-ab.sh
set -uo pipefail
OUT=${OUT:-/tmp/rsim-out}
TAG=${TAG:-startup-ab}
mkdir -p "$OUT" /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
source scripts/device/place-build.sh
place_build "${OLD:?OLD: an older build (its rsim binary, or a folder with its binary and modules)}" rsim-old $B
[[ ${MEDIUM_REPS:-5} -gt 0 ]] && $B/rsim generate medium-room --output scenes/generated/medium-room -q > /dev/null
python3 - "$B" "$TAG" "${TINY_REPS:-11}" "${MEDIUM_REPS:-5}" <<'PY' 2>&1 | tee "$OUT/$TAG.txt"
import json, os, subprocess, sys, time, statistics as st
b, tag, tiny, medium = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
V = {"new": b + "/rsim", "old": b + "/rsim-old"}
S = {"tiny-room": ("scenes/tiny-room/scene.toml", tiny), "medium-room": ("scenes/generated/medium-room/scene.toml", medium)}
for scene, (path, reps) in S.items():
    if reps <= 0: continue
    rows = {v: [] for v in V}
    def run(v, keep):
        out = "/tmp/%s-%s-%s" % (tag, scene, v)
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
    r = subprocess.run([b + "/rsim", "compare", "/tmp/%s-%s-old" % (tag, scene), "/tmp/%s-%s-new" % (tag, scene),
                        "--max-fraction", "0", "--tol-m", "1e-6"], capture_output=True, text=True)
    print("compare %s new against old: %s" % (scene, (r.stdout + r.stderr).strip().splitlines()[-1]))
PY
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > "$OUT/$TAG-machine.txt" 2>/dev/null
nproc >> "$OUT/$TAG-machine.txt"
