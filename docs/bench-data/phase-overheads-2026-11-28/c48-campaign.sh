#!/usr/bin/env bash
# The nineteenth session, first campaign: where the medium room's visibility phase spends the
# time its passes do not (HEAD 0314c9a against issue 7's estimator, c14d843 with
# simulation.tile_list_max = 0). Each build with caches of its own, two warm-up runs, then runs
# with --log-level debug in turn; the logs and summary.json of each kept.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
mkdir -p /tmp/variants && tar xzf .device/variants-c47.tgz -C /tmp/variants
source scripts/device/place-build.sh
place_build /tmp/variants/rsim-c14d843 rsim-c14d843 $B
$R generate medium-room --output scenes/generated/medium-room -q > /dev/null
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > /tmp/o/machine.txt; nproc >> /tmp/o/machine.txt
run() { # build name, rep, extra
  local v=$1 rep=$2; shift 2
  local bin=$R; [[ $v == issue7 ]] && bin=$B/rsim-c14d843
  XDG_CACHE_HOME=/tmp/xdg-$v $bin run scenes/generated/medium-room/scene.toml --backend vulkan --no-k-cache --no-progress \
    -o /tmp/r-$v-$rep --log-level debug "$@" > /tmp/o/log-$v-$rep.txt 2>&1
  cp /tmp/r-$v-$rep/summary.json /tmp/o/summary-$v-$rep.json 2>/dev/null
}
EX7=(--set simulation.tile_list_max=0)
for v in new issue7; do for w in w1 w2; do if [[ $v == issue7 ]]; then run $v $w "${EX7[@]}"; else run $v $w; fi; done; done
for rep in 1 2 3 4 5 6 7; do sleep 0.3; run new $rep; sleep 0.3; run issue7 $rep "${EX7[@]}"; done
python3 - <<'PY' | tee /tmp/o/c48.txt
import json, re, glob
for v in ["new", "issue7"]:
    for rep in range(1, 8):
        s = json.load(open("/tmp/o/summary-%s-%d.json" % (v, rep)))
        log = open("/tmp/o/log-%s-%d.txt" % (v, rep)).read().splitlines()
        waits = [float(m.group(1)) for l in log for m in [re.search(r"waited for the warm-up ([0-9.]+)", l)] if m]
        launches = [l for l in log if "visibility launch of rows" in l]
        lists = [l for l in log if "visibility lists of" in l]
        print("%s %d: visibility %.4f compress %.4f rays %s; warm-up waits %s" % (v, rep, s["timings_s"]["visibility"], s["timings_s"].get("compress", 0),
              s["timings_detail_s"].get("visibility_rays"), " ".join("%.4f" % w for w in waits)))
        for l in lists + launches: print("    " + l[l.find("visibility"):][:220])
PY
(cd /tmp/o && tar czf "$OUT/c48.tgz" . && cp c48.txt "$OUT/")
