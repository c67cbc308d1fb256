#!/usr/bin/env bash
# The twenty-first session, second campaign: with the far sums through shared host memory (c64),
# the time blocks per exchange on two GPUs (--pass-blocks 1 to 4; 2 is the default), the large
# room and industry, three repeats in turn, K cache off; each device's transport set-up in parts
# (debug lines). Prints one line per run (summary.json) and the set-up lines.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
nvidia-smi -L | tee "$OUT/machine.txt"
for s in large-room industry; do
  [[ -f scenes/generated/$s/scene.toml ]] || $B/rsim generate "$s" --output "scenes/generated/$s" -q > /dev/null
  for rep in 1 2 3; do for pb in 1 2 3 4; do
    timeout 60 $B/rsim run "scenes/generated/$s/scene.toml" --backend vulkan --devices 0,1 --pass-blocks $pb --no-k-cache \
      --no-timeseries --no-images --no-progress --log-level debug --output /tmp/pb-$s-$pb > /tmp/pb.log 2>&1 || { tail -3 /tmp/pb.log; continue; }
    cp /tmp/pb.log "$OUT/pb-$s-$pb-$rep.log"
    python3 - /tmp/pb-$s-$pb/summary.json $s $pb $rep <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); t = s["timings_s"]; d = s.get("timings_detail_s", {})
print(sys.argv[2], "pass-blocks", sys.argv[3], "rep", sys.argv[4], "total %.3f" % t["total"], "visibility %.3f" % t["visibility"],
      "radiosity %.3f" % t["radiosity"], " ".join("%s %.3f" % (k, d[k]) for k in sorted(d) if k.startswith(("radiosity", "near"))))
PY
  done; done
  echo "compare $s pass-blocks 1 vs 4: $($B/rsim compare /tmp/pb-$s-2 /tmp/pb-$s-4 --tol-m 1e-6 2>&1 | tail -1)"
done 2>&1 | tee "$OUT/c65.txt"
(cd "$OUT" && grep -h "transport's buffers" pb-*-2-*.log | sed -E 's/^\[debug\] [0-9:.]+ //' > c65-setup.txt; tar czf c65-logs.tgz pb-*.log && rm -f pb-*.log)
cut -c1-250 "$OUT/c65-setup.txt"
