#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 20's pose mode: a batch shared among 2 and 3 MPI ranks on this machine gives, bit for bit
# on the CPU backend, the results of one process; a rank that fails ends the job in seconds with
# a message naming it, and leaves no results.
#   mpi_batch.sh RSIM MPIEXEC SOURCE_DIR WORK_DIR [PYTHON]
# PYTHON (with numpy and h5py) compares the batches' batch.h5 too.
set -eu
rsim=$1 mpiexec=$2 src=$3 work=$4 python=${5:-}
rm -rf "$work" && mkdir -p "$work"
# Open MPI refuses root without these (CI containers run as root).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
scene=$src/scenes/tiny-room/scene.toml
cat >"$work/poses.csv" <<'CSV'
name,x,y,z,look_x,look_y,look_z
a,0.25,1.52,1.5,4.0,1.5,1.0
b,0.5,1.2,1.4,4.0,1.0,1.0
c,0.8,1.8,1.6,4.0,2.0,0.8
d,1.2,1.5,1.2,3.0,0.5,0.5
e,0.4,0.8,1.7,3.5,2.5,1.0
CSV
run() { # $1: output folder, $2...: launcher
  out=$1; shift
  "$@" "$rsim" run "$scene" --poses "$work/poses.csv" --backend cpu --timesteps 300 --samples 2 -q --no-progress \
    --k-cache "$work/cache-$(basename "$out")" -o "$out"
}
run "$work/one"
for n in 2 3; do
  run "$work/ranks$n" timeout 300 "$mpiexec" --oversubscribe -np "$n"
  grep -q '"ranks": '"$n" "$work/ranks$n/summary.json"
  cmp "$work/one/batch.csv" "$work/ranks$n/batch.csv"
  for pose in a b c d e; do
    cmp "$work/one/$pose/triangles.csv" "$work/ranks$n/$pose/triangles.csv"
    cmp "$work/one/$pose/depth.pfm" "$work/ranks$n/$pose/depth.pfm"
    "$rsim" compare "$work/one/$pose" "$work/ranks$n/$pose" -q --tol-m 0 >/dev/null
  done
  # batch.h5: rank 0 wrote its own poses' images as they ended and read the other ranks' from
  # their images.h5; every array as one process's.
  if [ -n "$python" ]; then
    "$python" - "$work/one/batch.h5" "$work/ranks$n/batch.h5" <<'PY'
import sys
import h5py
import numpy as np
one, ranks = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
names = []
one.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset) else None)
assert "range_m" in names and "distance_m" in names, names
for name in names:
    a, b = one[name][()], ranks[name][()]
    same = np.array_equal(a, b, equal_nan=True) if a.dtype.kind in "fiu" else list(a) == list(b)
    assert same, f"batch.h5 {name} differs"
PY
  fi
done
# Rank 1 cannot read its scene: the whole job ends, naming rank 1 and the file.
# The job ends by itself (a hang would run into the timeout, which exits 124): no clock is read.
rc=0
timeout 120 "$mpiexec" --oversubscribe -np 1 "$rsim" run "$scene" --poses "$work/poses.csv" --backend cpu \
  --no-progress -q -o "$work/failed" : -np 1 "$rsim" run "$work/missing.toml" --poses "$work/poses.csv" \
  --backend cpu -q -o "$work/failed" >"$work/failed.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || { echo "a job with a failing rank succeeded"; exit 1; }
[ "$rc" -ne 124 ] || { echo "the job with a failing rank did not end by itself"; exit 1; }
grep -q "rank 1 of 2: error: .*missing.toml" "$work/failed.log" || { cat "$work/failed.log"; exit 1; }
[ ! -e "$work/failed" ] || { echo "a failed job left results"; exit 1; }
echo "mpi batch: 1, 2 and 3 ranks agree; a failing rank ends the job"
