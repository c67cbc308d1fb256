#!/usr/bin/env bash
# Issue 59's paths transport on one H200, AMCW at 20 MHz (where multipath moves the range): the
# medium room at 160 x 120, max 16 vertices, pixel_filter "centre", 64, 256, 1024 and 16,384 paths
# per pixel against the radiosity pipeline (images.h5 back for scripts/paths_noise.py); the
# 1024-path run's parts (--log-level debug); 32 poses (orbit) at 1024 in one batch, pulsed and box
# filter as generated. K cache off, no timeseries.h5.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .device/prelude.sh
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
$B/rsim generate medium-room --output scenes/generated/medium-room -q > /dev/null
$B/rsim poses scenes/generated/medium-room/scene.toml --orbit 32 -o /tmp/orbit.csv
python3 - "$B" "$OUT" <<'PY' 2>&1 | tee "$OUT/c104.txt"
import json, os, shutil, subprocess, sys, time
b, out = sys.argv[1], sys.argv[2]
scene = "scenes/generated/medium-room/scene.toml"
start = time.time()
def run(name, sets, extra=(), keep=True, backend="vulkan"):
    args = [b + "/rsim", "run", scene, "--backend", backend, "--no-k-cache", "--no-progress", "--no-timeseries",
            "--set", "sensor.resolution=[160,120]", "-o", "/tmp/r-" + name, *extra]
    for s in sets: args += ["--set", s]
    t = time.time()
    try:
        r = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, XDG_CACHE_HOME="/tmp/xdg"),
                           timeout=150)
    except subprocess.TimeoutExpired:
        print(name, "over 150 s: stopped", flush=True); return None
    wall = time.time() - t
    if r.returncode:
        print(name, "exit", r.returncode, r.stderr[-600:], flush=True); return None
    for line in r.stderr.splitlines():
        if "paths: traced" in line: print(name, line.strip())
    s = json.load(open("/tmp/r-%s/summary.json" % name))
    t = s["timings_s"]
    print("%s %s wall %.3f %s" % (name, backend, wall, " ".join("%s %.4f" % kv for kv in t.items() if kv[1])), flush=True)
    if keep and os.path.exists("/tmp/r-%s/images.h5" % name):
        shutil.copy("/tmp/r-%s/images.h5" % name, "%s/c104-%s.h5" % (out, name))
    return wall, t
amcw = ['sensor.mode="amcw"']
centre = amcw + ['simulation.transport="paths"', "simulation.max_bounces=16", 'sensor.pixel_filter="centre"']
run("warm", centre + ["sensor.pixel_samples=4"], keep=False)
run("radiosity-amcw", amcw)
for n in (64, 256, 1024, 16384):
    run("amcw%d" % n, centre + ["sensor.pixel_samples=%d" % n], ("--log-level", "debug") if n == 1024 else ())
for rep in range(2):
    run("batch32", ['simulation.transport="paths"', "simulation.max_bounces=16", "sensor.pixel_samples=1024"],
        ("--poses", "/tmp/orbit.csv"), keep=False)
print("campaign %.0f s" % (time.time() - start))
PY
