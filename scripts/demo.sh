#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first command: sets up everything and simulates the bundled default scene.
#   scripts/demo.sh [extra 'rsim run' options, e.g. --backend cpu]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
build/rsim run scenes/tiny-room/scene.toml --output results/tiny-room "$@"
echo "Results: results/tiny-room (summary.json, triangles.csv, timeseries.h5, depth.png, ...)"
