#!/usr/bin/env bash
# Experiment (not a product build): the near steps split over 1, 2, 4 or 8 invocations per
# receiver (RSIM_EXP_NEAR_SPLIT), on one GPU and on two, with 615ead0's exchange
# (RSIM_EXP_NO_LAG=1, 16-step blocks) and c7dd38e's lagged 8-step periods; the time loop alone.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/x && tar xzf .device/exp-bundle.tgz -C /tmp/x
X=/tmp/x/exp-bundle/rsim
for s in large-room traffic industry; do
  [[ -f scenes/generated/$s/scene.toml ]] || $X generate "$s" --output "scenes/generated/$s" -q > /dev/null
  for rep in 1 2; do
    for cfg in "0 0 1" "0 0 8" "0,1 0 1" "0,1 0 2" "0,1 0 4" "0,1 0 8" "0,1 1 8"; do
      read -r devs lag split <<< "$cfg"
      env=(RSIM_EXP_NEAR_SPLIT=$split); [[ $lag == 0 ]] && env+=("RSIM_EXP_NO_LAG=1")
      env "${env[@]}" timeout 60 $X run "scenes/generated/$s/scene.toml" --backend vulkan --devices "$devs" --no-k-cache --no-timeseries \
        --no-images --no-progress --output /tmp/xo-$s-${devs/,/x}-$lag-$split > /tmp/x.log 2>&1
      t=$(python3 -c "import json,sys; print('%.3f' % json.load(open(sys.argv[1]))['timings_s']['total'])" /tmp/xo-$s-${devs/,/x}-$lag-$split/summary.json)
      echo "$s devices $devs lag $lag split $split rep $rep: total $t $(grep -o 'radiosity: .*time loop' /tmp/x.log | head -1)"
    done
  done
  echo "compare $s split 1 vs 8 on 0: $($X compare /tmp/xo-$s-0-0-1 /tmp/xo-$s-0-0-8 --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
  echo "compare $s 0 vs 0,1 at split 8: $($X compare /tmp/xo-$s-0-0-8 /tmp/xo-$s-0x1-0-8 --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
done 2>&1 | tee "$OUT/c79.txt"
