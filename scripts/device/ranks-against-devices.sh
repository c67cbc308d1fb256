#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a two-GPU machine of the device tool, after `source .device/prelude.sh`, with the bundle at
# .device/rsim-bundle.tgz and Open MPI's launcher at .device/rsim-mpi.tgz
# (scripts/make-mpi-bundle.sh): each scene on GPU 0, on GPUs 0 and 1 in one process, and as two
# MPI ranks with one GPU each (row-block mode), REPEATS times, alternating, K computed every
# time (issue 20's acceptance: the ranks' speed-up within 10% of the one process's). Prints
# whole-process and phase times, writes $OUT/ranks-against-devices.csv, and compares the two
# ranks' results with the one process's on both GPUs (rsim compare).
#
#   REPEATS=2 scripts/device/ranks-against-devices.sh medium-room,large-room,industry
set -uo pipefail
OUT=${OUT:-/tmp/rsim-out}
mkdir -p "$OUT" /tmp/rsimb && tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb && tar xzf .device/rsim-mpi.tgz -C /tmp/rsimb ||
  { echo "ranks-against-devices: needs .device/rsim-bundle.tgz and .device/rsim-mpi.tgz"; exit 2; }
R=/tmp/rsimb/rsim-bundle/rsim
MPIRUN=/tmp/rsimb/rsim-mpi/mpirun
nvidia-smi -L
# Root on the device machines; the ranks share this machine's cores (no binding).
mpi=(--allow-run-as-root --bind-to none -x VK_DRIVER_FILES -x __EGL_VENDOR_LIBRARY_FILENAMES)
# The image's own PMIx components (another version) fail to load beside ours (three dlopen lines
# per job in the logs, harmless); this drops the warning about compression that follows them.
export PMIX_MCA_pcompress_base_silence_warning=1
csv=$OUT/ranks-against-devices.csv
echo "scene,config,rep,wall_s,process_s,total_s,visibility_s,visibility_rays_s,rank_exchange_s,compress_s,radiosity_s,radiosity_loop_s" > "$csv"
now() { date +%s.%N; }
for s in ${1//,/ }; do
  [[ -f scenes/generated/$s/scene.toml ]] || $R generate "$s" --output "scenes/generated/$s" -q > /dev/null
  scene=scenes/generated/$s/scene.toml
  args=(run "$scene" --backend vulkan --no-k-cache --no-timeseries --no-progress)
  for rep in $(seq "${REPEATS:-2}"); do
    for config in one-gpu two-devices two-ranks; do
      dir=/tmp/rd-$s-$config
      t0=$(now)
      case $config in
      one-gpu) $R "${args[@]}" --devices 0 --output "$dir" > /tmp/rd.log 2>&1 ;;
      two-devices) $R "${args[@]}" --devices 0,1 --output "$dir" > /tmp/rd.log 2>&1 ;;
      two-ranks) $MPIRUN "${mpi[@]}" -np 1 "$R" "${args[@]}" --devices 0 --output "$dir" : \
                   -np 1 "$R" "${args[@]}" --devices 1 --output "$dir" > /tmp/rd.log 2>&1 ;;
      esac
      rc=$?; t1=$(now)
      if [[ $rc -ne 0 ]]; then echo "$s $config rep $rep: failed ($rc)"; tail -5 /tmp/rd.log; continue; fi
      cp /tmp/rd.log "$OUT/rd-$s-$config-$rep.log"
      python3 - "$dir/summary.json" "$s" "$config" "$rep" "$t0" "$t1" "$csv" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); t = s["timings_s"]; d = s.get("timings_detail_s", {})
wall = float(sys.argv[6]) - float(sys.argv[5])
row = [sys.argv[2], sys.argv[3], sys.argv[4], "%.3f" % wall, "%.3f" % s.get("process_s", 0), "%.3f" % t["total"],
       "%.3f" % t.get("visibility", 0), "%.3f" % d.get("visibility_rays", 0), "%.3f" % d.get("visibility_rank_exchange", 0),
       "%.3f" % t.get("compress", 0), "%.3f" % t.get("radiosity", 0), "%.3f" % d.get("radiosity_loop", 0)]
open(sys.argv[7], "a").write(",".join(row) + "\n")
print(" ".join(row), "| mpi", s.get("mpi"), "| rays", s.get("rays", {}).get("visibility"))
PY
    done
  done
  $R compare "/tmp/rd-$s-two-devices" "/tmp/rd-$s-two-ranks" 2>&1 | tail -4 | sed "s/^/$s two ranks vs two devices: /"
  $R compare "/tmp/rd-$s-one-gpu" "/tmp/rd-$s-two-ranks" 2>&1 | tail -4 | sed "s/^/$s two ranks vs one GPU: /"
done
