#!/usr/bin/env bash
# Issue 60's camera on one GPU: the medium room (as generated, K cache off, no timeseries.h5), this
# build against the build before it (b40d62c, the same libraries) on the default pulsed camera,
# interleaved three times; then this build's new cases: pixels with area (pixel_samples 4 and
# 16), two lights ([[light]], the second 5 cm below the lens), AMCW with the sensor model and
# with lens scattering, and a pulsed camera with lens scattering (every pixel's histogram). A
# line a run: the whole process and the phases. Then the camera's tests under the validation layer.
# c108 ran it at 82f3fe6; c109 at ed34c8e (lens scattering summed a pixel's bins together), c110 at
# c1e4567 (angular profiles in the shaders), both with
# TESTS_FILTER="" TESTS_TIMEOUT=480 (the whole suite).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
source scripts/device/place-build.sh
place_build .device/rsim-old rsim-old $B
$B/rsim generate medium-room --output scenes/generated/medium-room -q > /dev/null
python3 - "$B" <<'PY' 2>&1 | tee "$OUT/c108.txt"
import json, os, re, subprocess, sys, time
b = sys.argv[1]
scene = "scenes/generated/medium-room/scene.toml"
text = open(scene).read()
# Two lights: the scene's own as the first [[light]], a second 5 cm below the lens, half as strong.
two = re.sub(r"^\[light\]$", "[[light]]", text, flags=re.M)
two = two.replace("[sensor]", "[[light]]\noffset_camera = [0.0, 0.05, 0.0]\ndirection_camera = [0.0, 0.0, 1.0]\n"
                  "half_angle_deg = 60.0\npower_w = 0.5\n\n[sensor]", 1)
open("scenes/generated/medium-room/two-lights.toml", "w").write(two)
start = time.time()
def run(name, binary="rsim", sets=(), file=scene):
    args = [b + "/" + binary, "run", file, "--backend", "vulkan", "--no-k-cache", "--no-progress", "--no-timeseries",
            "-o", "/tmp/r-" + name]
    for s in sets: args += ["--set", s]
    t = time.time()
    try:
        r = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, XDG_CACHE_HOME="/tmp/xdg"),
                           timeout=200)
    except subprocess.TimeoutExpired:
        print(name, "over 200 s: stopped", flush=True); return
    if r.returncode:
        print(name, "exit", r.returncode, r.stderr[-800:], flush=True); return
    s = json.load(open("/tmp/r-%s/summary.json" % name))
    print("%s %s wall %.3f process %.3f %s" % (name, binary, time.time() - t, s.get("process_s", 0),
          " ".join("%s %.4f" % kv for kv in s["timings_s"].items() if kv[1])), flush=True)
run("warm", "rsim")
for rep in range(3):
    run("old", "rsim-old")
    run("new", "rsim")
for rep in range(2):
    run("area4", sets=["sensor.pixel_samples=4"])
    run("area16", sets=["sensor.pixel_samples=16"])
    run("lights2", file="scenes/generated/medium-room/two-lights.toml")
    amcw = ['sensor.mode="amcw"', "sensor.modulation_mhz=[20.0, 50.0]", "sensor_model.enabled=true",
            "sensor_model.ambient_w_m2=1.0"]
    run("amcw-noise", sets=amcw)
    run("amcw-scatter", sets=amcw + ["sensor_model.scattering_fractions=[0.02, 0.005]",
                                     "sensor_model.scattering_sigmas_px=[4.0, 40.0]"])
    run("pulsed-scatter", sets=["sensor_model.scattering_fractions=[0.02, 0.005]",
                                "sensor_model.scattering_sigmas_px=[4.0, 40.0]"])
subprocess.run([b + "/rsim", "compare", "/tmp/r-old", "/tmp/r-new", "--tol-m", "0", "--max-fraction", "0",
                "--ignore-settings"], check=False)
print("campaign %.0f s" % (time.time() - start))
PY
# TESTS_FILTER="" runs the whole suite (c109).
OUT=/tmp/tests-out TESTS_FILTER="${TESTS_FILTER-[readout],[pixels],[lights],[lens],[images],[paths],[backends]}" \
  timeout "${TESTS_TIMEOUT:-300}" bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1; echo "tests exit $?" | tee -a "$OUT/c108.txt"
grep -E "^(All tests|test cases|assertions)|FAILED" /tmp/tests-out/gpu-tests.txt | head -20 | tee -a "$OUT/c108.txt"
cat /tmp/tests.txt /tmp/tests-out/gpu-tests.txt 2>/dev/null | gzip -c > "$OUT/tests-c108.txt.gz"
