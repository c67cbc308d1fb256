# SPDX-License-Identifier: MIT
"""rsim from Python: time-of-flight simulation of a scene, numpy arrays in and out.

    import rsim
    scene = rsim.Scene.load("scenes/tiny-room/scene.toml", set=["simulation.samples=8"])
    sim = rsim.Simulator(scene, backend="cpu")
    res = sim.run(poses=[{"name": "a", "position": [0.25, 1.5, 1.5], "look_at": [4, 1.5, 1]}])
    res["range_m"][0]          # (H, W) estimated range of pose 0, row 0 at the top
    res["distance_m"][0]       # (N,) per-triangle distance by triangle id (triangles.csv)

The simulation is the one `rsim run` does (docs/MODEL.md): the same scene files, the same
errors (ValueError for bad input, values and types alike, RuntimeError for failures), K computed
once for all the poses of a call and kept in the K cache for the next. `read_results(dir)` reads
what `rsim run` wrote. rsim's log records go to `logging.getLogger("rsim")` when a call returns.
A Simulator runs one call at a time: calls from several threads wait for each other (each
releases the GIL while it runs).
"""
import csv
import os

from ._rsim import Scene as _Scene, Simulator as _Simulator, devices, set_log_level

__all__ = ["ArgumentTypeError", "Scene", "Simulator", "devices", "read_results", "set_log_level"]


class ArgumentTypeError(ValueError, TypeError):
    """An argument of the wrong type: a ValueError as rsim documents bad input, and a TypeError
    as Python code expects."""


def _require(name, value, types, expected):
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise ArgumentTypeError(f"{name}: expected {expected}, got {type(value).__name__} {value!r}")


def _overrides(set):
    """`set` as a list of "table.key=value" strings: one string is one override, not its letters."""
    if isinstance(set, (str, bytes)):
        set = [set]
    items = list(set)
    for item in items:
        if not isinstance(item, str):
            raise ArgumentTypeError(f"set: expected strings \"table.key=value\", got {type(item).__name__} {item!r}")
    return items


def _real_array(name, values, integer=False):
    """`values` as a numpy array of real numbers (integers when `integer`), or ValueError."""
    import numpy as np

    try:
        a = np.asarray(values)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{name}: expected an array of numbers ({e})") from None
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{name}: expected real numbers, got an array of dtype {a.dtype}")
    if integer and a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or not np.all(a == np.round(a)):
            raise ValueError(f"{name}: expected integer vertex indices, got non-integral numbers")
        a = a.astype(np.int64)
    return a


class Scene(_Scene):
    """A scene file (TOML, docs/MODEL.md section 9), read and checked.

    Scene.load(path, set=()) reads a scene file; Scene.from_arrays(vertices, faces, ...) takes
    triangles from arrays. Properties: triangles, timesteps, resolution (W, H), dt_ns, bounds
    ([[x0, y0, z0], [x1, y1, z1]], the triangles' bounding box in metres), camera (the scene's own
    pose: {"position", "look_at", "up"})."""

    @classmethod
    def load(cls, path, set=()):
        """Scene.load(path, set=()) -> Scene

        Reads `path`; `set` holds "table.key=value" overrides, as `rsim run --set` takes them
        (one string or a list of them)."""
        return cls(os.fspath(path), _overrides(set))

    @classmethod
    def from_arrays(cls, vertices, faces, reflectance=0.5, two_sided=False, base=None, set=()):
        """Scene.from_arrays(vertices, faces, reflectance=0.5, two_sided=False, base=None, set=()) -> Scene

        Triangles from numpy arrays: vertices [V, 3] (metres), faces [F, 3] (integer vertex
        indices, counter-clockwise seen from the front), reflectance one value or one per face.
        The simulation, light, sensor and output settings come from the scene file `base` (its
        meshes are not read) with the overrides `set`."""
        if base is None:
            raise ValueError("from_arrays: base= names the scene file whose settings (light, sensor, "
                             "simulation) apply, e.g. scenes/tiny-room/scene.toml")
        return cls(_real_array("from_arrays: vertices", vertices), _real_array("from_arrays: faces", faces, True),
                   _real_array("from_arrays: reflectance", reflectance), bool(two_sided), os.fspath(base),
                   _overrides(set))


