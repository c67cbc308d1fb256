#!/usr/bin/env bash
# Issue 59's paths transport on one H200 at d613f5a (signals read back in the pass's submission,
# rays counted): the medium room at 160 x 120, max 16 vertices, 1024 paths per pixel, pulsed as
# generated with pixel_filter "centre" (three runs) and the box filter, AMCW with the run's parts
# (--log-level debug), 32 poses (orbit) in one batch (two runs), the CPU backend's 16 cores on the
# same command, and the radiosity pipeline's visibility rays for comparison; then the whole test
# suite under the validation layer. K cache off, no timeseries.h5. (The batch's summary.json has
# no `rays`: the script stopped there; c106 ran the rest.)
set -uo pipefail
OUT=${OUT:-/tmp/out}
source .device/prelude.sh
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
$B/rsim generate medium-room --output scenes/generated/medium-room -q > /dev/null
$B/rsim poses scenes/generated/medium-room/scene.toml --orbit 32 -o /tmp/orbit.csv
python3 - "$B" <<'PY' 2>&1 | tee "$OUT/c105.txt"
import json, os, subprocess, sys, time
b = sys.argv[1]
scene = "scenes/generated/medium-room/scene.toml"
start = time.time()
def run(name, sets, extra=(), backend="vulkan"):
    args = [b + "/rsim", "run", scene, "--backend", backend, "--no-k-cache", "--no-progress", "--no-timeseries",
            "--set", "sensor.resolution=[160,120]", "-o", "/tmp/r-" + name, *extra]
    for s in sets: args += ["--set", s]
    t = time.time()
    try:
        r = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, XDG_CACHE_HOME="/tmp/xdg"),
                           timeout=150)
    except subprocess.TimeoutExpired:
        print(name, "over 150 s: stopped", flush=True); return
    wall = time.time() - t
    if r.returncode:
        print(name, "exit", r.returncode, r.stderr[-600:], flush=True); return
    for line in r.stderr.splitlines():
        if "paths: traced" in line: print(name, line.strip())
    s = json.load(open("/tmp/r-%s/summary.json" % name))
    rays = s["rays"]
    print("%s %s wall %.3f process %.3f %s | rays %s" % (name, backend, wall, s.get("process_s", 0),
          " ".join("%s %.4f" % kv for kv in s["timings_s"].items() if kv[1]),
          " ".join("%s %s" % (k, v) for k, v in rays.items() if k in ("paths", "paths_per_s", "visibility", "visibility_per_s"))),
          flush=True)
paths = ['simulation.transport="paths"', "simulation.max_bounces=16", "sensor.pixel_samples=1024"]
centre = paths + ['sensor.pixel_filter="centre"']
run("warm", paths[:2] + ["sensor.pixel_samples=4"])
for rep in range(3): run("centre1024", centre)
run("box1024", paths)
run("amcw1024", centre + ['sensor.mode="amcw"'], ("--log-level", "debug"))
for rep in range(2): run("batch32", paths, ("--poses", "/tmp/orbit.csv"))
run("cpu1024", centre, backend="cpu")
run("radiosity", [])
print("campaign %.0f s" % (time.time() - start))
PY
OUT=/tmp/tests-out timeout 420 bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1; echo "tests exit $?" | tee -a "$OUT/c105.txt"
grep -E "^(All tests|test cases|assertions)|FAILED" /tmp/tests-out/gpu-tests.txt | head -20 | tee -a "$OUT/c105.txt"
cat /tmp/tests.txt /tmp/tests-out/gpu-tests.txt 2>/dev/null | gzip -c > "$OUT/h200-tests-c105.txt.gz"
