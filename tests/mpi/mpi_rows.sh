#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 20's row-block mode: one scene over 2 and 3 MPI ranks, each owning a block of K's rows,
# gives bit for bit the results of one process on the CPU backend (the medium room with 2 ranks,
# the tiny room with 2 and 3, one pose and a batch), and on a Vulkan device (lavapipe in CI)
# agrees with one process within rsim compare's tolerances (the far sums are combined over
# 16 steps instead of 8: other fp32 rounding) with the same K, each pair cast once in the job
# (or, with several devices per rank, the full rows of its chunks); ranks started with different settings, or a rank
# that cannot start, end the job by themselves with a message naming the rank, and leave no results;
# so do ranks with and without a poses file, or with other meshes. Collectives in small pieces
# give the same results. The phasors transport too, on the CPU bit for bit, on Vulkan within tolerance;
# and K stored as segments on the CPU (bit for bit) and on Vulkan (made on each rank's device).
#   mpi_rows.sh RSIM MPIEXEC SOURCE_DIR WORK_DIR
set -eu
log() { echo "mpi_rows.sh: $* ($(date +%T))"; }
rsim=$1 mpiexec=$2 src=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tiny=$src/scenes/tiny-room/scene.toml
base="--backend cpu --samples 2 --no-k-cache -q --no-progress"
opts="$base --timesteps 300"
same() { # $1, $2: results directories of one pose; the sensor signal too, to the last bit
  cmp "$1/triangles.csv" "$2/triangles.csv"
  "$rsim" compare "$1" "$2" --tol-m 0 >"$work/compare.txt"
  grep -q "sensor_signal_fwd .* 0 of peak" "$work/compare.txt" || { cat "$work/compare.txt"; exit 1; }
}
same_k() { # $1, $2: results of one process and of ranks on Vulkan; $3: rays (as many) or more-rays
  python3 - "$1/summary.json" "$2/summary.json" "$3" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for key in ("candidate_pairs", "nonzero_pairs", "clamped_form_factors", "rows_with_form_factor_sum_over_1"):
    assert a["counts"][key] == b["counts"][key], (key, a["counts"][key], b["counts"][key])
# One process sums the rows in fp32 on its device, the ranks in double on the host.
assert abs(a["max_form_factor_row_sum"] - b["max_form_factor_row_sum"]) < 1e-6, (a["max_form_factor_row_sum"], b["max_form_factor_row_sum"])
ra, rb = a["rays"]["visibility"], b["rays"]["visibility"]
assert (ra == rb) if sys.argv[3] == "rays" else (rb > ra), (sys.argv[3], ra, rb)
PY
}
same_segments() { # $1, $2: results of one process and of ranks; $3: the layout both stored K in
  python3 - "$1/summary.json" "$2/summary.json" "$3" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["k_stored_as"] == b["k_stored_as"] == sys.argv[3], (a["k_stored_as"], b["k_stored_as"], sys.argv[3])
assert a.get("k_segments") == b.get("k_segments") and a["k_bytes"] == b["k_bytes"], (a.get("k_segments"), b.get("k_segments"), a["k_bytes"], b["k_bytes"])
PY
}
# 32 chunks of 18 rows: ranks own 11 + 11 + 10 chunks, or 16 + 16.
"$rsim" run "$tiny" $opts --chunk-mb 0.01 -o "$work/one"
for n in 2 3; do
  timeout 300 "$mpiexec" --oversubscribe -np "$n" "$rsim" run "$tiny" $opts --chunk-mb 0.01 -o "$work/rows$n"
  grep -q '"split": "rows"' "$work/rows$n/summary.json"
  same "$work/one" "$work/rows$n"
done
# Every MPI collective in pieces of at most 4 KiB (RSIM_MPI_PIECE_BYTES; 1 GiB by default): the
# half-block swap, the near lists' and the results' gathers cross many pieces, bit for bit.
RSIM_MPI_PIECE_BYTES=4096 timeout 300 "$mpiexec" --oversubscribe -x RSIM_MPI_PIECE_BYTES -np 3 "$rsim" run "$tiny" \
  $opts --chunk-mb 0.01 -o "$work/rows3-pieces"
same "$work/one" "$work/rows3-pieces"
# K stored as segments (issue 63) on every rank: the same results bit for bit, and the job's
# segments counted over the ranks as one process counts them.
"$rsim" run "$tiny" $opts --chunk-mb 0.01 --set simulation.k_layout=segments -o "$work/seg-one"
timeout 300 "$mpiexec" --oversubscribe -np 3 "$rsim" run "$tiny" $opts --chunk-mb 0.01 \
  --set simulation.k_layout=segments -o "$work/seg-rows3"
