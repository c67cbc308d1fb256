#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Start-up on a cold driver cache (issue 21): this bundle's rsim against an older build's binary
# OLD (same libraries), alternating, each run after removing rsim's pipeline cache and the NVIDIA
# driver's shader cache, so that every pipeline is compiled from SPIR-V as on a fresh machine.
# Then the warm runs of `gpu-run.sh startup` against the same binary. Run on a GPU machine of the
# device tool from the repository root:
#   OLD=.device/variants/rsim-REV COLD_SCENES=tiny-room,medium-room COLD_REPEATS=3 scripts/device/startup-cold.sh
# Writes $OUT/startup-cold.txt (one line a run: the build, the scene, the whole process's wall
# time, the phases, the pipelines' summed compile time and the run's waits for the warm-up; then
# `rsim compare` of the builds' last outputs of each scene) and $OUT/cold-logs.tgz, each run's debug log.
set -uo pipefail
source .device/prelude.sh >/dev/null
OUT=${OUT:-/tmp/rsim-out}; mkdir -p "$OUT" /tmp/rsimb; rm -rf /tmp/cold-logs
rm -rf /tmp/rsimb/rsim-bundle && tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle
source scripts/device/place-build.sh
place_build "${OLD:?OLD: an older build (its rsim binary, or a folder with its binary and modules)}" rsim-old $B
scenes=${COLD_SCENES:-tiny-room,medium-room}
for s in ${scenes//,/ }; do [[ -f scenes/$s/scene.toml ]] || $B/rsim generate "$s" --output "scenes/generated/$s" -q >/dev/null; done
path_of() { [[ -f scenes/$1/scene.toml ]] && echo "scenes/$1/scene.toml" || echo "scenes/generated/$1/scene.toml"; }
$B/rsim devices > /dev/null 2>&1
for r in $(seq "${COLD_REPEATS:-3}"); do for s in ${scenes//,/ }; do for v in rsim-old rsim; do
  rm -rf ~/.cache/rsim/pipelines ~/.cache/nvidia "${XDG_CACHE_HOME:-/nonexistent}/nvidia"
  t0=$(date +%s.%N)
  $B/$v run "$(path_of $s)" --backend vulkan --no-k-cache --no-timeseries --no-progress --log-level debug \
    -o /tmp/cold-$v-$s > /tmp/cold-$v.log 2>&1 || { tail -5 /tmp/cold-$v.log; exit 1; }
  t1=$(date +%s.%N)
  python3 - "$v" "$s" "$r" "$t0" "$t1" /tmp/cold-$v-$s/summary.json <<'P'
import json, sys
v, s, r, t0, t1, f = sys.argv[1:]
j = json.load(open(f))
st = j.get("startup_s", {})
pipes = sum(x for k, x in st.items() if k.startswith("pipeline "))
waited = st.get("pipelines: waited for the warm-up", 0.0)
print(f"{v} {s} {r} wall {float(t1) - float(t0):.3f} phases {j['timings_s']['total']:.3f} "
      f"pipelines {pipes:.3f} waited {waited:.3f} "
      + " ".join(f"{k}={x:.3f}" for k, x in j['timings_s'].items() if k in ('direct', 'visibility', 'distance', 'radiosity')))
P
  mkdir -p /tmp/cold-logs && cp /tmp/cold-$v.log "/tmp/cold-logs/cold-$s-$v-$r.log"
done; done; done | tee "$OUT/startup-cold.txt"
# The builds' last outputs of each scene against each other.
for s in ${scenes//,/ }; do
  echo "compare $s, old against new: $($B/rsim compare /tmp/cold-rsim-old-$s /tmp/cold-rsim-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
done | tee -a "$OUT/startup-cold.txt"
# One archive of the runs' debug logs: the device tool returns at most eight files from $OUT.
tar czf "$OUT/cold-logs.tgz" -C /tmp cold-logs && rm -rf /tmp/cold-logs
