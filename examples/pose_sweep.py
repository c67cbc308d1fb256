#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A pose sweep around a room with `import rsim`: the camera turns through a full circle where the
scene's own camera stands, K is computed once for all poses, and the depth error of every pixel
goes into one histogram: the multipath error of the whole sweep.

    PYTHONPATH=build/python python3 examples/pose_sweep.py scenes/tiny-room/scene.toml --poses 8
"""
import argparse

import numpy as np

import rsim


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scene")
    ap.add_argument("--poses", type=int, default=16)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--set", action="append", default=[], help="scene overrides, as rsim run --set")
    ap.add_argument("--out", default="pose_sweep.png")
    a = ap.parse_args()

    scene = rsim.Scene.load(a.scene, set=a.set)
    # The camera turns on the spot where the scene's own camera stands (a place known to be
    # free), through a full circle, a little off it (5% of the scene's smaller horizontal extent),
    # looking outwards and slightly down: every direction of the room, from the scene's bounds.
    lo, hi = scene.bounds
    spot = np.array(scene.camera["position"])
    radius = 0.05 * min(hi[0] - lo[0], hi[1] - lo[1])
    angles = np.linspace(0, 2 * np.pi, a.poses, endpoint=False)
    outwards = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=1)
    eyes = spot + radius * outwards
    targets = eyes + outwards * max(hi[0] - lo[0], hi[1] - lo[1]) / 2 - [0, 0, 0.1 * (hi[2] - lo[2])]
    res = rsim.Simulator(scene, backend=a.backend).run(np.hstack([eyes, targets]))

    error = (res["range_m"] - res["range_true_m"]).ravel()
    error = error[np.isfinite(error)] * 1e3  # mm
    print(f"{a.poses} poses on {res['backend']}: {error.size} pixels with a range; error median "
          f"{np.median(error):.2f} mm, 95th percentile of |error| {np.percentile(np.abs(error), 95):.2f} mm")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.hist(np.clip(error, -50, 50), bins=100)
    ax.set_xlabel("range error (mm, clipped to +-50)")
    ax.set_ylabel("pixels")
    ax.set_title(f"{a.poses} poses")
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
