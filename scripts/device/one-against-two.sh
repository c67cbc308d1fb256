#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a two-GPU machine of the device tool, after `source .device/prelude.sh`, with the bundle at
# .device/rsim-bundle.tgz: each scene on GPU 0 and on GPUs 0 and 1, twice, alternating, K
# computed every time (issue 17, point 5); prints the phases and the visibility's and the
# transport's details of every run (the first of each meets fresh host memory).
#
#   scripts/device/one-against-two.sh large-room,traffic,industry
set -uo pipefail
OUT=${OUT:-/tmp/rsim-out}
mkdir -p "$OUT" /tmp/rsimb && tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
R=/tmp/rsimb/rsim-bundle/rsim
nvidia-smi -L
for s in ${1//,/ }; do
  [[ -f scenes/generated/$s/scene.toml ]] || $R generate "$s" --output "scenes/generated/$s" -q > /dev/null
  for rep in 1 2; do
    for devs in 0 0,1; do
      $R run "scenes/generated/$s/scene.toml" --backend vulkan --devices "$devs" --no-k-cache --no-timeseries \
        --no-images --no-progress --output "/tmp/mg-$s" > /tmp/mg.log 2>&1 || { tail -3 /tmp/mg.log; continue; }
      cp "/tmp/mg-$s/summary.json" "$OUT/mg-$s-${devs/,/+}-$rep-summary.json"
      python3 - "/tmp/mg-$s/summary.json" "$s" "$devs" "$rep" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); t = s["timings_s"]; d = s.get("timings_detail_s", {})
keys = sorted(k for k in d if k.startswith(("visibility", "k_", "radiosity", "near")))
print(sys.argv[2], "devices", sys.argv[3], "rep", sys.argv[4], "total %.3f" % t["total"], "visibility %.3f" % t["visibility"],
      "radiosity %.3f" % t["radiosity"], " ".join("%s %.3f" % (k, d[k]) for k in keys if isinstance(d[k], (int, float))))
PY
    done
  done
done
