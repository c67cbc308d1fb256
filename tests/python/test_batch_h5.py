# SPDX-License-Identifier: MIT
"""One naming for a pose's images.h5, a batch's batch.h5 and `import rsim`'s run() (issue 57,
item 19): every per-pixel array of images.h5 is in batch.h5 under its name with a leading pose
axis and its units, the cameras per pose, and the per-triangle and per-step arrays under run()'s
names."""
import os
import subprocess

import h5py
import numpy as np
import pytest

import rsim

SETTINGS = ["simulation.timesteps=300", "simulation.samples=2", "sensor.mode=amcw", "sensor_model.enabled=true"]
POSES = "name,x,y,z,look_x,look_y,look_z\nleft,1,1.2,1.5,4,1.5,1\nright,1,1.8,1.4,4,2,1\n"


@pytest.fixture(scope="module")
def batch(tmp_path_factory, rsim_binary, tiny_room):
    work = tmp_path_factory.mktemp("batch")
    (work / "poses.csv").write_text(POSES)
    subprocess.run([rsim_binary, "run", tiny_room, "--backend", "cpu", "-q", "--no-k-cache", "--poses",
                    str(work / "poses.csv"), "-o", str(work / "out")] + [a for s in SETTINGS for a in ("--set", s)],
                   check=True)
    return work / "out"


def datasets(f):
    names = []
    f.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset) else None)
    return names


def test_batch_h5_holds_every_images_h5_array_under_its_name(batch):
    with h5py.File(batch / "batch.h5") as b:
        assert list(b["pose_names"].asstr()[()]) == ["left", "right"]
        for p, pose in enumerate(["left", "right"]):
            with h5py.File(batch / pose / "images.h5") as one:
                for name in datasets(one):
                    if name in ("mesh_names", "material_names", "amcw/frequencies_mhz", "amcw/tap_phases_rad",
                                "camera/K", "camera/distortion"):
                        np.testing.assert_array_equal(b[name][()], one[name][()], err_msg=name)
                        continue
                    assert name in b, name
                    assert b[name].shape == (2,) + one[name].shape, name
                    np.testing.assert_array_equal(b[name][p], one[name][()], err_msg=name)
                    assert b[name].attrs.get("units") == one[name].attrs.get("units"), name
        assert b["range_m"].attrs["units"] == "m"
        assert "depth" not in b and "distance" not in b  # the old names are gone
        assert b["distance_m"].shape == (2, 566) and b["signal"].shape == (2, 300)


def test_batch_h5_names_are_run_names(batch, tiny_room):
    sim = rsim.Simulator(rsim.Scene.load(tiny_room, set=SETTINGS), backend="cpu", k_cache=False)
    res = sim.run([{"name": "left", "position": [1, 1.2, 1.5], "look_at": [4, 1.5, 1]},
                   {"name": "right", "position": [1, 1.8, 1.4], "look_at": [4, 2, 1]}])
    with h5py.File(batch / "batch.h5") as b:
        names = set(datasets(b))
        for key, value in res.items():
            if isinstance(value, np.ndarray):
                assert key in names, key
        for key in ("distance_m", "true_distance_m", "signal", "range_m", "camera/world_from_camera"):
            np.testing.assert_allclose(b[key][()], res[key], rtol=1e-6, atol=1e-6, err_msg=key)


def test_batch_h5_views_the_poses_files_wherever_the_folder_goes(batch, tmp_path):
    # The image arrays are views of POSE/images.h5 beside batch.h5: the folder moved whole (and
    # read from another working directory) still reads them; batch.h5 alone holds no copy.
    import shutil
    moved = tmp_path / "elsewhere" / "batch"
    shutil.copytree(batch, moved)
    cwd = os.getcwd()
    try:
        os.chdir(tmp_path)
        with h5py.File(moved / "batch.h5") as b, h5py.File(moved / "right" / "images.h5") as one:
            assert b["range_m"].is_virtual
            np.testing.assert_array_equal(b["range_m"][1], one["range_m"][()])
    finally:
        os.chdir(cwd)
    assert (batch / "batch.h5").stat().st_size < (batch / "left" / "images.h5").stat().st_size
