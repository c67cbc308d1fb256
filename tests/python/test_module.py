# SPDX-License-Identifier: MIT
"""`import rsim` from the build tree (ctest sets PYTHONPATH): the module gives what `rsim run`
gives, bit for bit on the CPU backend, and its errors are Python exceptions with the CLI's
messages.

    PYTHONPATH=build/python python3 tests/python/test_module.py RSIM_BINARY SOURCE_DIR WORK_DIR
"""
import os
import shutil
import subprocess
import sys

import numpy as np

import rsim


def expect_error(kind, text, call):
    try:
        call()
    except kind as e:
        assert text in str(e), f"{kind.__name__} without {text!r}: {e}"
        return
    raise AssertionError(f"no {kind.__name__} ({text!r})")


def main():
    binary, source, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "cache")
    scene_file = os.path.join(source, "scenes", "tiny-room", "scene.toml")
    settings = ["simulation.timesteps=300", "simulation.samples=4"]

    # The same run through the CLI.
    cli = os.path.join(work, "cli")
    subprocess.run([binary, "run", scene_file, "--backend", "cpu", "--no-k-cache", "-q", "-o", cli]
                   + [a for s in settings for a in ("--set", s)], check=True)
    expected = rsim.read_results(cli)

    scene = rsim.Scene.load(scene_file, set=settings)
    assert scene.triangles == 566 and scene.resolution == (160, 120) and scene.timesteps == 300
    sim = rsim.Simulator(scene, backend="cpu", k_cache=False)
    res = sim.run()
    assert res["backend"] == "cpu" and res["names"] == ["pose"]
    assert res["distance_m"].shape == (1, 566) and res["range_m"].shape == (1, 120, 160)
    # Bit for bit the CLI's: per-triangle distances by id (timeseries.h5 holds them in full; the
    # CSV to 9 digits), and the depth image.
    import h5py
    with h5py.File(os.path.join(cli, "timeseries.h5")) as f:
        np.testing.assert_array_equal(res["distance_m"][0], f["distance_m"][:])
    np.testing.assert_allclose(res["distance_m"][0], expected["distance_m"], rtol=1e-8)
    np.testing.assert_array_equal(res["range_m"][0], expected["range_m"])
    np.testing.assert_array_equal(res["range_true_m"][0], expected["range_true_m"])
    assert len(res["signal"][0]) == 300 and res["signal"][0].sum() > 0

    # Poses as an array and as dicts; the scene's own pose among them gives the same result.
    poses = np.array([[0.25, 1.52, 1.5, 4.0, 1.5, 1.0], [1.0, 1.0, 1.2, 3.0, 2.5, 1.0]])
    two = sim.run(poses)
    assert two["names"] == ["pose0", "pose1"] and two["range_m"].shape == (2, 120, 160)
    named = sim.run([{"name": "side", "position": [1.0, 1.0, 1.2], "look_at": [3.0, 2.5, 1.0]}])
    assert named["names"] == ["side"]
    np.testing.assert_array_equal(named["distance_m"][0], two["distance_m"][1])

    # Histories on request, by id: they sum to triangles.csv's total_energy.
    with_h = sim.run(histories=True)
    assert with_h["B"].shape == (1, 566, 300) and with_h["Z"].shape == (1, 566, 300)
    np.testing.assert_allclose(with_h["B"][0].sum(axis=1, dtype=np.float64), expected["total_energy"], rtol=1e-6, atol=1e-12)
    # AMCW raw data and transients when the scene asks for them; the phasor is the transient's.
    amcw = rsim.Simulator(rsim.Scene.load(scene_file, set=settings + ['sensor.mode="amcw"', "output.transient=true"]),
                          backend="cpu", k_cache=False).run()
    tr = amcw["transient"][0].astype(np.float64)
    w = 2 * np.pi * 20e-3 * 0.1
    phasor = (tr * np.exp(-1j * w * np.arange(tr.shape[-1]))).sum(axis=-1)
    got = amcw["phasor"][0, 0, ..., 0] + 1j * amcw["phasor"][0, 0, ..., 1]
    assert np.abs(phasor - got).max() <= 1e-5 * np.abs(phasor).max()
    assert amcw["taps"].shape == (1, 1, 120, 160, 4)

    # A scene from arrays: a closed 4 x 3 x 2.5 m box seen from inside, the tiny room's
    # settings. Its range image must be the box's true range where the estimator is exact
    # (the direct light alone) and every pixel must see a wall.
    X, Y, Z = 4.0, 3.0, 2.5
    corners = np.array([[x, y, z] for x in (0, X) for y in (0, Y) for z in (0, Z)])
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]  # wound outwards
    faces = np.array([t for a, b, c, d in quads for t in ((a, c, b), (a, d, c))])  # reversed: inwards
    box = rsim.Scene.from_arrays(corners, faces, reflectance=0.6, base=scene_file,
                                 set=settings + ["simulation.max_edge_m=0.5"])
    assert box.triangles > 12  # subdivided
    boxed = rsim.Simulator(box, backend="cpu", k_cache=False).run(np.array([[2.0, 1.5, 1.2, 4.0, 1.0, 1.0]]))
    assert not np.isnan(boxed["range_true_m"][0]).any()
    direct = boxed["range_direct_m"][0]
    assert np.nanmax(np.abs(direct - boxed["range_true_m"][0])) < 1e-3 and np.isfinite(direct).mean() > 0.9
    expect_error(ValueError, "not in [0, 8)", lambda: rsim.Scene.from_arrays(corners, faces + 8, base=scene_file))
    expect_error(ValueError, "shape [V, 3]", lambda: rsim.Scene.from_arrays(corners[:, :2], faces, base=scene_file))
    expect_error(ValueError, "outside [0, 1]", lambda: rsim.Scene.from_arrays(corners, faces, 1.5, base=scene_file))
    nan_corners = corners.astype(float)
    nan_corners[3, 1] = np.nan
    expect_error(ValueError, "not finite", lambda: rsim.Scene.from_arrays(nan_corners, faces, base=scene_file))
    expect_error(ValueError, "base=", lambda: rsim.Scene.from_arrays(corners, faces))

    # The devices: the CPU backend's always, last.
    found = rsim.devices()
    assert found[-1]["backend"] == "cpu" and found[-1]["threads"] >= 1
    assert all(d["backend"] in ("vulkan", "cpu") for d in found)

    # The Vulkan backend through the module (lavapipe in CI), against the CPU's image.
    if any(d["backend"] == "vulkan" and d["usable"] and (d["ray_query"] or d["ray_tracing_pipeline"]) for d in found):
        gpu = rsim.Simulator(scene, backend="vulkan", k_cache=False).run()
        assert gpu["backend"] == "vulkan"
        a, b = res["range_m"][0], gpu["range_m"][0]
        differ = (np.isnan(a) != np.isnan(b)) | (np.abs(np.nan_to_num(a) - np.nan_to_num(b)) > 1e-3)
        assert differ.mean() <= 1e-3, f"{differ.sum()} pixels differ by more than 1 mm"
    else:
        print("no Vulkan device with ray tracing: the Vulkan part is skipped")

    # Bad input: ValueError with the CLI's message, before any work.
    expect_error(ValueError, "scene file not found", lambda: rsim.Scene.load(os.path.join(work, "missing.toml")))
    expect_error(ValueError, "samples", lambda: rsim.Scene.load(scene_file, set=["simulation.samples=0"]))
    expect_error(ValueError, "expected KEY=VALUE", lambda: rsim.Scene.load(scene_file, set=["samples"]))
    expect_error(ValueError, "not a finite number", lambda: sim.run(np.array([[0, 0, 0, np.nan, 0, 0]])))
    expect_error(ValueError, "shape [P, 6]", lambda: sim.run(np.zeros((2, 4))))
    expect_error(ValueError, "needs \"position\" and \"look_at\"", lambda: sim.run([{"position": [0, 0, 0]}]))
    expect_error(ValueError, "unknown level", lambda: rsim.set_log_level("loud"))
    print("import rsim: all checks passed")


if __name__ == "__main__":
    main()
