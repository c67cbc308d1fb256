# SPDX-License-Identifier: MIT
"""The examples of examples/ show what they claim (issue 57, item 20): a training set whose input
differs from its ground truth, an orbit placed from the scene's own bounds, and an AMCW example
that compares ranges with ranges."""
import os
import subprocess
import sys

import numpy as np

EXAMPLES = os.path.join(os.environ["RSIM_SOURCE_DIR"], "examples")
SCENES = os.path.join(os.environ["RSIM_SOURCE_DIR"], "scenes")
FAST = ["--backend", "cpu", "--set", "simulation.samples=2", "--set", "simulation.timesteps=600"]


def example(name, *args, cwd):
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args], capture_output=True, text=True,
                          cwd=cwd, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_training_set_inputs_differ_from_their_ground_truth(tmp_path):
    out = example("training_set.py", os.path.join(SCENES, "tiny-room", "scene.toml"), "--samples", "3", "--out",
                  "t.npz", *FAST, cwd=tmp_path)
    data = np.load(tmp_path / "t.npz")
    both = np.isfinite(data["range"]) & np.isfinite(data["range_true"])
    assert np.median(np.abs(data["range"] - data["range_true"])[both]) > 0.005, out
    assert "range_direct" in data


def test_pose_sweep_orbits_inside_any_scene(tmp_path):
    # The corridor is not the tiny room: a centre written for the tiny room would put cameras in its walls.
    out = example("pose_sweep.py", os.path.join(SCENES, "corridor", "scene.toml"), "--poses", "3", "--out", "s.png",
                  *FAST, cwd=tmp_path)
    assert "3 poses" in out and "pixels with a range" in out


def test_amcw_unwrapping_compares_ranges_with_ranges(tmp_path):
    out = example("amcw_unwrapping.py", os.path.join(SCENES, "tiny-room", "scene.toml"), *FAST, cwd=tmp_path)
    assert "|range error|" in out and "path error" not in out
