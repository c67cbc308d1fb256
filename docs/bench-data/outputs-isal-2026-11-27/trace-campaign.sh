#!/usr/bin/env bash
# Where timeseries.h5's time goes (an instrumented build of the working tree's HDF5 module).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
source scripts/device/place-build.sh
place_build .device/variants/rsim-trace rsim-trace $B
for s in small-room medium-room; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
$B/rsim-trace run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1
for s in tiny-room small-room medium-room; do
  f=scenes/tiny-room/scene.toml; [[ $s != tiny-room ]] && f=scenes/generated/$s/scene.toml
  for i in 1 2 3; do
    sleep 0.3
    $B/rsim-trace run $f --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/t-$s > /tmp/o/trace-$s-$i.log 2>&1
    echo "$s $i: $(grep -h TRACE /tmp/o/trace-$s-$i.log | tr '\n' ' ') $(grep -o 'timeseries.h5 [0-9.]* s' /tmp/o/trace-$s-$i.log)" | tee -a /tmp/o/trace.txt
  done
done
cp /tmp/o/trace.txt "$OUT/"; cd /tmp/o && tar czf "$OUT/trace.tgz" .
