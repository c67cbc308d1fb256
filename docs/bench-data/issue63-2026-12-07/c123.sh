#!/usr/bin/env bash
# c123: K stored as segments on the CPU's 16 cores (issue 63): the medium room, K from the K cache,
# radiosity and phasors, dense against segments, three rounds alternating; then rsim compare of
# the two layouts (bit for bit). On an H200, issue 61's phasors-ab.sh after.
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh > "$OUT/gpu.txt"
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
s=scenes/generated/medium-room/scene.toml
o='--backend cpu --no-progress --no-timeseries -q --k-cache /tmp/kc'
ph='--set sensor.mode="amcw" --set simulation.transport="phasors"'
{
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  $B/rsim generate medium-room --output scenes/generated/medium-room -q > /dev/null
  $B/rsim run $s $o --set 'simulation.k_layout="dense"' -o /tmp/warm
  echo "layout,transport,round,k_bytes,transport_s,k_cache_s,process_s,peak_rss_mib"
  for r in 1 2 3; do
    for T in radiosity phasors; do
      for L in dense segments; do
        d=/tmp/r-$L-$T-$r; extra=""; [[ $T == phasors ]] && extra=$ph
        $B/rsim run $s $o $extra --set "simulation.k_layout=\"$L\"" -o $d || echo "FAILED $L $T $r"
        python3 -c "
import json; j = json.load(open('$d/summary.json')); t = j['timings_s']
print('$L,$T,$r,%d,%.3f,%.3f,%.3f,%d' % (j['k_bytes'], t.get('$T', 0), t.get('k_cache', 0), j['process_s'], j['peak_host_rss_bytes'] // 1048576))"
      done
    done
  done
  for T in radiosity phasors; do
    echo "compare dense segments $T:"; $B/rsim compare /tmp/r-dense-$T-1 /tmp/r-segments-$T-1 --tol-m 0 --max-fraction 0 --tol-rel 0 | tail -1
  done
} > "$OUT/cpu-segments.txt" 2>&1
if grep -q H200 "$OUT/gpu.txt"; then OUT=$OUT bash scripts/device/phasors-ab.sh > /dev/null 2>&1; fi
