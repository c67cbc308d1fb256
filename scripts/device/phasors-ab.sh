#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 61's speed, paired on one GPU: an earlier build ("old", e.g. 8c9d886: the gathers read all
# of K, the plain one loads each non-zero pair's source data from memory) against this tree
# ("new": K's non-zero blocks of 32 x 32 marked once per solve and only they read; the plain
# gather stages its sources in shared memory; the tiled gather's poses consecutive per
# invocation). RSIM_PHASOR_EVERY_BLOCK=1 marks every block (the new gathers without skipping);
# RSIM_PHASOR_GATHER varies the plain gather's shape (slices x sources loaded at once) on one pose.
# Medium and large rooms, one pose and 32 (`rsim poses --orbit 32`), K from the K cache, AMCW at
# 20 and 50 MHz, no timeseries.h5; builds alternate, three rounds. Then `rsim compare` of old and
# new, the K placement's debug line (fill or copy bound), and issue 62's tiny room on the CPU.
# Prepare here: scripts/make-bundle.sh .device/rsim-bundle; the old build's rsim and rsim-*.so in
# a folder old/ packed as .device/old-bin.tgz; .device/prelude.sh from the shared tools. Run:
#   OUT=... bash scripts/device/phasors-ab.sh   (carry the three .device files)
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh
source scripts/device/place-build.sh
mkdir -p /tmp/b /tmp/old && tar xzf .device/rsim-bundle.tgz -C /tmp/b && tar xzf .device/old-bin.tgz -C /tmp/old
B=/tmp/b/rsim-bundle
place_build /tmp/old/old old "$B"
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
run1() { # label binary scene poses round [env]
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
    for b in old rsim; do $B/$b run scenes/generated/$s/scene.toml $o --set simulation.transport=\"phasors\" -o /tmp/warm-$b; done
  done
  echo "label,scene,poses,round,phasors_s,phasors_setup,phasors_loop,k_placement,iterations,process_s"
  for r in 1 2 3; do
    for s in medium-room large-room; do
      run1 old old $s 1 $r
      for shape in 8x4 16x8; do RSIM_PHASOR_GATHER=$shape run1 new$shape rsim $s 1 $r; done
      RSIM_PHASOR_EVERY_BLOCK=1 run1 newevery rsim $s 1 $r
      run1 old old $s 32 $r
      run1 new rsim $s 32 $r
      RSIM_PHASOR_EVERY_BLOCK=1 run1 newevery rsim $s 32 $r
    done
  done
  for s in medium-room large-room; do
    for p in 1 32; do
      n=new; [[ $p == 1 ]] && n=new8x4
      echo "compare old $n $s $p:"
      $B/rsim compare /tmp/r-old-$s-$p /tmp/r-$n-$s-$p | tail -3
    done
  done
  # Issue 62: the tiny room on the CPU backend, whole process, K cache off (the pulsed
  # estimator's matched filter for every t at once in the new build), old and new alternating.
  echo "build,scene,round,process_s,visibility_s,radiosity_s,distance_s"
  for r in 1 2 3 4 5; do
    for b in old rsim; do
      t0=$(date +%s.%N)
      $B/$b run scenes/tiny-room/scene.toml --backend cpu --no-k-cache --no-progress -q -o /tmp/tiny-$b || echo "FAILED tiny $b"
      t1=$(date +%s.%N)
      python3 -c "import json; j=json.load(open('/tmp/tiny-$b/summary.json'))['timings_s']; print('${b/rsim/new},tiny-room,$r,%.3f,%.3f,%.3f,%.3f' % ($t1-$t0, j['visibility'], j['radiosity'], j['distance']))"
    done
  done
  $B/rsim compare /tmp/tiny-old /tmp/tiny-rsim --tol-m 0 --max-fraction 0 | tail -2
  echo "K placement, large room, one pose (debug log):"
  $B/rsim run scenes/generated/large-room/scene.toml ${o/-q/--log-level debug} --set simulation.transport=\"phasors\" -o /tmp/dbg 2>&1 | grep -E "bulk upload|k_placement|phasors" | head -8
} 2>&1 | tee "$OUT/phasors-ab.txt"
