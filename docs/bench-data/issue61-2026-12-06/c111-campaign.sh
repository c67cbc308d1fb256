#!/usr/bin/env bash
# Issue 61 on one GPU: the AMCW transport in the frequency domain ("phasors") against the
# time-stepped one ("radiosity"), K from the K cache, AMCW at 20 and 50 MHz (sinusoidal), one
# pose and 32 (`rsim poses --orbit 32`), images and triangles.csv per pose, no timeseries.h5:
# the medium and large rooms on the GPU (three runs each, medians), the medium room on the CPU
# backend (every core, one run each). Then `rsim compare` of a CPU and a Vulkan phasors run of the
# medium room (each computing its own K), and the phasors tests under the validation layer.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
R=/tmp/b/rsim-bundle/rsim
export XDG_CACHE_HOME=/tmp/xdg
{
  echo "machine: $(nproc) cores, $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
  timeout 330 python3 scripts/phasors_benchmark.py --rsim $R --scenes medium-room,large-room --poses 1,32 \
    --backend vulkan --repeats 3 --out "$OUT/gpu" --tmp /tmp/pb-gpu
  echo "gpu benchmark exit $?"
  timeout 180 python3 scripts/phasors_benchmark.py --rsim $R --scenes medium-room --poses 1,32 \
    --backend cpu --repeats 1 --out "$OUT/cpu" --tmp /tmp/pb-cpu
  echo "cpu benchmark exit $?"
  m=scenes/generated/medium-room/scene.toml
  ph='--set sensor.mode="amcw" --set sensor.modulation_mhz=[20,50] --set simulation.transport="phasors" --no-k-cache --no-progress -q --no-timeseries'
  $R run $m --backend vulkan $ph -o /tmp/cmp-vk && $R run $m --backend cpu $ph -o /tmp/cmp-cpu &&
    $R compare /tmp/cmp-cpu /tmp/cmp-vk
  echo "compare exit $?"
} 2>&1 | tee "$OUT/c111.txt"
OUT=/tmp/tests-out TESTS_FILTER="[phasors]" timeout 120 bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1
echo "tests exit $?" | tee -a "$OUT/c111.txt"
grep -E "^(All tests|test cases|assertions)|FAILED" /tmp/tests-out/gpu-tests.txt | head -20 | tee -a "$OUT/c111.txt"
cat /tmp/tests.txt /tmp/tests-out/gpu-tests.txt 2>/dev/null | gzip -c > "$OUT/tests-c111.txt.gz"
