#!/usr/bin/env bash
# Where the Vulkan instance's time goes on this machine (issue 21), and what the bundle's wrapper costs.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
ICD=$(ls /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
{
echo "== machine: $(nproc) cores, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
echo "== ICDs and layers"; ls -la /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/share/vulkan/implicit_layer.d /etc/vulkan/implicit_layer.d /usr/share/vulkan/explicit_layer.d 2>&1
cat /usr/share/vulkan/implicit_layer.d/*.json /etc/vulkan/implicit_layer.d/*.json 2>/dev/null | head -40
echo "== bundled loader"; ls -la $B/lib/ | grep -i vulkan
$R devices > /dev/null 2>&1  # warm
for mode in default no-implicit-layers; do for i in 1 2 3 4 5 6; do
  if [[ $mode == default ]]; then line=$($R devices --log-level debug 2>&1 | grep -o "start-up: .*" | tr '\n' ' ')
  else line=$(VK_LOADER_LAYERS_DISABLE='~implicit~' $R devices --log-level debug 2>&1 | grep -o "start-up: .*" | tr '\n' ' '); fi
  echo "$mode $i: $line"
done; done
echo "== whole process, median of 15: the wrapper against the binary itself (--version, then devices)"
python3 - "$B" "$ICD" <<'P'
import os, subprocess, sys, time, statistics
b, icd = sys.argv[1], sys.argv[2]
env = dict(os.environ, LD_LIBRARY_PATH=b + "/lib", VK_DRIVER_FILES=icd)
def t(cmd, e=None):
    xs = []
    for _ in range(15):
        t0 = time.perf_counter(); subprocess.run(cmd, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); xs.append(time.perf_counter() - t0)
    return statistics.median(xs), min(xs)
for args in (["--version"], ["devices"]):
    print(args, "wrapper %.4f (min %.4f)" % t([b + "/rsim"] + args), "binary %.4f (min %.4f)" % t([b + "/bin/rsim"] + args, env))
print("bash -c true %.4f (min %.4f)" % t(["bash", "-c", "true"]))
P
echo "== dynamic loader statistics"; LD_LIBRARY_PATH=$B/lib LD_DEBUG=statistics $B/bin/rsim --version 2>&1 | grep -E "startup time|relocation:|load objects"
echo "== tiny room, three runs, the instance's parts"
for i in 1 2 3; do $R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/tr > /tmp/tr.log 2>&1
  echo "run $i: $(grep -o 'start-up: \(instance\|vulkan\).*' /tmp/tr.log | tr '\n' ' ') process $(python3 -c "import json;print(json.load(open('/tmp/tr/summary.json'))['process_s'])")"; done
cp /tmp/tr.log "$OUT/tiny-room-debug.log"
echo "== VK_LOADER_DEBUG=layer,driver"; VK_LOADER_DEBUG=layer,driver $R devices 2>&1 | head -60
} 2>&1 | tee "$OUT/instance-probe.txt"
