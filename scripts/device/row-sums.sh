#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a GPU machine of the device tool, after `source .device/prelude.sh`, with the bundle at
# .device/rsim-bundle.tgz: the largest row sum of F, the rows above 1, the clamped entries and
# the visibility and compression times of each scene in each K format (issue 18), K computed
# every time. Writes each run's summary.json under $OUT.
#
#   scripts/device/row-sums.sh medium-room,large-room,traffic,industry lut8-log,fp32
set -uo pipefail
OUT=${OUT:-/tmp/rsim-out}
mkdir -p "$OUT" /tmp/rsimb && tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
R=/tmp/rsimb/rsim-bundle/rsim
for s in ${1//,/ }; do
  [[ -f scenes/generated/$s/scene.toml ]] || $R generate "$s" --output "scenes/generated/$s" -q > /dev/null
  for kij in ${2//,/ }; do
    $R run "scenes/generated/$s/scene.toml" --backend vulkan --kij "$kij" --no-k-cache --no-timeseries --no-images \
      --no-progress --output "/tmp/rs-$s-$kij" > /tmp/rs.log 2>&1 || { tail -3 /tmp/rs.log; continue; }
    cp "/tmp/rs-$s-$kij/summary.json" "$OUT/rowsums-$s-$kij-summary.json"
    python3 - "/tmp/rs-$s-$kij/summary.json" "$s" "$kij" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
flat = {}
def walk(x, key=""):
    if isinstance(x, dict):
        for k, v in x.items(): walk(v, k)
    elif not isinstance(x, list): flat.setdefault(key, x)
walk(s)
t = s["timings_s"]
print(sys.argv[2], sys.argv[3], "max row sum %.4f" % flat["max_form_factor_row_sum"],
      "rows>1", flat.get("rows_with_form_factor_sum_over_1"), "clamped", flat.get("clamped_form_factors"),
      "visibility %.3f s" % t["visibility"], "compress %.3f s" % t.get("compress", 0), "k rms", flat.get("k_rms_error"))
PY
  done
done
