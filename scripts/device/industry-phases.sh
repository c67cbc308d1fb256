#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a GPU machine of the device tool, after `source .device/prelude.sh`, with the bundle at
# .device/rsim-bundle.tgz: industry at --max-edge-m 0.7 (128,894 triangles), S = 8, K cache off,
# once per FACTORS entry (simulation.near_pair_factor, default "32 1 32"); copies each run's debug
# log and summary.json to $OUT and prints its phases and visibility details (issue 17, point 4).
#
#   FACTORS=32 scripts/device/industry-phases.sh
set -uo pipefail
OUT=${OUT:-/tmp/rsim-out}
mkdir -p "$OUT" && tar xzf .device/rsim-bundle.tgz -C /tmp
R=/tmp/rsim-bundle/rsim
[[ -f scenes/generated/industry/scene.toml ]] || $R generate industry --output scenes/generated/industry -q
for f in ${FACTORS:-32 1 32}; do
  $R run scenes/generated/industry/scene.toml --backend vulkan --max-edge-m 0.7 --samples 8 --no-k-cache \
    --no-timeseries --no-images --no-progress --log-level debug --set simulation.near_pair_factor=$f \
    -o /tmp/o-$f > "$OUT/industry-0.7-s8-f$f.log" 2>&1
  cp /tmp/o-$f/summary.json "$OUT/industry-0.7-s8-f$f-summary.json"
  python3 - "/tmp/o-$f/summary.json" "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("factor", sys.argv[2], {k: round(v, 3) for k, v in d["timings_s"].items()},
      {k: round(v, 3) for k, v in d["timings_detail_s"].items() if "vis" in k}, d["rays"]["visibility"])
PY
done
