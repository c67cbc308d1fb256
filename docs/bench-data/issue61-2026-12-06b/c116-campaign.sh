#!/usr/bin/env bash
# Issue 61's speed, paired on one GPU: the build of c111 (73bea27, "old": the plain gather for
# every group, K placed by blocking uploads) against this tree ("new": the tiled gather for
# groups of 8 poses or more, a frozen frequency's trigonometry skipped, K placed by the pipelined
# bulk upload). Medium and large rooms, one pose and 32 (`rsim poses --orbit 32`), K from the K
# cache, AMCW at 20 and 50 MHz, images and triangles.csv, no timeseries.h5; old and new
# alternate, three rounds. Then the large room's time-stepped transport once per build (K's
# placement is inside its phase too), `rsim compare` of the two builds' 32-pose phasors runs;
# issue 62's CPU radiosity (old against new, the medium room, K from the cache); and the
# phasors tests under the validation layer. Run with the code of 952f425, whose tiled gather
# took two receivers an invocation: slower than c115's, and reverted (its 32-pose figures are
# superseded by c115's); the one-pose figures (plain gather, loads ahead, 8 MiB pieces), the K
# placement and the CPU figures stand.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .device/prelude.sh
source scripts/device/place-build.sh
mkdir -p /tmp/b /tmp/old && tar xzf .device/rsim-bundle.tgz -C /tmp/b && tar xzf .device/old-bin.tgz -C /tmp/old
B=/tmp/b/rsim-bundle
place_build /tmp/old/old old "$B"
export XDG_CACHE_HOME=/tmp/xdg
row() { # build scene poses round transport dir wall
  python3 - "$@" <<'PY'
import json, sys
b, s, p, r, t, d, wall = sys.argv[1:]
import os
j = json.load(open(d + '/summary.json'))
pose = j
for sub in sorted(os.listdir(d)):  # a batch: its first pose's summary
    if os.path.isfile(f'{d}/{sub}/summary.json'):
        pose = json.load(open(f'{d}/{sub}/summary.json'))
        break
det = j.get('timings_detail_s') or pose.get('timings_detail_s') or {}
ph = j.get('phasors') or pose.get('phasors') or {}
print(f"{b},{s},{p},{r},{t},{j['timings_s'].get(t, 0):.4f},{det.get('phasors_setup', 0):.4f},"
      f"{det.get('phasors_loop', 0):.4f},{det.get('k_placement', 0):.4f},{ph.get('iterations', '')},{wall}".replace("[", "").replace("]", "").replace(", ", "/"))
PY
}
{
  echo "machine: $(nproc) cores, $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
  o='--backend vulkan --k-cache /tmp/kc --no-progress --no-timeseries -q --set sensor.mode="amcw" --set sensor.modulation_mhz=[20,50]'
  for s in medium-room large-room; do
    $B/rsim generate $s --output scenes/generated/$s -q > /dev/null
    $B/rsim poses scenes/generated/$s/scene.toml --orbit 32 -o /tmp/p32-$s.csv -q
    for b in old rsim; do $B/$b run scenes/generated/$s/scene.toml $o --set simulation.transport=\"phasors\" -o /tmp/warm-$b; done
  done
  echo "build,scene,poses,round,transport,transport_s,phasors_setup,phasors_loop,k_placement,iterations,process_s"
  for r in 1 2 3; do
    for s in medium-room large-room; do
      for p in 1 32; do
        extra=""; [[ $p == 32 ]] && extra="--poses /tmp/p32-$s.csv"
        for b in old rsim; do
          d=/tmp/r-$b-$s-$p
          t0=$(date +%s.%N)
          $B/$b run scenes/generated/$s/scene.toml $o --set simulation.transport=\"phasors\" $extra -o $d || echo "FAILED $b $s $p"
          t1=$(date +%s.%N)
          row ${b/rsim/new} $s $p $r phasors $d $(python3 -c "print(round($t1-$t0,3))")
        done
      done
    done
  done
  for b in old rsim; do
    d=/tmp/rad-$b
    t0=$(date +%s.%N)
    $B/$b run scenes/generated/large-room/scene.toml $o --set simulation.transport=\"radiosity\" -o $d || echo "FAILED radiosity $b"
    t1=$(date +%s.%N)
    row ${b/rsim/new} large-room 1 1 radiosity $d $(python3 -c "print(round($t1-$t0,3))")
  done
  for s in medium-room large-room; do
    echo "compare old new $s 32 poses:"
    $B/rsim compare /tmp/r-old-$s-32 /tmp/r-rsim-$s-32 | tail -4
    echo "compare exit $?"
  done
  # Issue 62: the CPU backend's time-stepped transport (every core), the medium room's K from the
  # K cache (computed once, by the new build): old (K decoded every block of 8 steps) against new
  # (the far pairs listed once); the two must agree bit for bit.
  m=scenes/generated/medium-room/scene.toml
  oc='--backend cpu --k-cache /tmp/kc-cpu --no-progress -q'
  $B/rsim run $m $oc --no-timeseries -o /tmp/cpu-warm
  echo "build,scene,radiosity_s,visibility_s,process_s"
  for b in old rsim; do
    t0=$(date +%s.%N)
    $B/$b run $m $oc -o /tmp/cpu-$b || echo "FAILED cpu $b"
    t1=$(date +%s.%N)
    python3 -c "import json; j=json.load(open('/tmp/cpu-$b/summary.json'))['timings_s']; print('${b/rsim/new},medium-room,%.3f,%.3f,%.3f' % (j['radiosity'], j['visibility'], $t1-$t0))"
  done
  $B/rsim compare /tmp/cpu-old /tmp/cpu-rsim --tol-m 0 --max-fraction 0 | tail -8
  echo "compare exit $?"
  cmp <(python3 -c "print(open('/tmp/cpu-old/triangles.csv').read())") <(python3 -c "print(open('/tmp/cpu-rsim/triangles.csv').read())") && echo "triangles.csv identical"
} 2>&1 | tee "$OUT/c116.txt"
OUT=/tmp/tests-out TESTS_FILTER="[phasors]" timeout 150 bash scripts/device/gpu-run.sh tests > /tmp/tests.txt 2>&1
echo "tests exit $?" | tee -a "$OUT/c116.txt"
grep -E "^(All tests|test cases|assertions)|FAILED" /tmp/tests-out/gpu-tests.txt | head -20 | tee -a "$OUT/c116.txt"
cat /tmp/tests.txt /tmp/tests-out/gpu-tests.txt 2>/dev/null | gzip -c > "$OUT/tests-c116.txt.gz"
