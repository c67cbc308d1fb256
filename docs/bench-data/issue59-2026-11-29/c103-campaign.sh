#!/usr/bin/env bash
# Issue 59's paths transport on one H200 (and its 16 cores): the medium room at 160 x 120, max 16
# vertices, pixel_filter "centre" (the radiosity pipeline's pixel), 64, 256 and 1024 paths per
# pixel and a 16,384-path reference on the GPU (bvh ray path); the box filter at 1024; 32 poses
# (orbit) at 1024 in one batch; the same 1024 command on the CPU backend; the radiosity pipeline
# on the same scene; the [paths] and [bsdf] tests under the validation layer. images.h5 of each
# come back for the comparisons (scripts/paths_noise.py). K cache off, no timeseries.h5.
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .device/prelude.sh
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
$B/rsim generate medium-room --output scenes/generated/medium-room -q > /dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/c103-machine.txt"; nproc >> "$OUT/c103-machine.txt"
$B/rsim poses scenes/generated/medium-room/scene.toml --orbit 32 -o /tmp/orbit.csv
python3 - "$B" "$OUT" <<'PY' 2>&1 | tee "$OUT/c103.txt"
import json, os, shutil, subprocess, sys, time
b, out = sys.argv[1], sys.argv[2]
scene = "scenes/generated/medium-room/scene.toml"
start = time.time()
def run(name, backend, sets, extra=(), keep=True):
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
    s = json.load(open("/tmp/r-%s/summary.json" % name))
    t = s["timings_s"]
    print("%s %s wall %.3f %s" % (name, backend, wall, " ".join("%s %.4f" % kv for kv in t.items())), flush=True)
    if keep and os.path.exists("/tmp/r-%s/images.h5" % name):
        shutil.copy("/tmp/r-%s/images.h5" % name, "%s/c103-%s.h5" % (out, name))
    return wall, t
paths = ['simulation.transport="paths"', "simulation.max_bounces=16"]
centre = paths + ['sensor.pixel_filter="centre"']
run("warm", "vulkan", centre + ["sensor.pixel_samples=4"], keep=False)
run("radiosity", "vulkan", [])
took = {}
for n in (64, 256, 1024):
    for rep in range(3 if n == 1024 else 1):
        got = run("paths%d" % n, "vulkan", centre + ["sensor.pixel_samples=%d" % n])
        if got: took[n] = got[1]["paths"]
run("box1024", "vulkan", paths + ["sensor.pixel_samples=1024"], keep=False)
if took.get(1024, 1e9) * 32 < 120:
    run("batch32", "vulkan", paths + ["sensor.pixel_samples=1024"], ("--poses", "/tmp/orbit.csv"), keep=False)
else:
    print("batch32 skipped (1024 took %s s)" % took.get(1024))
if time.time() - start < 250:
    run("cpu1024", "cpu", centre + ["sensor.pixel_samples=1024"])
if 1024 in took and took[1024] * 16 < 240 and time.time() - start < 200:
    run("ref16384", "vulkan", centre + ["sensor.pixel_samples=16384"])
else:
    print("ref16384 skipped (1024 took %s s, %.0f s gone)" % (took.get(1024), time.time() - start))
print("campaign %.0f s" % (time.time() - start))
PY
TESTS_FILTER="[paths],[bsdf]" OUT=/tmp/tests-out timeout 200 bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1; echo "tests exit $?" | tee -a "$OUT/c103.txt"
grep -E "^(All tests|test cases|assertions)|FAILED" /tmp/tests-out/gpu-tests.txt | head -20 | tee -a "$OUT/c103.txt"