same "$work/one" "$work/seg-rows3"
same_segments "$work/seg-one" "$work/seg-rows3" segments
# Without indirect light there is no K to share: rank 0 alone writes, as one process would.
"$rsim" run "$tiny" $opts --set simulation.indirect=false -o "$work/direct-one"
timeout 300 "$mpiexec" --oversubscribe -np 2 "$rsim" run "$tiny" $opts --set simulation.indirect=false -o "$work/direct-rows2"
same "$work/direct-one" "$work/direct-rows2"
log "one pose: 2 and 3 ranks agree"
# A batch with the rows shared: every pose as one process computes it.
cat >"$work/poses.csv" <<'CSV'
name,x,y,z,look_x,look_y,look_z
a,0.25,1.52,1.5,4.0,1.5,1.0
b,0.8,1.8,1.6,4.0,2.0,0.8
CSV
"$rsim" run "$tiny" $opts --chunk-mb 0.01 --poses "$work/poses.csv" -o "$work/batch-one"
timeout 300 "$mpiexec" --oversubscribe -np 3 "$rsim" run "$tiny" $opts --chunk-mb 0.01 --poses "$work/poses.csv" \
  --mpi-split rows -o "$work/batch-rows3"
cmp "$work/batch-one/batch.csv" "$work/batch-rows3/batch.csv"
for pose in a b; do same "$work/batch-one/$pose" "$work/batch-rows3/$pose"; done
# Ranks whose memory allows other pose groups (here: told so) run the smallest group together.
timeout 300 "$mpiexec" --oversubscribe -np 1 "$rsim" run "$tiny" $opts --chunk-mb 0.01 --poses "$work/poses.csv" \
  --mpi-split rows --pose-group 1 -o "$work/batch-groups" : -np 1 "$rsim" run "$tiny" $opts --chunk-mb 0.01 \
  --poses "$work/poses.csv" --mpi-split rows --pose-group 2 -o "$work/batch-groups"
grep -q '"group_size": 1' "$work/batch-groups/summary.json"
for pose in a b; do same "$work/batch-one/$pose" "$work/batch-groups/$pose"; done
log "a batch over 3 ranks agrees"
# The phasors transport (MODEL.md section 11): the ranks swap their rows of each iterate; one
# pose and a batch give one process's results bit for bit.
phasors="--set sensor.mode=amcw --set simulation.transport=phasors --set output.timeseries=false"
"$rsim" run "$tiny" $opts $phasors --chunk-mb 0.01 -o "$work/ph-one"
timeout 300 "$mpiexec" --oversubscribe -np 3 "$rsim" run "$tiny" $opts $phasors --chunk-mb 0.01 -o "$work/ph-rows3"
grep -q '"split": "rows"' "$work/ph-rows3/summary.json"
same "$work/ph-one" "$work/ph-rows3"
"$rsim" run "$tiny" $opts $phasors --chunk-mb 0.01 --poses "$work/poses.csv" -o "$work/ph-batch-one"
timeout 300 "$mpiexec" --oversubscribe -np 2 "$rsim" run "$tiny" $opts $phasors --chunk-mb 0.01 \
  --poses "$work/poses.csv" --mpi-split rows -o "$work/ph-batch-rows2"
