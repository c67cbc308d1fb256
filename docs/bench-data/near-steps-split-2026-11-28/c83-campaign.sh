#!/usr/bin/env bash
# The twenty-third session, sixth campaign: batches with the near steps split (2fc43c7's code,
# this bundle) against 615ead0's build: the medium room with 8 poses (one pose per invocation)
# and 32 poses (pose lanes), one GPU, three repeats alternating; the time loop from summary.json.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p /tmp/variants /tmp/b && tar xzf .device/variants-c77.tgz -C /tmp/variants && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
source scripts/device/place-build.sh
place_build /tmp/variants/rsim-615ead0 rsim-old $B
s=medium-room
[[ -f scenes/generated/$s/scene.toml ]] || $B/rsim generate "$s" --output "scenes/generated/$s" -q > /dev/null
for p in 8 32; do $B/rsim poses scenes/generated/$s/scene.toml --orbit $p > /tmp/poses-$p.csv; done
for rep in 1 2 3; do for p in 8 32; do for which in new old; do
  bin=$B/rsim; [[ $which == old ]] && bin=$B/rsim-old
  timeout 120 $bin run scenes/generated/$s/scene.toml --backend vulkan --poses /tmp/poses-$p.csv --no-k-cache --no-timeseries \
    --no-images --no-progress --output /tmp/bo-$which-$p > /tmp/bo.log 2>&1 || { tail -3 /tmp/bo.log; continue; }
  python3 - /tmp/bo-$which-$p "$which" "$p" "$rep" <<'PY'
import json, sys, glob, os
d = sys.argv[1]
f = os.path.join(d, "summary.json")
if not os.path.exists(f): f = sorted(glob.glob(os.path.join(d, "**", "summary.json"), recursive=True))[0]
s = json.load(open(f)); t = s["timings_s"]; x = s.get("timings_detail_s", {})
print(sys.argv[2], "poses", sys.argv[3], "rep", sys.argv[4], "total %.3f" % t["total"], "radiosity %.3f" % t["radiosity"],
      "radiosity_loop %.3f" % x.get("radiosity_loop", -1), "process %.3f" % s.get("process_s", 0), "file", os.path.relpath(f, d))
PY
done; done; done 2>&1 | tee "$OUT/c83.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/c83-machine.txt"
