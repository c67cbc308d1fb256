#!/usr/bin/env bash
# The twenty-first session, third campaign: where the near lists and the transport's set-up
# spend their time on two GPUs (the staging buffers' growth, now logged), industry on GPU 0 and
# on GPUs 0 and 1, two runs each; then issue 17's acceptance run at this code (industry at
# --max-edge-m 0.5, 298,904 triangles, S = 16, one H200).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
nvidia-smi -L | tee "$OUT/machine.txt"
s=industry
[[ -f scenes/generated/$s/scene.toml ]] || $B/rsim generate "$s" --output "scenes/generated/$s" -q > /dev/null
for rep in 1 2; do for devs in 0 0,1; do
  timeout 60 $B/rsim run "scenes/generated/$s/scene.toml" --backend vulkan --devices $devs --no-k-cache \
    --no-timeseries --no-images --no-progress --log-level debug --output /tmp/st-$s > /tmp/st.log 2>&1 || tail -3 /tmp/st.log
  cp /tmp/st.log "$OUT/st-$s-${devs/,/x}-$rep.log"
done; done
(cd "$OUT" && for f in st-*.log; do echo "== $f"; grep -E "staging|near lists|transport's buffers|merged|far sums through|visibility: [0-9]|radiosity: " "$f" | sed -E 's/^\[[a-z]+\] //' | cut -c1-230; done > c66-staging.txt; tar czf c66-logs.tgz st-*.log && rm -f st-*.log)
cat "$OUT/c66-staging.txt"
OUT=$OUT/scale SCALE_MODES=inplace timeout 420 bash scripts/device/gpu-run.sh scale 0.5 2>&1 | tail -8
