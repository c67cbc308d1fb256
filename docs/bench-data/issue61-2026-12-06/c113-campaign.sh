#!/usr/bin/env bash
# Issue 61 on the GPU machine's 16 cores (CPU backend): the medium room's 32 poses by the phasors
# transport (K from the K cache, AMCW at 20 and 50 MHz), once; the time-stepped transport of 32
# poses did not finish in c111's time (one pose took 30.8 s of transport).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
R=/tmp/b/rsim-bundle/rsim
{
  f=scenes/generated/medium-room/scene.toml
  $R generate medium-room --output scenes/generated/medium-room -q > /dev/null
  $R poses $f --orbit 32 -o /tmp/p32.csv -q
  o="--backend cpu --k-cache /tmp/kc-cpu --no-progress --no-timeseries --set sensor.mode=\"amcw\" --set sensor.modulation_mhz=[20,50] --set simulation.transport=\"phasors\""
  $R run $f $o -q -o /tmp/warm
  for run in one batch32; do
    extra=""; [[ $run == batch32 ]] && extra="--poses /tmp/p32.csv"
    $R run $f $o $extra -o /tmp/r-$run 2>&1 | grep -E "phasors:|wrote"
    python3 -c "import json; s=json.load(open('/tmp/r-$run/summary.json')); print('medium-room cpu $run', {k: round(v, 4) for k, v in s['timings_s'].items() if v})"
  done
} 2>&1 | tee "$OUT/c113.txt"
