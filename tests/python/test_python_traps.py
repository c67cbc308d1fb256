# SPDX-License-Identifier: MIT
"""`import rsim` as a Python user meets it (issue 57, items 2, 3, 10, 18): threads on one
simulator, a scene that would overflow the parser's stack, arguments of every wrong kind as
ValueError with a message, and what repr, help and the type stub say."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import rsim
from shapes import box

SETTINGS = ["simulation.timesteps=200", "simulation.samples=2"]


@pytest.fixture(scope="module")
def scene(tiny_room):
    return rsim.Scene.load(tiny_room, set=SETTINGS)


@pytest.fixture(scope="module")
def cpu(scene):
    return rsim.Simulator(scene, backend="cpu", k_cache=False)


def test_runs_from_several_threads_on_one_simulator_wait_for_each_other(scene):
    # Each run releases the GIL; one simulator used to crash (SIGSEGV, an Embree assertion) in 6
    # of 7 tries with several threads. A child process, so that a crash fails this test only.
    code = f"""
import sys, threading, numpy as np
import rsim
scene = rsim.Scene.load({os.path.join(os.environ['RSIM_SOURCE_DIR'], 'scenes', 'tiny-room', 'scene.toml')!r},
                        set={SETTINGS!r})
sim = rsim.Simulator(scene, backend="cpu", k_cache=False)
alone = sim.run()["range_m"]
results, errors = [], []
def go():
    try:
        results.append(sim.run()["range_m"])
    except Exception as e:
        errors.append(repr(e))
for attempt in range(3):
    threads = [threading.Thread(target=go) for _ in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
assert not errors, errors
assert len(results) == 12
for r in results:
    np.testing.assert_array_equal(r, alone)
# Two simulators on one scene, at once: the scene's triangles are prepared once.
other = rsim.Simulator(scene, backend="cpu", k_cache=False)
both = [threading.Thread(target=lambda s=s: results.append(s.run()["range_m"])) for s in (sim, other)]
[t.start() for t in both]
[t.join() for t in both]
np.testing.assert_array_equal(results[-1], alone)
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().endswith("ok")


def test_a_dotted_key_40000_deep_is_a_value_error_not_a_crash(tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("a" + ".b" * 40000 + " = 1\n")
    code = f"import rsim\ntry:\n    rsim.Scene.load({str(deep)!r})\nexcept ValueError as e:\n    print('ValueError', e)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ValueError" in done.stdout and "nests more than 128 levels" in done.stdout


def test_poses_as_nested_lists_are_an_array(cpu):
    rows = [[0.25, 1.52, 1.5, 4.0, 1.5, 1.0]]
    as_list = cpu.run(rows)
    as_array = cpu.run(np.array(rows))
    np.testing.assert_array_equal(as_list["range_m"], as_array["range_m"])


def test_one_override_string_is_one_override(tiny_room):
    s = rsim.Scene.load(tiny_room, set="simulation.timesteps=250")
    assert s.timesteps == 250


@pytest.mark.parametrize("call, text", [
    (lambda t, s: s.run([{"position": [0.2, 1.5, 1.5], "look_at": [4, 1.5, 1], "lookat": [1, 1, 1]}]),
     'unknown key "lookat" (did you mean "look_at"?)'),
    (lambda t, s: s.run([{"position": "here", "look_at": [4, 1.5, 1]}]), "position: expected 3 numbers"),
    (lambda t, s: s.run([{"name": 3, "position": [0.2, 1.5, 1.5], "look_at": [4, 1.5, 1]}]), "name must be a string"),
    (lambda t, s: s.run({"position": [0.2, 1.5, 1.5], "look_at": [4, 1.5, 1]}), "wrap it in a list"),
    (lambda t, s: s.run(np.array([[0.25, 1.52, 1.5, 4.0, 1.5, 1.0]]) * (1 + 1j)), "complex"),
    (lambda t, s: s.run("poses.csv"), "expected real numbers"),
    (lambda t, s: s.run([[0.25, 1.52, 1.5], [4.0, 1.5]]), "rows of numbers"),
    (lambda t, s: rsim.Scene.load(t, set=[3]), "expected strings"),
    (lambda t, s: rsim.Simulator(rsim.Scene.load(t), backend="cpu", devices="0"), "only the Vulkan backend"),
    (lambda t, s: rsim.Simulator(rsim.Scene.load(t), samples=1.5), "samples: expected an integer"),
    (lambda t, s: rsim.Simulator("scene.toml"), "scene: expected an rsim.Scene"),
    (lambda t, s: rsim.Scene.from_arrays(box()[0], box()[1] + 0.5, base=t), "integer vertex indices"),
    (lambda t, s: rsim.Scene.from_arrays(box()[0] * 1e30, box()[1], base=t), "coordinates must be within"),
    (lambda t, s: rsim.Scene.from_arrays(box()[0] * 1j, box()[1], base=t), "expected real numbers"),
])
def test_bad_arguments_are_value_errors_with_a_message(tiny_room, cpu, call, text):
    with pytest.raises(ValueError) as e:
        call(tiny_room, cpu)
    assert text in str(e.value)


def test_wrong_types_are_also_type_errors(tiny_room):
    with pytest.raises(TypeError):
        rsim.Simulator(rsim.Scene.load(tiny_room), backend=3)


def test_repr_help_and_the_type_stub_say_what_things_are(tiny_room, scene, cpu):
    assert "rsim.Scene" in repr(scene) and "160x120" in repr(scene) and "T = 200" in repr(scene)
    assert "backend=cpu" in repr(cpu)
    assert "run(poses=None, histories=False)" in rsim.Simulator.run.__doc__
    assert "Scene.load(path, set=())" in rsim.Scene.load.__doc__
    stub = os.path.join(os.path.dirname(rsim.__file__), "__init__.pyi")
    assert os.path.exists(stub)
    text = open(stub).read()
    assert "def run(self, poses" in text and "def load(cls, path" in text


def test_camera_matrices_are_float64_from_run_and_from_read_results(tiny_room, rsim_binary, cpu, tmp_path):
    res = cpu.run()
    subprocess.run([rsim_binary, "run", tiny_room, "--backend", "cpu", "-q", "--no-k-cache", "-o", str(tmp_path / "r")]
                   + [a for s in SETTINGS for a in ("--set", s)], check=True)
    read = rsim.read_results(tmp_path / "r")
    for key in ("camera/K", "camera/world_from_camera", "camera/position", "camera/light_position"):
        assert res[key].dtype == np.float64 and read[key].dtype == np.float64, key
    np.testing.assert_allclose(read["camera/K"], res["camera/K"])


def test_many_poses_kept_for_python_are_counted_before_the_work(tiny_room):
    # Each pose's arrays stay until the call returns: a call whose poses cannot all be held is
    # refused at once, with the numbers (here under a 1.5 GiB address-space limit).
    code = f"""
import resource, numpy as np, rsim
resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
scene = rsim.Scene.load({tiny_room!r}, set=["simulation.timesteps=200", "simulation.samples=2",
                                              "sensor.resolution=[640, 480]"])
sim = rsim.Simulator(scene, backend="cpu", k_cache=False)
poses = np.tile([0.25, 1.52, 1.5, 4.0, 1.5, 1.0], (400, 1)) + np.linspace(0, 0.5, 400)[:, None] * [1, 0, 0, 0, 0, 0]
try:
    sim.run(poses)
    print("ran")
except ValueError as e:
    print("refused:", e)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert "refused:" in done.stdout, done.stdout + done.stderr[-2000:]
    assert "400 poses" in done.stdout