cmp "$work/ph-batch-one/batch.csv" "$work/ph-batch-rows2/batch.csv"
for pose in a b; do same "$work/ph-batch-one/$pose" "$work/ph-batch-rows2/$pose"; done
log "phasors: 3 ranks and a batch over 2 agree"
# The Vulkan backend, where a device is there. --host-rays never: one process's K is the GPU's
# (a small scene's K would otherwise go to the CPU on a machine with enough threads).
if "$rsim" devices 2>/dev/null | grep -q "usable:     yes"; then
  vopts="--backend vulkan --validation --samples 2 --timesteps 300 --no-k-cache --no-progress --chunk-mb 0.01 --host-rays never"
  "$rsim" run "$tiny" $vopts -q -o "$work/vk-one"
  for n in 2 3; do
    timeout 300 "$mpiexec" --oversubscribe -np "$n" "$rsim" run "$tiny" $vopts -o "$work/vk-rows$n" >"$work/vk$n.log" 2>&1
    # Rank 0 counts the validation layer's errors; the other ranks would log theirs as errors.
    grep -q "Vulkan validation: 0 error(s)" "$work/vk$n.log" && ! grep -q "\[error\]" "$work/vk$n.log" ||
      { cat "$work/vk$n.log"; exit 1; }
    grep -q '"split": "rows"' "$work/vk-rows$n/summary.json"
    "$rsim" compare "$work/vk-one" "$work/vk-rows$n" -q >/dev/null || "$rsim" compare "$work/vk-one" "$work/vk-rows$n"
    # Each pair cast once in the job: the rays and pairs of one process, and its K (row sums).
    same_k "$work/vk-one" "$work/vk-rows$n" rays
  done
  # More ranks than chunks (the tiny room's K is one chunk by default): ranks 0 and 2 own no
  # rows, and the job still casts one process's rays and gives its K.
  vone="--backend vulkan --validation --samples 2 --timesteps 300 --no-k-cache --no-progress --host-rays never"
  "$rsim" run "$tiny" $vone -q -o "$work/vk-one-chunk"
  timeout 300 "$mpiexec" --oversubscribe -np 3 "$rsim" run "$tiny" $vone -o "$work/vk-empty-ranks" \
    >"$work/vk-empty-ranks.log" 2>&1 || { cat "$work/vk-empty-ranks.log"; exit 1; }
  grep -q "3 ranks own 0, 566, 0 of the 566 rows" "$work/vk-empty-ranks.log" || { cat "$work/vk-empty-ranks.log"; exit 1; }
  "$rsim" compare "$work/vk-one-chunk" "$work/vk-empty-ranks" -q >/dev/null ||
    "$rsim" compare "$work/vk-one-chunk" "$work/vk-empty-ranks"
  same_k "$work/vk-one-chunk" "$work/vk-empty-ranks" rays
  # Ranks with two device slots each cast the full rows of their chunks instead (the pairs
  # between two ranks' rows twice): more rays, the same K.
  timeout 300 "$mpiexec" --oversubscribe -np 2 "$rsim" run "$tiny" $vopts --devices 0,0 -o "$work/vk-lives" \
    >"$work/vk-lives.log" 2>&1 || { cat "$work/vk-lives.log"; exit 1; }
  grep -q "each device casts the full rows of its chunks" "$work/vk-lives.log" || { cat "$work/vk-lives.log"; exit 1; }
  same_k "$work/vk-one" "$work/vk-lives" more-rays
  # Rank 0 streams K and rank 1 keeps it resident on two slots of the device: the ranks agree
  # on the steps per pass and on how they exchange.
  timeout 300 "$mpiexec" --oversubscribe -np 1 "$rsim" run "$tiny" $vopts --stream always -o "$work/vk-mixed" : \
    -np 1 "$rsim" run "$tiny" $vopts --devices 0,0 -o "$work/vk-mixed" >"$work/vk-mixed.log" 2>&1 ||
    { cat "$work/vk-mixed.log"; exit 1; }
  "$rsim" compare "$work/vk-one" "$work/vk-mixed" -q >/dev/null || "$rsim" compare "$work/vk-one" "$work/vk-mixed"
  # K stored as segments, made by each rank on its device: one process's segments and results;
  # a rank that streams K streams its segments.
  seg="--set simulation.k_layout=segments"
  "$rsim" run "$tiny" $vopts $seg -q -o "$work/vk-seg-one"
  timeout 300 "$mpiexec" --oversubscribe -np 3 "$rsim" run "$tiny" $vopts $seg -o "$work/vk-seg-rows3" \
    >"$work/vk-seg.log" 2>&1 || { cat "$work/vk-seg.log"; exit 1; }
  same_segments "$work/vk-seg-one" "$work/vk-seg-rows3" segments
  "$rsim" compare "$work/vk-one" "$work/vk-seg-rows3" -q >/dev/null || "$rsim" compare "$work/vk-one" "$work/vk-seg-rows3"
  timeout 300 "$mpiexec" --oversubscribe -np 1 "$rsim" run "$tiny" $vopts $seg --stream always -o "$work/vk-seg-mixed" : \
    -np 1 "$rsim" run "$tiny" $vopts $seg --devices 0,0 -o "$work/vk-seg-mixed" >"$work/vk-seg-mixed.log" 2>&1 ||
    { cat "$work/vk-seg-mixed.log"; exit 1; }
  same_segments "$work/vk-seg-one" "$work/vk-seg-mixed" segments
  "$rsim" compare "$work/vk-one" "$work/vk-seg-mixed" -q >/dev/null || "$rsim" compare "$work/vk-one" "$work/vk-seg-mixed"
  # The phasors transport on the ranks' devices, their rows swapped through the hosts.
  "$rsim" run "$tiny" $vopts $phasors -q -o "$work/vk-ph-one"
  timeout 300 "$mpiexec" --oversubscribe -np 2 "$rsim" run "$tiny" $vopts $phasors -o "$work/vk-ph-rows2" \
    >"$work/vk-ph.log" 2>&1 || { cat "$work/vk-ph.log"; exit 1; }
  grep -q "Vulkan validation: 0 error(s)" "$work/vk-ph.log" && ! grep -q "\[error\]" "$work/vk-ph.log" ||
    { cat "$work/vk-ph.log"; exit 1; }
  "$rsim" compare "$work/vk-ph-one" "$work/vk-ph-rows2" -q >/dev/null || "$rsim" compare "$work/vk-ph-one" "$work/vk-ph-rows2"
  log "Vulkan: 2 and 3 ranks agree with one process"
