# SPDX-License-Identifier: MIT
"""`import rsim` (issue 16): what `rsim run` gives, bit for bit on the CPU backend; poses,
histories, AMCW and transient arrays; scenes from arrays; errors as Python exceptions with the
CLI's messages; no memory growth over repeated runs."""
import os
import subprocess

import h5py
import numpy as np
import pytest

import rsim
from shapes import box

SETTINGS = ["simulation.timesteps=300", "simulation.samples=4"]


@pytest.fixture(scope="module")
def scene(tiny_room):
    return rsim.Scene.load(tiny_room, set=SETTINGS)


@pytest.fixture(scope="module")
def cpu(scene):
    return rsim.Simulator(scene, backend="cpu", k_cache=False)


def test_same_results_as_the_cli(rsim_binary, tiny_room, scene, cpu, tmp_path):
    cli = tmp_path / "cli"
    subprocess.run([rsim_binary, "run", tiny_room, "--backend", "cpu", "--no-k-cache", "-q", "-o", str(cli)]
                   + [a for s in SETTINGS for a in ("--set", s)], check=True)
    expected = rsim.read_results(cli)
    assert scene.triangles == 566 and scene.resolution == (160, 120) and scene.timesteps == 300
    res = cpu.run()
    assert res["backend"] == "cpu" and res["names"] == ["pose"]
    assert res["distance_m"].shape == (1, 566) and res["range_m"].shape == (1, 120, 160)
    # Per-triangle distances by id: timeseries.h5 holds them in full (the CSV to 9 digits).
    with h5py.File(cli / "timeseries.h5") as f:
        np.testing.assert_array_equal(res["distance_m"][0], f["distance_m"][:])
    np.testing.assert_allclose(res["distance_m"][0], expected["distance_m"], rtol=1e-8)
    np.testing.assert_array_equal(res["range_m"][0], expected["range_m"])
    np.testing.assert_array_equal(res["range_true_m"][0], expected["range_true_m"])
    assert len(res["signal"][0]) == 300 and res["signal"][0].sum() > 0
    # Every array of images.h5, under its name there, and summary.json per pose.
    for key, value in expected.items():
        if key.startswith("camera/"):
            np.testing.assert_allclose(res[key][0] if key != "camera/K" else res[key], value, rtol=1e-6, atol=1e-6)
        elif isinstance(value, np.ndarray) and value.shape == (120, 160) or key == "normal":
            np.testing.assert_array_equal(res[key][0], value, err_msg=key)
    assert res["triangle_id"].dtype == np.int32 and res["normal"].shape == (1, 120, 160, 3)
    summary = res["summary"][0]
    assert summary["counts"] == expected["summary"]["counts"]
    assert summary["distance_error_m"] == expected["summary"]["distance_error_m"]
    assert summary["images"] == expected["summary"]["images"]
    # Histories on request, by id: they sum to triangles.csv's total energy.
    with_h = cpu.run(histories=True)
    assert with_h["B"].shape == (1, 566, 300) and with_h["Z"].shape == (1, 566, 300)
    np.testing.assert_allclose(with_h["B"][0].sum(axis=1, dtype=np.float64), expected["total_energy"],
                               rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("backend", ["cpu", "vulkan"])
def test_k_stays_for_the_next_call(scene, backend):
    if backend == "vulkan" and not any(d["backend"] == "vulkan" and d["usable"] for d in rsim.devices()):
        pytest.skip("no Vulkan device")
    sim = rsim.Simulator(scene, backend=backend, k_cache=False)
    first = sim.run()
    again = sim.run()
    assert not first["k_kept"] and again["k_kept"]
    np.testing.assert_array_equal(again["distance_m"], first["distance_m"])
    np.testing.assert_array_equal(again["range_m"], first["range_m"])


def test_poses_as_arrays_and_dicts(cpu):
    poses = np.array([[0.25, 1.52, 1.5, 4.0, 1.5, 1.0], [1.0, 1.0, 1.2, 3.0, 2.5, 1.0]])
    two = cpu.run(poses)
    assert two["names"] == ["pose0", "pose1"] and two["range_m"].shape == (2, 120, 160)
    named = cpu.run([{"name": "side", "position": [1.0, 1.0, 1.2], "look_at": [3.0, 2.5, 1.0]}])
    assert named["names"] == ["side"]
    np.testing.assert_array_equal(named["distance_m"][0], two["distance_m"][1])
    # One pose's images are the pipeline's own buffers (no copy); a batch's are stacked copies.
    # Both give the same values.
    for key in ("range_m", "range_true_m", "range_direct_m", "amplitude"):
        assert not named[key].flags.owndata and two[key].flags.owndata, key
        np.testing.assert_array_equal(named[key][0], two[key][1])


def test_amcw_and_transient_arrays(tiny_room):
    sim = rsim.Simulator(rsim.Scene.load(tiny_room, set=SETTINGS + ['sensor.mode="amcw"', "output.transient=true"]),
                         backend="cpu", k_cache=False)
    amcw = sim.run()
    # The same pose twice: stacked copies equal the single pose's own buffers.
    pose = [{"position": [0.25, 1.52, 1.5], "look_at": [4.0, 1.5, 1.0]}]
    one, twice = sim.run(pose), sim.run(pose * 2)
    for key in ("amcw/phasor", "amcw/taps", "amcw/phase_rad", "amcw/phase_from_taps_rad", "transient"):
        assert twice[key].shape == (2,) + one[key].shape[1:], key
        np.testing.assert_array_equal(twice[key][1], one[key][0])
    tr = amcw["transient"][0].astype(np.float64)
    w = 2 * np.pi * 20e-3 * 0.1
    phasor = (tr * np.exp(-1j * w * np.arange(tr.shape[-1]))).sum(axis=-1)
    got = amcw["amcw/phasor"][0, 0, ..., 0] + 1j * amcw["amcw/phasor"][0, 0, ..., 1]
    assert np.abs(phasor - got).max() <= 1e-5 * np.abs(phasor).max()
    assert amcw["amcw/taps"].shape == (1, 1, 120, 160, 4)


def test_sensor_model_arrays_as_images_h5(rsim_binary, tiny_room, tmp_path):
    settings = SETTINGS + ["sensor_model.enabled=true", "sensor_model.seed=7"]
    cli = tmp_path / "cli"
    subprocess.run([rsim_binary, "run", tiny_room, "--backend", "cpu", "--no-k-cache", "-q", "-o", str(cli)]
                   + [a for s in settings for a in ("--set", s)], check=True)
    expected = rsim.read_results(cli)
    res = rsim.Simulator(rsim.Scene.load(tiny_room, set=settings), backend="cpu", k_cache=False).run()
    keys = [k for k in expected if k.startswith("noise/")]
    assert sorted(keys) == ["noise/ambient_electrons", "noise/electrons_per_unit", "noise/range_error_m",
                            "noise/range_m", "noise/signal_electrons"]
    for key in keys:
        np.testing.assert_array_equal(res[key][0], expected[key], err_msg=key)


def test_scene_from_arrays(tiny_room):
    corners, faces = box()
    scene = rsim.Scene.from_arrays(corners, faces, reflectance=0.6, base=tiny_room,
                                   set=SETTINGS + ["simulation.max_edge_m=0.5"])
    assert scene.triangles > 12  # subdivided
    res = rsim.Simulator(scene, backend="cpu", k_cache=False).run(np.array([[2.0, 1.5, 1.2, 4.0, 1.0, 1.0]]))
    assert not np.isnan(res["range_true_m"][0]).any()  # every pixel sees a wall
    # The direct light alone is a pure delay: its estimate is the true range.
    direct = res["range_direct_m"][0]
    assert np.nanmax(np.abs(direct - res["range_true_m"][0])) < 1e-3 and np.isfinite(direct).mean() > 0.9


def test_vulkan_matches_the_cpu(scene, cpu):
    found = rsim.devices()
    assert found[-1]["backend"] == "cpu" and found[-1]["threads"] >= 1
    assert all(d["bvh"] == d["usable"] for d in found if d["backend"] == "vulkan")
    if not any(d["backend"] == "vulkan" and d["usable"] for d in found):
        pytest.skip("no usable Vulkan device")
    gpu = rsim.Simulator(scene, backend="vulkan", k_cache=False).run()
    assert gpu["backend"] == "vulkan"
    a, b = cpu.run()["range_m"][0], gpu["range_m"][0]
    differ = (np.isnan(a) != np.isnan(b)) | (np.abs(np.nan_to_num(a) - np.nan_to_num(b)) > 1e-3)
    assert differ.mean() <= 1e-3, f"{differ.sum()} pixels differ by more than 1 mm"


@pytest.mark.parametrize("call, kind, text", [
    (lambda t, s: rsim.Scene.load(os.path.join(os.path.dirname(t), "missing.toml")), ValueError, "scene file not found"),
    (lambda t, s: rsim.Scene.load(t, set=["simulation.samples=0"]), ValueError, "samples"),
    (lambda t, s: rsim.Scene.load(t, set=["samples"]), ValueError, "expected KEY=VALUE"),
    (lambda t, s: s.run(np.array([[0, 0, 0, np.nan, 0, 0]])), ValueError, "not a finite number"),
    (lambda t, s: s.run(np.zeros((2, 4))), ValueError, "shape [P, 6]"),
    (lambda t, s: s.run([{"position": [0, 0, 0]}]), ValueError, "needs \"position\" and \"look_at\""),
    (lambda t, s: rsim.set_log_level("loud"), ValueError, "unknown level"),
    (lambda t, s: rsim.Scene.from_arrays(box()[0], box()[1] + 8, base=t), ValueError, "not in [0, 8)"),
    (lambda t, s: rsim.Scene.from_arrays(box()[0][:, :2], box()[1], base=t), ValueError, "shape [V, 3]"),
    (lambda t, s: rsim.Scene.from_arrays(box()[0], box()[1], 1.5, base=t), ValueError, "outside [0, 1]"),
    (lambda t, s: rsim.Scene.from_arrays(box()[0] * np.nan, box()[1], base=t), ValueError, "not finite"),
    (lambda t, s: rsim.Scene.from_arrays(*box()), ValueError, "base="),
    (lambda t, s: rsim.Simulator(rsim.Scene.load(t), backend="gpu"), ValueError, "gpu"),
    # Every echo peaks after the window: the same error as rsim run's (pipeline/run_checks.h).
    (lambda t, s: rsim.Simulator(rsim.Scene.from_arrays(*box(), base=t, set=["simulation.timesteps=60"]),
                                 backend="cpu", k_cache=False).run(), ValueError, "no triangle got a distance"),
])
def test_errors_carry_the_cli_messages(tiny_room, cpu, call, kind, text):
    with pytest.raises(kind) as e:
        call(tiny_room, cpu)
    assert text in str(e.value)


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_repeated_runs_do_not_grow_memory(scene):
    sim = rsim.Simulator(scene, backend="cpu")  # K from the cache after the first run
    sim.run()
    first = rss_bytes()
    for _ in range(100):
        sim.run()
    assert rss_bytes() <= first * 1.05, f"RSS grew from {first} to {rss_bytes()} bytes over 100 runs"


def test_log_records_reach_python_logging(tiny_room, caplog):
    # 300 steps cut the tiny room's light off: rsim warns, through the "rsim" logger.
    sim = rsim.Simulator(rsim.Scene.load(tiny_room, set=SETTINGS), backend="cpu", k_cache=False)
    with caplog.at_level("INFO", logger="rsim"):
        sim.run()
    warnings = [r for r in caplog.records if r.name == "rsim" and r.levelname == "WARNING"]
    assert any("the time window" in r.getMessage() for r in warnings)
    assert any(r.levelname == "INFO" and "visibility" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("backend", ["cpu", "vulkan"])
def test_ctrl_c_stops_a_run_and_the_simulator_goes_on(tiny_room, backend, caplog):
    import signal
    import threading
    if backend == "vulkan" and not any(d["backend"] == "vulkan" and d["usable"] for d in rsim.devices()):
        pytest.skip("no Vulkan device")
    # Seconds of work on 2 cores (visibility at S = 64 on the CPU, then 10,000 timesteps; on
    # lavapipe, where the visibility is one dispatch that a stop cannot cut short, S = 16).
    samples = 64 if backend == "cpu" else 16
    long_scene = rsim.Scene.load(tiny_room, set=[f"simulation.samples={samples}", "simulation.timesteps=10000"])
    sim = rsim.Simulator(long_scene, backend=backend, k_cache=False)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    # A run that finishes returns its results: KeyboardInterrupt proves the stop was seen while
    # it worked. Where it stopped proves it stopped early, against the work it would have done
    # (no clock: a loaded machine is slower, not wrong).
    with caplog.at_level("INFO", logger="rsim"), pytest.raises(KeyboardInterrupt):
        sim.run()
    timer.cancel()
    stops = [r.getMessage() for r in caplog.records if r.name == "rsim" and ": stopped after " in r.getMessage()]
    assert stops, "no phase said where it stopped"
    done, total = (int(x) for x in stops[-1].split(": stopped after ")[1].split(" ")[0:3:2])
    assert done < total, stops[-1]
    # Python's own Ctrl-C handling is back, and the simulator still runs.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    short = rsim.Simulator(rsim.Scene.load(tiny_room, set=SETTINGS), backend=backend, k_cache=False).run()
    assert short["range_m"].shape == (1, 120, 160)

def test_paths_transport_gives_images_and_no_per_triangle_results(tiny_room):
    with pytest.raises(ValueError, match="pixel_filter"):  # eight rays through one point
        rsim.Scene.load(tiny_room, set=SETTINGS + ["sensor.pixel_samples=8", 'sensor.pixel_filter="centre"'])
    scene = rsim.Scene.load(tiny_room, set=SETTINGS + ["sensor.resolution=[32, 24]"])
    with pytest.raises(ValueError, match='expected "radiosity", "paths" or "phasors"'):
        rsim.Simulator(scene, backend="cpu", transport="path")
    sim = rsim.Simulator(scene, backend="cpu", transport="paths")
    with pytest.raises(ValueError, match="computes no B or Z"):
        sim.run(histories=True)
    out = sim.run([{"position": [0.25, 1.52, 1.5], "look_at": [4.0, 1.5, 1.0]}] * 2)
    assert out["range_m"].shape == (2, 24, 32)
    assert np.isfinite(out["range_m"]).mean() > 0.9
    # The same sampler for the same pose: the two poses' images are equal.
    np.testing.assert_array_equal(out["range_m"][0], out["range_m"][1])
    assert np.isnan(out["distance_m"]).all()
    assert out["summary"][0]["transport"] == "paths"
    assert out["summary"][0]["settings"]["sensor"]["pixel_samples"] == 64


def test_phasors_transport_solves_a_batch_of_amcw_poses(tiny_room):
    with pytest.raises(ValueError, match="sensor.*phasors"):  # the tiny room's camera is pulsed
        rsim.Simulator(rsim.Scene.load(tiny_room, set=SETTINGS), backend="cpu", transport="phasors")
    scene = rsim.Scene.load(tiny_room, set=SETTINGS + ['sensor.mode="amcw"', "sensor.resolution=[32, 24]"])
    sim = rsim.Simulator(scene, backend="cpu", transport="phasors", k_cache=False)
    with pytest.raises(ValueError, match="computes no B or Z"):
        sim.run(histories=True)
    poses = [{"position": [0.25, 1.52, 1.5], "look_at": [4.0, 1.5, 1.0]},
             {"position": [0.5, 1.0, 1.2], "look_at": [3.0, 2.0, 0.8]}]
    out = sim.run(poses)
    assert out["amcw/phasor"].shape == (2, 1, 24, 32, 2)
    assert np.isfinite(out["range_m"]).mean() > 0.9
    assert np.isnan(out["signal"]).all()  # no time series
    summary = out["summary"][0]
    assert summary["transport"] == "phasors"
    assert summary["phasors"]["converged"] and summary["phasors"]["group_poses"] == 2
    # A pose solved in a group gets what it gets alone.
    alone = sim.run(poses[1:])
    np.testing.assert_array_equal(out["amcw/phasor"][1], alone["amcw/phasor"][0])
