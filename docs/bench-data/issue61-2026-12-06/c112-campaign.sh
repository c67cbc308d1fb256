#!/usr/bin/env bash
# Issue 61, where the phasors' time goes on one GPU: the large and medium rooms (K from the K
# cache, AMCW at 20 and 50 MHz), one pose twice and 32 poses once, each run's log line of the
# solve (columns, iterations, set-up) and summary.json's timing details (phasors_setup,
# phasors_loop).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
R=/tmp/b/rsim-bundle/rsim
export XDG_CACHE_HOME=/tmp/xdg
{
  for s in large-room medium-room; do
    $R generate $s --output scenes/generated/$s -q > /dev/null
    f=scenes/generated/$s/scene.toml
    $R poses $f --orbit 32 -o /tmp/p32.csv -q
    o="--backend vulkan --k-cache /tmp/kc --no-progress --no-timeseries --set sensor.mode=\"amcw\" --set sensor.modulation_mhz=[20,50] --set simulation.transport=\"phasors\""
    $R run $f $o -q -o /tmp/warm
    for run in one-a one-b batch32; do
      extra=""; [[ $run == batch32 ]] && extra="--poses /tmp/p32.csv"
      $R run $f $o $extra -o /tmp/r-$run 2>&1 | grep -E "phasors:|K resident|K streamed|k cache|wrote"
      python3 -c "import json,sys; s=json.load(open('/tmp/r-$run/summary.json')); print('$s $run', {k: round(v, 4) for k, v in s['timings_s'].items() if v}, {k: round(v, 4) for k, v in s.get('timings_detail_s', {}).items() if k.startswith('phasors')})"
    done
  done
} 2>&1 | tee "$OUT/c112.txt"
