#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small training set for a depth network with `import rsim`: random poses in a room, each
sample's simulated range, ground truth and amplitude, written to one .npz.

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
    # Cameras inside the middle of a room about 4 x 3 x 2.5 m, looking at random points.
    eyes = rng.uniform([1.0, 1.0, 1.0], [3.0, 2.0, 1.6], size=(a.samples, 3))
    targets = rng.uniform([0.0, 0.0, 0.5], [4.0, 3.0, 2.0], size=(a.samples, 3))
    too_close = np.linalg.norm(targets - eyes, axis=1) < 0.5
    targets[too_close] += [1.0, 0.0, 0.0]
    scene = rsim.Scene.load(a.scene, set=a.set)
    res = rsim.Simulator(scene, backend=a.backend).run(np.hstack([eyes, targets]))
    np.savez_compressed(a.out, range=res["range_m"], range_true=res["range_true_m"],
                        amplitude=res["amplitude"], poses=np.hstack([eyes, targets]))
    valid = np.isfinite(res["range_m"]).mean()
    print(f"wrote {a.out}: {a.samples} samples of {res['range_m'].shape[1]} x {res['range_m'].shape[2]} "
          f"({valid:.0%} of pixels with a range)")


if __name__ == "__main__":
    main()
