#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 62's radiosity on the CPU backend, paired on the GPU machine's cores: an earlier build
# ("old", e.g. a58590b: the listed far gather one double at a time) against this tree ("new": its
# loops vectorised and compiled for x86-64-v3/-v4, util/cpu_isa.h) and this tree capped at the
# baseline instruction set (tuning.cpu_isa=baseline). Small and medium rooms, K from the K cache
# (stored by a first run of the new build), 1000 steps, no timeseries.h5; builds alternate, three
# rounds; then `rsim compare` of old and new, which must find no difference at all; then the whole
# process (K computed) of the tiny, small and medium rooms on the CPU and the GPU (cpu_gpu_benchmark.py).
# Prepare here as for phasors-ab.sh (.device/rsim-bundle.tgz, .device/old-cpu-bin.tgz with old/,
# .device/prelude.sh). Run:  OUT=... bash scripts/device/cpu-radiosity-ab.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh
source scripts/device/place-build.sh
mkdir -p /tmp/b /tmp/old && tar xzf .device/rsim-bundle.tgz -C /tmp/b && tar xzf .device/old-cpu-bin.tgz -C /tmp/old
B=/tmp/b/rsim-bundle
place_build /tmp/old/old old "$B"
o='--backend cpu --k-cache /tmp/kc --no-progress --no-timeseries -q'
scene() { [[ $1 == small-room ]] && echo scenes/small-room/scene.toml || echo scenes/generated/$1/scene.toml; }
{
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  $B/rsim generate medium-room --output scenes/generated/medium-room -q > /dev/null
  for s in small-room medium-room; do $B/rsim run "$(scene $s)" $o -o /tmp/first-$s; done
  echo "label,scene,round,radiosity_s,process_s"
  for r in 1 2 3; do
    for s in small-room medium-room; do
      for label in old new baseline; do
        bin=rsim extra=""
        [[ $label == old ]] && bin=old
        [[ $label == baseline ]] && extra="--set tuning.cpu_isa=baseline"
        t0=$(date +%s.%N)
        $B/$bin run "$(scene $s)" $o $extra -o /tmp/r-$label-$s || echo "FAILED $label $s"
        t1=$(date +%s.%N)
        python3 -c "import json; j=json.load(open('/tmp/r-$label-$s/summary.json'))['timings_s']; print('$label,$s,$r,%.3f,%.3f' % (j['radiosity'], $t1-$t0))"
      done
    done
  done
  for s in small-room medium-room; do
    echo "compare old new $s:"
    $B/rsim compare /tmp/r-old-$s /tmp/r-new-$s --tol-m 0 --max-fraction 0 | tail -2
  done
  # Whole process, K computed (no cache), the CPU backend against the GPU on this machine.
  python3 scripts/cpu_gpu_benchmark.py --rsim $B/rsim --scenes tiny-room,small-room,medium-room \
    --repeat 3 --label "$(nproc)-cores" --out "$OUT/cpu-gpu"
} 2>&1 | tee "$OUT/cpu-radiosity-ab.txt"
