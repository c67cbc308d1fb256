#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 63 on one GPU: K stored dense against K stored as segments (simulation.k_layout), each
# device making its own K segments. Per scene (SCENES: generated scene names, "industry-0.7" for
# industry at --max-edge-m 0.7): one pose of radiosity (T = 1000): K's bytes and segments, the
# visibility phase, the compaction, the radiosity loop; a batch of 32 poses (`rsim poses --orbit
# 32`, pose lanes) and one pose of phasors (AMCW at 20 and 50 MHz); `rsim compare` of each pair.
# With SCALE=1, industry at --max-edge-m 0.5 (298,904 triangles, S = 8) as segments: K computed
# where it lives, made segments chunk by chunk (issue 63's bar: K under 12 GB, radiosity under
# 10 s a 1000 steps). Prepare here: scripts/make-bundle.sh .device/rsim-bundle; .device/prelude.sh
# from the shared tools. Run: OUT=... bash scripts/device/segments-gpu.sh (carry the two files).
# SCENES= (empty) runs no scene but the SCALE one; SCALE_TIMEOUT (s, default 560) bounds that run;
# BATCHES=0 leaves out the batches and phasors. With PROBE and SCALE, the 299k K goes to a K cache
# and both builds' radiosity runs from it SCALE_ROUNDS (2) times, alternating. STAGED=1 adds rows
# with the far gather staging the segments (tuning.radiosity_staged), and at 299k runs it and the
# unstaged gather from the K cache the same way.
# With PROBE=.device/probe-bin.tgz (another build's rsim and rsim-*.so in a folder probe/), the
# radiosity rows run that build too, dense and as segments, one after the other.
# Locally (lavapipe, small scenes): B=build SCENES=small-room ROOT=/tmp/seg bash scripts/device/segments-gpu.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}
ROOT=${ROOT:-/tmp}
mkdir -p "$OUT" "$ROOT"
if [[ -z ${B:-} ]]; then
  source .device/prelude.sh > "$OUT/gpu.txt"
  mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
  B=/tmp/b/rsim-bundle
fi
bins=rsim
if [[ -n ${PROBE:-} ]]; then
  source scripts/device/place-build.sh
  mkdir -p /tmp/probe && tar xzf "$PROBE" -C /tmp/probe && place_build /tmp/probe/probe probe "$B" && bins="rsim probe"
