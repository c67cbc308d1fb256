#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 61's speed, paired on one GPU: an earlier build ("old", e.g. 8c9d886) against this tree
# ("new"). Medium and large rooms, one pose and 32 (`rsim poses --orbit 32`), K from the K cache,
# AMCW at 20 and 50 MHz, no timeseries.h5; builds alternate, three rounds. Then `rsim compare` of
# old and new, and the large room's log (the K placement's debug line: fill or copy bound).
# Prepare here: scripts/make-bundle.sh .device/rsim-bundle; the old build's rsim and rsim-*.so in
# a folder old/ packed as .device/old-bin.tgz; .device/prelude.sh from the shared tools. Run:
#   OUT=... bash scripts/device/phasors-ab.sh   (carry the three .device/ files)
# Without .device/old-bin.tgz, this tree's build alone (the same rows, no comparison). ROUNDS: 3.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh
source scripts/device/place-build.sh
mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
builds="new"
if [[ -f .device/old-bin.tgz ]]; then
  mkdir -p /tmp/old && tar xzf .device/old-bin.tgz -C /tmp/old && place_build /tmp/old/old old "$B" && builds="old new"
fi
export XDG_CACHE_HOME=/tmp/xdg
row() { # label scene poses round dir wall
  python3 - "$@" <<'PY'
import json, os, sys
b, s, p, r, d, wall = sys.argv[1:]
j = json.load(open(d + '/summary.json'))
pose = j
for sub in sorted(os.listdir(d)):  # a batch: its first pose's summary
    if os.path.isfile(f'{d}/{sub}/summary.json'):
        pose = json.load(open(f'{d}/{sub}/summary.json'))
        break
det = j.get('timings_detail_s') or pose.get('timings_detail_s') or {}
ph = j.get('phasors') or pose.get('phasors') or {}
it = '/'.join(str(x) for x in ph.get('iterations', [])) if isinstance(ph.get('iterations'), list) else ph.get('iterations', '')
print(f"{b},{s},{p},{r},{j['timings_s'].get('phasors', 0):.4f},{det.get('phasors_setup', 0):.4f},"
      f"{det.get('phasors_loop', 0):.4f},{det.get('k_placement', 0):.4f},{it},{wall}")
PY
}
run1() { # label binary scene poses round
  local label=$1 bin=$2 s=$3 p=$4 r=$5 d=/tmp/r-$1-$3-$4 extra=""
  [[ $p == 32 ]] && extra="--poses /tmp/p32-$s.csv"
  local t0=$(date +%s.%N)
  $B/$bin run scenes/generated/$s/scene.toml $o --set simulation.transport=\"phasors\" $extra -o $d || echo "FAILED $label $s $p"
  local t1=$(date +%s.%N)
  row $label $s $p $r $d $(python3 -c "print(round($t1-$t0,3))")
}
{
  echo "machine: $(nproc) cores, $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
  o='--backend vulkan --k-cache /tmp/kc --no-progress --no-timeseries -q --set sensor.mode="amcw" --set sensor.modulation_mhz=[20,50]'
  for s in medium-room large-room; do
    $B/rsim generate $s --output scenes/generated/$s -q > /dev/null
    $B/rsim poses scenes/generated/$s/scene.toml --orbit 32 -o /tmp/p32-$s.csv -q
    for b in $builds; do [[ $b == new ]] && b=rsim; $B/$b run scenes/generated/$s/scene.toml $o --set simulation.transport=\"phasors\" -o /tmp/warm-$b; done
  done
  echo "label,scene,poses,round,phasors_s,phasors_setup,phasors_loop,k_placement,iterations,process_s"
  for r in $(seq ${ROUNDS:-3}); do
    for s in medium-room large-room; do
      for p in 1 32; do
        for b in $builds; do run1 $b $([[ $b == new ]] && echo rsim || echo old) $s $p $r; done
      done
    done
  done
  [[ $builds == "old new" ]] && for s in medium-room large-room; do
    for p in 1 32; do
      echo "compare old new $s $p:"
      $B/rsim compare /tmp/r-old-$s-$p /tmp/r-new-$s-$p | tail -3
    done
  done
  echo "K placement, large room, one pose (debug log):"
  $B/rsim run scenes/generated/large-room/scene.toml ${o/-q/--log-level debug} --set simulation.transport=\"phasors\" -o /tmp/dbg 2>&1 | grep -E "bulk upload|k_placement|phasors" | head -8
} 2>&1 | tee "$OUT/phasors-ab.txt"