class Simulator(_Simulator):
    """The pipeline over a scene.

    backend: "auto", "cpu" or "vulkan"; devices: as `rsim run --devices`; samples: S (None: the
    scene's); k_format: as `--kij` ("" for the default); k_cache: reuse K across calls and runs
    (k_cache_dir: where; None: the user's cache directory). K stays on the simulator's devices
    from one run() to the next ("k_kept" in the results says so). transport: None (the
    scene's simulation.transport), "radiosity", "paths" (MODEL.md section 10.2: camera paths
    per pixel, no K; per-triangle arrays are NaN) or "phasors" (section 11: AMCW cameras only,
    one complex solve per modulation frequency, every pose of a group at once; "signal" is NaN).

    run(poses=None, histories=False) simulates the scene's own camera, or each pose of `poses`: an array of shape
    [P, 6] (position, look_at) or [P, 9] (and up), or a list of dicts with "position",
    "look_at" and optionally "up" and "name". It returns a dict: "names"; "distance_m" and
    "true_distance_m" [P, N] by triangle id; "signal" [P, T] (the sensor signal s_fwd); with
    histories=True "B" and "Z" [P, N, T] by id; every array of images.h5 under its name there,
    with a leading pose axis: "range_m", "range_true_m", "range_error_m", "range_direct_m",
    "z_depth_m", "z_depth_true_m", "amplitude" (float32) and "triangle_id", "mesh_id",
    "material_id" (int32) [P, H, W], "normal" [P, H, W, 3]; in AMCW mode "amcw/phasor"
    [P, F, H, W, 2], "amcw/phase_rad", "amcw/amplitude", "amcw/phase_from_taps_rad",
    "amcw/range_from_taps_m" [P, F, H, W] and "amcw/taps" [P, F, H, W, K]; in gated mode
    "gated/gates" [P, G, H, W] and "gated/out_of_range" [P, H, W]; with the sensor model
    "noise/range_m", "noise/range_error_m", "noise/signal_electrons", "noise/ambient_electrons",
    "noise/electrons_per_unit" [P, H, W], in AMCW mode "noise/taps" [P, F, H, W, K] and
    "noise/range_from_taps_m" [P, F, H, W], in gated mode "noise/gates" [P, G, H, W]; with
    [output] transient = true "transient" [P, h, w, bins]; the cameras: "camera/K" [3, 3], "camera/distortion" [5],
    "camera/world_from_camera" [P, 4, 4] (OpenCV convention), "camera/position" and
    "camera/light_position" [P, 3]; "summary": each pose's summary.json as a dict; "backend",
    "devices", "k_from_cache", "k_kept". read_results() gives a results directory's arrays
    under the same names, without the pose axis. A single pose's arrays are the pipeline's own
    buffers (no copy). The GIL is released while it runs; calls from several threads on one
    simulator run one after the other.
    """

    def __init__(self, scene, backend="auto", devices="auto", samples=None, k_format="", k_cache=True,
                 k_cache_dir=None, transport=None):
        _require("scene", scene, (_Scene,), "an rsim.Scene (rsim.Scene.load(path))")
        _require("backend", backend, (str,), '"auto", "cpu" or "vulkan"')
        _require("devices", devices, (str,), 'a string: "auto", "all" or indices such as "0,1"')
        if samples is not None:
            _require("samples", samples, (int,), "an integer (or None: the scene's)")
        _require("k_format", k_format, (str,), 'a string such as "lut8-log" ("" for the default)')
        _require("k_cache", k_cache, (bool, int), "True or False")
        if k_cache_dir is not None:
            _require("k_cache_dir", k_cache_dir, (str, bytes, os.PathLike), "a folder's path (or None)")
            k_cache_dir = os.fspath(k_cache_dir)
        if transport is not None:
            _require("transport", transport, (str,), '"radiosity", "paths" or "phasors" (or None: the scene\'s)')
        super().__init__(scene, backend, devices, samples, k_format, bool(k_cache), k_cache_dir, transport)

    def run(self, poses=None, histories=False):
        """run(poses=None, histories=False) -> dict

        Simulates the scene's own camera (poses=None), or each pose of `poses`: an array or
        nested lists of shape [P, 6] (position, look_at) or [P, 9] (and up), or a list of dicts
        with "position", "look_at" and optionally "up" and "name". See the class's
        documentation for what it returns."""
        if poses is not None and not isinstance(poses, (list, tuple, dict)):
            poses = _real_array("poses", poses)
        return super().run(poses, bool(histories))


def read_results(path):
    """A results directory of `rsim run` as a dict of numpy arrays: triangles.csv's columns by
    name, every dataset of images.h5 (the images [H, W]; needs h5py) and summary.json."""
    import json

    import numpy as np

    out = {}
    with open(os.path.join(path, "summary.json")) as f:
        out["summary"] = json.load(f)
    with open(os.path.join(path, "triangles.csv")) as f:
        rows = list(csv.DictReader(f))
    if rows:
        for key in rows[0]:
            try:
                out[key] = np.array([float(r[key]) for r in rows])
            except ValueError:
                out[key] = [r[key] for r in rows]
    images = os.path.join(path, "images.h5")
    if os.path.exists(images):
        import h5py

        with h5py.File(images) as f:
            f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
        # The cameras as run() returns them (results written before they were float64 in images.h5).
        for name in [n for n in out if n.startswith("camera/")]:
            out[name] = np.asarray(out[name], dtype=np.float64)
    return out
