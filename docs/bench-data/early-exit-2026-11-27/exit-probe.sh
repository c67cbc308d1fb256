#!/usr/bin/env bash
# Issue 21: how the process's end costs, timed by the parent (scripts/device/vk_exit_probe.cpp).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle
ICD=$(ls /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
export LD_LIBRARY_PATH=$B/lib VK_DRIVER_FILES=$ICD
P=.device/probe/exitprobe
{
echo "== $(nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader | head -1), $(nproc) cores"
$P destroy 2 > /dev/null
python3 - "$P" <<'PY'
import subprocess, sys, time, statistics
p = sys.argv[1]
modes = [("destroy", "2"), ("destroy", "1"), ("_exit", "2"), ("detach", "2"), ("detach", "1")]
walls = {m: [] for m in modes}
log = open("/tmp/exitprobe.out", "w")
for rep in range(12):
    for m in modes:
        time.sleep(0.3)
        t0 = time.perf_counter(); subprocess.run([p, *m], stdout=log, stderr=log); walls[m].append(time.perf_counter() - t0)
print("isolated runs (0.3 s apart), whole process, 12 each:")
for m in modes:
    xs = walls[m]; print("  %-8s q%s median %.4f  min %.4f  max %.4f" % (m[0], m[1], statistics.median(xs), min(xs), max(xs)))
print("back to back: 10 processes in a row, total seconds (3 rounds, modes alternating):")
tot = {m: [] for m in modes}
for rnd in range(3):
    for m in modes:
        time.sleep(0.5)
        t0 = time.perf_counter()
        for _ in range(10): subprocess.run([p, *m], stdout=log, stderr=log)
        tot[m].append(time.perf_counter() - t0)
for m in modes: print("  %-8s q%s %s" % (m[0], m[1], " ".join("%.3f" % x for x in tot[m])))
PY
echo "== the probes' own lines (last 40)"; tail -40 /tmp/exitprobe.out
echo "== the children's release (last 20)"; tail -20 /tmp/exitprobe-child.log
} 2>&1 | tee "$OUT/exit-probe.txt"
