#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small training set for a depth network with `import rsim`: random poses in a room, each
sample's simulated range (multipath error included), ground truth, the range of the direct light
alone and the amplitude, written to one .npz.

    PYTHONPATH=build/python python3 examples/training_set.py scenes/tiny-room/scene.toml --samples 8
"""
import argparse

import numpy as np

import rsim


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scene")
    ap.add_argument("--samples", type=int, default=32, help="poses (training samples)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--set", action="append", default=[], help="scene overrides, as rsim run --set")
    ap.add_argument("--out", default="training_set.npz")
    a = ap.parse_args()

    rng = np.random.default_rng(a.seed)
    scene = rsim.Scene.load(a.scene, set=a.set)
    # Cameras in the middle half of the scene's bounding box, looking at random points in it.
    lo, hi = scene.bounds
    eyes = rng.uniform(lo + 0.25 * (hi - lo), hi - 0.25 * (hi - lo), size=(a.samples, 3))
    targets = rng.uniform(lo, hi, size=(a.samples, 3))
    too_close = np.linalg.norm(targets - eyes, axis=1) < 0.5
    targets[too_close] = 2 * eyes[too_close] - targets[too_close] + [1.0, 0.0, 0.0]
    res = rsim.Simulator(scene, backend=a.backend).run(np.hstack([eyes, targets]))
    # The input a network sees (the measured range, with its multipath error) and its target
    # (the true range), and the range from the direct light alone, which isolates the multipath.
    np.savez_compressed(a.out, range=res["range_m"], range_true=res["range_true_m"],
                        range_direct=res["range_direct_m"], amplitude=res["amplitude"],
                        poses=np.hstack([eyes, targets]))
    valid = np.isfinite(res["range_m"]).mean()
    error = np.abs(res["range_m"] - res["range_true_m"])
    print(f"wrote {a.out}: {a.samples} samples of {res['range_m'].shape[1]} x {res['range_m'].shape[2]} "
          f"({valid:.0%} of pixels with a range; |range - range_true| median {np.nanmedian(error) * 1e3:.1f} mm, "
          f"95th percentile {np.nanpercentile(error, 95) * 1e3:.1f} mm)")
    if not np.nanmax(error) > 0:
        print("note: range equals range_true everywhere: this scene shows no multipath (a delta pulse in pulsed "
              "mode?), so a network trained on it learns the identity")


if __name__ == "__main__":
    main()
