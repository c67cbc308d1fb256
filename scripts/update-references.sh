#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the regression references in tests/reference/ ON PURPOSE, after an intended change
# of the physics or of a committed scene. Review what moved before committing:
#   scripts/update-references.sh && git diff --stat tests/reference
# The references come from the CPU backend; tests/test_regression.cpp compares every backend
# with them through `rsim compare`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
for scene in tiny-room corridor; do
  out=tests/reference/$scene
  rm -rf "$out"
  # --no-k-cache: a reference is computed from scratch, never read from a cached K.
  build/rsim run "scenes/$scene/scene.toml" --output "$out" --backend cpu --no-timeseries --no-k-cache -q
  # `rsim compare` reads triangles.csv, depth.pfm and summary.json; the rest is not kept.
  rm -f "$out"/*.png "$out"/*.exr "$out"/images.h5 "$out"/mesh_error.ply
  echo "updated $out"
done