else
  log "no usable Vulkan device: the Vulkan part is skipped"
fi
# The medium room (11,458 triangles, 8 chunks), 2 ranks.
"$rsim" generate medium-room -o "$work/medium" >/dev/null
mopts="--backend cpu --samples 1 --timesteps 300 --no-k-cache --no-images --no-timeseries -q --no-progress"
"$rsim" run "$work/medium/scene.toml" $mopts -o "$work/medium-one"
timeout 600 "$mpiexec" --oversubscribe -np 2 "$rsim" run "$work/medium/scene.toml" $mopts -o "$work/medium-rows2"
cmp "$work/medium-one/triangles.csv" "$work/medium-rows2/triangles.csv"
log "the medium room over 2 ranks agrees"
# A job that must fail: it fails, and ends by itself (a hang would run into the timeout, which
# exits 124). No clock is read: a loaded machine is slower, not wrong.
#   must_fail LOG WHAT MPIEXEC-ARGS...
must_fail() {
  out=$1 what=$2; shift 2
  rc=0
  timeout 120 "$mpiexec" "$@" >"$out" 2>&1 || rc=$?
  [ "$rc" -ne 0 ] || { echo "$what succeeded"; exit 1; }
  [ "$rc" -ne 124 ] || { echo "$what did not end by itself"; cat "$out"; exit 1; }
}
# Rank 1 started with other settings: both ranks see it at once, the job ends naming rank 1.
must_fail "$work/differ.log" "a job whose ranks differ" --oversubscribe -np 1 "$rsim" run "$tiny" $opts \
  -o "$work/failed" : -np 1 "$rsim" run "$tiny" $base --timesteps 400 -o "$work/failed"
grep -q "rank 1 has rsim .*simulation.timesteps=400" "$work/differ.log" || { cat "$work/differ.log"; exit 1; }
# Rank 0 with a poses file, rank 1 without (rank 1 waited in another collective for ever before).
must_fail "$work/poses.log" "a job with poses on one rank only" --oversubscribe -np 1 "$rsim" run "$tiny" $opts \
  --poses "$work/poses.csv" -o "$work/failed" : -np 1 "$rsim" run "$tiny" $opts -o "$work/failed"
grep -q "rank 1 has rsim .*no poses file" "$work/poses.log" || { cat "$work/poses.log"; exit 1; }
# The same scene file next to other meshes on rank 1: the triangles differ, the job ends.
mkdir -p "$work/other"
cp "$tiny" "$work/other/scene.toml"
awk '/^v / && !done {$2 = $2 + 0.01; done = 1} 1' "$src/scenes/tiny-room/room.obj" >"$work/other/room.obj"
must_fail "$work/meshes.log" "a job whose ranks read different meshes" --oversubscribe -np 1 "$rsim" run "$tiny" \
  $opts -o "$work/failed" : -np 1 "$rsim" run "$work/other/scene.toml" $opts -o "$work/failed"
grep -q "rank 1 has 566 triangles (vertices, reflectances and ids [0-9a-f]*)" "$work/meshes.log" ||
  { cat "$work/meshes.log"; exit 1; }
# Rank 1 cannot read its scene.
must_fail "$work/failed.log" "a job with a failing rank" --oversubscribe -np 1 "$rsim" run "$tiny" $opts \
  -o "$work/failed" : -np 1 "$rsim" run "$work/missing.toml" $opts -o "$work/failed"
grep -q "rank 1 of 2: error: .*missing.toml" "$work/failed.log" || { cat "$work/failed.log"; exit 1; }
[ ! -e "$work/failed" ] || { echo "a failed job left results"; exit 1; }
# What needs all of K in one process is refused before any work.
if "$mpiexec" --oversubscribe -np 2 "$rsim" run "$tiny" $opts --write-kij -o "$work/kij" >"$work/kij.log" 2>&1; then
  echo "--write-kij ran in row-block mode"; exit 1
fi
grep -q "output.kij (--write-kij) needs all of K in one process" "$work/kij.log" || { cat "$work/kij.log"; exit 1; }
echo "mpi rows: 1, 2 and 3 ranks agree bit for bit; differing and failing ranks end the job"
