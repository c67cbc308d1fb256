#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a two-GPU machine of the device tool, after `source .device/prelude.sh`, with the bundle at
# .device/rsim-bundle.tgz and an older build's rsim binary at OLD: each of SCENES (generated) on
# GPU 0 and on GPUs 0 and 1 with this bundle, and on OLD_DEVICES (default "0,1") with the older
# binary, twice, alternating, K cache off, debug logs; prints each run's phases and details and
# `rsim compare` of one GPU against two and of the two builds on the devices both ran (issue 17,
# point 5). NEW_DEVICES (default "0 0,1") and OLD_DEVICES: on one GPU, both "0" (or "0 0,0": two
# slots of it).
# NEW_OPTS and OLD_OPTS: more options for each (OLD may be this bundle's own bin/rsim, to compare
# options alone). RUN_TIMEOUT (default 120 s) stops a run that hangs. REPS (default 2): repeats.
#
#   OLD=.device/variants/rsim-f1dfc7a SCENES=large-room,traffic,industry scripts/device/two-gpus-ab.sh
#   OLD=/tmp/b/rsim-bundle/bin/rsim OLD_OPTS="--visibility pipeline" NEW_OPTS="--visibility bvh" scripts/device/two-gpus-ab.sh
set -uo pipefail
OUT=${OUT:-/tmp/rsim-out}
mkdir -p "$OUT" /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
source scripts/device/place-build.sh
place_build "${OLD:?OLD: an older build (its rsim binary, or a folder with its binary and modules)}" rsim-old $B
nvidia-smi -L | tee "$OUT/machine.txt"
SCENES=${SCENES:-large-room,industry}
for s in ${SCENES//,/ }; do
  [[ -f scenes/generated/$s/scene.toml ]] || $B/rsim generate "$s" --output "scenes/generated/$s" -q > /dev/null
  for rep in $(seq ${REPS:-2}); do for which in new old; do devlist=${NEW_DEVICES:-0 0,1}; [[ $which == old ]] && devlist=${OLD_DEVICES:-0,1}; for devs in $devlist; do
    bin=$B/rsim opts=${NEW_OPTS:-}; [[ $which == old ]] && bin=$B/rsim-old opts=${OLD_OPTS:-}
    timeout ${RUN_TIMEOUT:-120} $bin run $opts "scenes/generated/$s/scene.toml" --backend vulkan --devices "$devs" --no-k-cache --no-timeseries \
      --no-images --no-progress --log-level debug --output "/tmp/mg-$which-$s-${devs/,/x}" > /tmp/mg.log 2>&1 || { tail -3 /tmp/mg.log; continue; }
    cp /tmp/mg.log "$OUT/mg-$which-$s-${devs/,/x}-$rep.log"
    python3 - "/tmp/mg-$which-$s-${devs/,/x}/summary.json" "$s" "$devs" "$rep" "$which" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); t = s["timings_s"]; d = s.get("timings_detail_s", {})
keys = sorted(k for k in d if k.startswith(("visibility", "k_", "radiosity", "near")))
print(sys.argv[5], sys.argv[2], "devices", sys.argv[3], "rep", sys.argv[4], "total %.3f" % t["total"], "visibility %.3f" % t["visibility"],
      "compress %.3f" % t.get("compress", 0), "radiosity %.3f" % t["radiosity"], "process %.3f" % s.get("process_s", 0), "rss %.2f GB" % (s.get("peak_host_rss_bytes", 0) / 1e9),
      " ".join("%s %.3f" % (k, t[k]) for k in ("load", "accel", "direct", "distance", "output") if k in t),
      " ".join("%s %.3f" % (k, d[k]) for k in keys if isinstance(d[k], (int, float))))
PY
  done; done; done
  for d in $(ls -d /tmp/mg-new-$s-*x* 2>/dev/null); do [[ -d /tmp/mg-new-$s-0 ]] &&
    echo "compare $s new 1 vs ${d##*-}: $($B/rsim compare /tmp/mg-new-$s-0 $d --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
  done
  for d in $(ls -d /tmp/mg-new-$s-* 2>/dev/null); do d=${d##*-}; [[ -d /tmp/mg-old-$s-$d ]] &&
    echo "compare $s old against new on $d: $($B/rsim compare /tmp/mg-old-$s-$d /tmp/mg-new-$s-$d --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
  done
done 2>&1 | tee $OUT/one-against-two.txt
