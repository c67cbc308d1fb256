#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 63's million triangles on one GPU, across the device tool's 10-minute calls: industry at
# --max-edge-m 0.248 (about 1.01M triangles), S = 8, K as segments computed where it lives, with
# the K cache under $ROOT, chunks of 32 MiB (at 1M, 32 rows: whole segments). A call stops its run at LIMIT seconds (SIGINT: rsim stops between
# chunks); the chunks cast so far stay in the K cache's chunks file (src/k/k_journal.h), and the
# next call, the same command on the same warm machine (within its 30 s idle time), goes on
# from there. The call whose run ends writes the results. Each call appends to $OUT/million.txt:
# the chunks found, the run's end, wall time and peak host RSS; the last adds summary.json.
#
#   on the GPU, call after call:  OUT=$OUT bash scripts/device/million.sh
#   here (lavapipe, where K lives forced on two slots of one device, a stop after 2 s):
#     B=$PWD/build SCENE=tiny-room EDGE=0 LIMIT=3 ROOT=/tmp/m1 OUT=/tmp/m1/out \
#       EXTRA="--max-host-mb 0.01 --devices 0,0" CHUNK_MB=0.01 SAMPLES=64 bash scripts/device/million.sh
# Prepare here: scripts/make-bundle.sh .device/rsim-bundle; .device/prelude.sh from the shared
# tools; carry both.
set -uo pipefail
OUT=${OUT:-/tmp/out}
ROOT=${ROOT:-/tmp/million}
LIMIT=${LIMIT:-540}
EDGE=${EDGE:-0.248}
SCENE=${SCENE:-industry}
mkdir -p "$OUT" "$ROOT"
if [[ -z ${B:-} ]]; then
  source .device/prelude.sh > "$OUT/gpu.txt"
  [[ -x /tmp/b/rsim-bundle/rsim ]] || { mkdir -p /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b; }
  B=/tmp/b/rsim-bundle
fi
case $SCENE in
  tiny-room|small-room|corridor) scene=scenes/$SCENE/scene.toml ;;
  *) scene=$ROOT/scenes/$SCENE/scene.toml
     [[ -f $scene ]] || $B/rsim generate "$SCENE" --output "$ROOT/scenes/$SCENE" -q > /dev/null ;;
esac
log="$OUT/million.txt"
n=$(ls "$ROOT"/call-*.log 2> /dev/null | wc -l)
call=$((n + 1))
{
  echo "call $call at $(date -u +%H:%M:%S): $(ls -s "$ROOT"/kc/*.kchunks 2> /dev/null | head -1)"
  start=$(date +%s%N)
  /usr/bin/time -v -o "$ROOT/time-$call.txt" timeout -s INT -k 30 "$LIMIT" \
    $B/rsim run "$scene" --backend vulkan --max-edge-m "$EDGE" --samples "${SAMPLES:-8}" --no-timeseries --no-images \
    --no-progress --set 'simulation.k_layout="segments"' --k-cache "$ROOT/kc" --k-cache-max-gb 60 \
    --chunk-mb "${CHUNK_MB:-32}" ${EXTRA:-} \
    -o "$ROOT/result" > "$ROOT/call-$call.log" 2>&1
  rc=$?
  wall=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN {printf "%.1f", (b - a) / 1e9}')
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$ROOT/time-$call.txt")
  echo "call $call: exit $rc after $wall s, peak RSS $rss kB"
  grep -E "triangles after|chunks are in|cut short|where it lives|visibility:|K cache|radiosity|wrote|error" "$ROOT/call-$call.log" |
    cut -c1-300
  if [[ $rc == 0 && -f $ROOT/result/summary.json ]]; then
    cp "$ROOT/result/summary.json" "$OUT/million-summary.json"
    python3 - "$ROOT/result/summary.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = j["timings_s"]; det = j.get("timings_detail_s") or {}
print("done:", j["counts"]["triangles"], "triangles;",
      "K", j["k_bytes"], "bytes as", j.get("k_stored_as"), "; chunks from the cache", j.get("k_chunks_from_cache"),
      "; phases", {k: round(v, 1) for k, v in t.items()}, "; radiosity loop", det.get("radiosity_loop"),
      "; process", round(j["process_s"], 1), "s; peak RSS", j["peak_host_rss_bytes"])
PY
  fi
} 2>&1 | tee -a "$log"
cp "$ROOT/call-$call.log" "$OUT/" 2> /dev/null || true