fi
export XDG_CACHE_HOME=$ROOT/xdg
o='--backend vulkan --no-progress --no-timeseries -q --no-k-cache'
row() { # label scene layout dir
  python3 - "$@" <<'PY'
import json, os, sys
label, scene, layout, d = sys.argv[1:]
j = json.load(open(d + '/summary.json'))
pose = j
for sub in sorted(os.listdir(d)):  # a batch: its first pose's summary has the transport's details
    if os.path.isfile(f'{d}/{sub}/summary.json'):
        pose = json.load(open(f'{d}/{sub}/summary.json'))
        break
t = j['timings_s']; det = {**(pose.get('timings_detail_s') or {}), **(j.get('timings_detail_s') or {})}
loop = det.get('radiosity_loop', det.get('phasors_loop', 0))
print(f"{label},{scene},{layout},{j.get('k_stored_as', '')},{j['k_bytes']},{j.get('k_segments', '')},"
      f"{t.get('visibility', 0):.3f},{det.get('k_segments_on_device', 0):.3f},{loop:.3f},"
      f"{max(t.get('radiosity', 0), t.get('phasors', 0)):.3f},{j['process_s']:.3f},{j.get('peak_host_rss_bytes', 0)}")
PY
}
scene_of() { local s=$1; echo "${s%-0.7}"; }
# dense, segments, or staged: segments with the far gather staging them (tuning.radiosity_staged).
layout_of() {
  case $1 in
    staged) echo '--set simulation.k_layout="segments" --set tuning.radiosity_staged=true' ;;
    *) echo "--set simulation.k_layout=\"$1\"" ;;
  esac
}
edge_of() { [[ $1 == industry-0.7 ]] && echo "--max-edge-m 0.7"; }
{
  echo "machine: $(nproc) cores, $(cat "$OUT/gpu.txt" 2>/dev/null)"
  echo "label,scene,asked,stored_as,k_bytes,segments,visibility_s,compaction_s,loop_s,transport_s,process_s,peak_rss"
  for s in ${SCENES-medium-room large-room industry industry-0.7}; do
    sc=$(scene_of $s)
    [[ -f $ROOT/scenes/$sc/scene.toml ]] || $B/rsim generate $sc --output $ROOT/scenes/$sc -q > /dev/null
    f=$ROOT/scenes/$sc/scene.toml
    for bin in $bins; do
      for L in dense segments ${STAGED:+staged}; do
        d=$ROOT/r-$s-$L; [[ $bin == rsim ]] || d=$ROOT/r-$s-$L-$bin
        timeout 240 $B/$bin run $f $o $(edge_of $s) $(layout_of $L) -o $d || echo "FAILED radiosity $bin $s $L"
        row radiosity-$bin $s $L $d
      done
    done
    echo "compare radiosity $s: $($B/rsim compare $ROOT/r-$s-dense $ROOT/r-$s-segments --tol-m 1e-6 | tail -1)"
    [[ $s == industry* || ${BATCHES:-1} == 0 ]] && continue # the rooms only: batches and phasors
    $B/rsim poses $f --orbit 32 -o $ROOT/p32-$s.csv -q
    for L in dense segments; do
      d=$ROOT/b-$s-$L
      timeout 240 $B/rsim run $f $o --poses $ROOT/p32-$s.csv --set "simulation.k_layout=\"$L\"" -o $d ||
        echo "FAILED batch $s $L"
      row batch32 $s $L $d
      d=$ROOT/ph-$s-$L
      timeout 240 $B/rsim run $f $o --set simulation.transport=\"phasors\" --set sensor.mode=\"amcw\" \
        --set sensor.modulation_mhz=[20,50] --set "simulation.k_layout=\"$L\"" -o $d || echo "FAILED phasors $s $L"
      row phasors $s $L $d
    done
    echo "compare phasors $s: $($B/rsim compare $ROOT/ph-$s-dense $ROOT/ph-$s-segments --tol-m 1e-5 | tail -1)"
  done
  if [[ -n ${SCALE:-} ]]; then
    sc=industry
    [[ -f $ROOT/scenes/$sc/scene.toml ]] || $B/rsim generate $sc --output $ROOT/scenes/$sc -q > /dev/null
    big="$ROOT/scenes/$sc/scene.toml --backend vulkan --no-progress --no-timeseries --no-images --max-edge-m 0.5
      --samples 8 --set simulation.k_layout=\"segments\" --k-cache $ROOT/kc"
    d=$ROOT/r-299k-segments
    /usr/bin/time -v timeout ${SCALE_TIMEOUT:-560} $B/rsim run $big -o $d > "$OUT/299k.log" 2>&1 ||
      echo "FAILED 299k (the end of its log: $(tail -3 "$OUT/299k.log"))"
    [[ -f $d/summary.json ]] && row radiosity industry-0.5 segments $d && cp $d/summary.json "$OUT/299k-summary.json"
    # With STAGED: the far gather staged and not, from the K cache, alternating.
    for r in $(seq ${SCALE_ROUNDS:-2}); do
      [[ -n ${STAGED:-} && -f $d/summary.json ]] || break
      for v in staged segments; do
        x=""; [[ $v == staged ]] && x="--set tuning.radiosity_staged=true"
        timeout 120 $B/rsim run $big $x -q -o $ROOT/r-299k-$v-$r || echo "FAILED 299k from the cache $v"
        row radiosity-cached-$v industry-0.5 segments $ROOT/r-299k-$v-$r
      done
    done
    # With PROBE: the radiosity of both builds from the K cache, alternating.
    for r in $(seq ${SCALE_ROUNDS:-2}); do
      [[ -n ${PROBE:-} && -f $d/summary.json ]] || break
      for b in probe rsim; do
        timeout 120 $B/$b run $big -q -o $ROOT/r-299k-$b-$r || echo "FAILED 299k from the cache $b"
        row radiosity-cached-$b industry-0.5 segments $ROOT/r-299k-$b-$r
      done
    done
  fi
} 2>&1 | tee "$OUT/segments-gpu.txt"
