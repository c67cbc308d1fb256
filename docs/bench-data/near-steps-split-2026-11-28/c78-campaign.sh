#!/usr/bin/env bash
# Experiment (not a product build): where the two-GPU time loop's time goes. An experimental
# build of c7dd38e with environment switches: RSIM_EXP_NO_NEAR=1 records no near steps,
# RSIM_EXP_NO_FAR=1 no far gathers (results wrong, the loop's time alone), RSIM_EXP_NO_LAG=1 the
# exchange of 615ead0 (16-step blocks, near steps after each block's exchange).
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/x && tar xzf .device/exp-bundle.tgz -C /tmp/x
X=/tmp/x/exp-bundle/rsim
for s in large-room traffic industry; do
  [[ -f scenes/generated/$s/scene.toml ]] || $X generate "$s" --output "scenes/generated/$s" -q > /dev/null
  for rep in 1 2; do
    for devs in 0 0,1; do for lag in 1 0; do [[ $devs == 0 && $lag == 0 ]] && continue
      for mode in full NO_NEAR NO_FAR; do
        env=(); [[ $mode != full ]] && env+=("RSIM_EXP_$mode=1"); [[ $lag == 0 ]] && env+=("RSIM_EXP_NO_LAG=1")
        env "${env[@]}" timeout 60 $X run "scenes/generated/$s/scene.toml" --backend vulkan --devices "$devs" --no-k-cache --no-timeseries \
          --no-images --no-progress --output /tmp/xo > /tmp/x.log 2>&1
        echo "$s devices $devs lag $lag $mode rep $rep: $(grep -o 'radiosity: .*time loop' /tmp/x.log | head -1)"
      done
    done; done
  done
done 2>&1 | tee "$OUT/c78.txt"
