#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a GPU machine of the device tool (K, 85 GB at S = 8, stays resident only on a device with
# more memory; on a smaller one it is streamed from host memory), after
# `source .device/prelude.sh`, with the bundle at .device/rsim-bundle.tgz and, for ORDER with
# "old", an older build's rsim binary at OLD: industry at --max-edge-m 0.5 (298,904 triangles),
# S = 8, K cache off; copies each run's log and summary.json to $OUT and prints its phases, rays
# per second of the visibility phase and peak host RSS (issue 17).
#
#   ORDER=new scripts/device/industry-299k.sh
#   OLD=.device/variants/rsim-old ORDER="new old" scripts/device/industry-299k.sh
set -uo pipefail
OUT=${OUT:-/tmp/rsim-out}
mkdir -p "$OUT" /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
if [[ -n ${OLD:-} ]]; then
  cp "$OLD" $B/bin/rsim-old && chmod +x $B/bin/rsim-old
  sed 's#/bin/rsim"#/bin/rsim-old"#' $B/rsim > $B/rsim-old && chmod +x $B/rsim-old
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/machine.txt"
[[ -f scenes/generated/industry/scene.toml ]] || $B/rsim generate industry --output scenes/generated/industry -q
for which in ${ORDER:-new}; do
  bin=$B/rsim; [[ $which == old ]] && bin=$B/rsim-old
  /usr/bin/time -v $bin run scenes/generated/industry/scene.toml --backend vulkan --max-edge-m 0.5 --samples 8 \
    --no-k-cache --no-timeseries --no-images --no-progress -o /tmp/o-$which > "$OUT/$which.log" 2>&1
  cp /tmp/o-$which/summary.json "$OUT/$which-summary.json"
  python3 - "/tmp/o-$which/summary.json" "$which" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = d["timings_s"]; r = d["rays"]["visibility"]
print(sys.argv[2], {k: round(v, 2) for k, v in t.items()}, "rays", r, "G/s (phase)",
      round(r / t["visibility"] * 1e-9, 3), "rss", d["peak_host_rss_bytes"])
PY
done
