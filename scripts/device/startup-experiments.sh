#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 21's question, on a GPU machine of the device tool (after `source .device/prelude.sh`):
# is the Vulkan device's creation (about 0.36 s on the H100) the driver initialising an idle
# GPU, which another process holding the GPU open avoids as persistence mode would, and what
# does the shut-down after summary.json cost? Runs the tiny room on the GPU REPEATS times each:
# alone; with a CUDA context held open by another process (PyTorch, if the machine has it);
# and with .device/variants/rsim-quickexit (a build that exits right after summary.json) if
# present. Writes $OUT/startup-experiments.txt.
set -uo pipefail
OUT=${OUT:-/tmp/rsim-out}
mkdir -p "$OUT" /tmp/rsimb
rm -rf /tmp/rsimb/rsim-bundle
tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb || exit 2
B=/tmp/rsimb/rsim-bundle
RSIM=$B/rsim
n=${REPEATS:-4}
exec > >(tee "$OUT/startup-experiments.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv
runs() { # label binary
  for r in $(seq "$n"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$2" run scenes/tiny-room/scene.toml --backend vulkan --output /tmp/r-exp --no-timeseries --no-progress \
      --no-k-cache --log-level debug > /tmp/exp.log 2>&1 || { cat /tmp/exp.log; return 1; }
    t1=$(date +%s.%N)
    python3 - "$1" "$r" "$t0" "$t1" <<'PY'
import json, re, sys
label, r, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
s = json.load(open("/tmp/r-exp/summary.json")); st = s["startup_s"]
log = open("/tmp/exp.log").read()
m = re.search(r"shut-down: backend released in ([0-9.]+) s", log)
dev = sum(v for k, v in st.items() if k.startswith("vulkan device"))
create = sum(v for k, v in st.items() if k.startswith("vkCreateDevice"))
print(f"{label} run {r}: wall {t1 - t0:.3f} s, process at summary {s['process_s']:.3f}, phases {s['timings_s']['total']:.3f}, "
      f"main {st['process start to main']:.3f}, instance {st['vulkan instance']:.3f}, device {dev:.3f} "
      f"(vkCreateDevice {create:.3f}), pipelines {sum(v for k, v in st.items() if k.startswith('pipeline ')):.3f}, "
      f"shut-down {m.group(1) if m else '-'}")
PY
  done
}
$RSIM devices > /dev/null
runs alone $RSIM
if python3 -c "import torch" 2>/dev/null; then
  python3 -c "import torch, time; torch.zeros(1, device='cuda'); torch.cuda.synchronize(); print('holder: CUDA context open', flush=True); time.sleep(600)" &
  holder=$!
  sleep 8
  runs "GPU held open by another process" $RSIM
  kill $holder
  wait $holder 2>/dev/null
else
  echo "no PyTorch here: the held-open case is not measured"
fi
if [[ -f .device/variants/rsim-quickexit ]]; then
  cp .device/variants/rsim-quickexit $B/bin/rsim-quickexit && chmod +x $B/bin/rsim-quickexit
  sed 's#/bin/rsim"#/bin/rsim-quickexit"#' $RSIM > $B/rsim-quickexit && chmod +x $B/rsim-quickexit
  runs "exit right after summary.json" $B/rsim-quickexit
fi
runs "alone, again" $RSIM
