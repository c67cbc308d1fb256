# SPDX-License-Identifier: MIT
"""rsim from Python: time-of-flight simulation of a scene, numpy arrays in and out.

    import rsim
    scene = rsim.Scene.load("scenes/tiny-room/scene.toml", set=["simulation.samples=8"])
    sim = rsim.Simulator(scene, backend="cpu")
    res = sim.run(poses=[{"name": "a", "position": [0.25, 1.5, 1.5], "look_at": [4, 1.5, 1]}])
    res["range_m"][0]          # (H, W) estimated range of pose 0, row 0 at the top
    res["distance_m"][0]       # (N,) per-triangle distance by triangle id (triangles.csv)

The simulation is the one `rsim run` does (docs/MODEL.md): the same scene files, the same
errors (ValueError for bad input, RuntimeError for failures), K computed once for all the poses
of a call and kept in the K cache for the next. `read_results(dir)` reads what `rsim run` wrote.
rsim's log records go to `logging.getLogger("rsim")` when a call returns.
"""
import csv
import os

from ._rsim import Scene as _Scene, Simulator as _Simulator, devices, set_log_level

__all__ = ["Scene", "Simulator", "devices", "read_results", "set_log_level"]


class Scene(_Scene):
    """A scene file (TOML, docs/MODEL.md section 9), read and checked."""

    @classmethod
    def load(cls, path, set=()):
        """Reads `path`; `set` holds "table.key=value" overrides, as `rsim run --set` takes them."""
        return cls(os.fspath(path), list(set))

    @classmethod
    def from_arrays(cls, vertices, faces, reflectance=0.5, two_sided=False, base=None, set=()):
        """Triangles from numpy arrays: vertices [V, 3] (metres), faces [F, 3] (vertex indices,
        counter-clockwise seen from the front), reflectance one value or one per face. The
        simulation, light, sensor and output settings come from the scene file `base` (its
        meshes are not read) with the overrides `set`."""
        if base is None:
            raise ValueError("from_arrays: base= names the scene file whose settings (light, sensor, "
                             "simulation) apply, e.g. scenes/tiny-room/scene.toml")
        return cls(vertices, faces, reflectance, bool(two_sided), os.fspath(base), list(set))


class Simulator(_Simulator):
    """The pipeline over a scene.

    backend: "auto", "cpu" or "vulkan"; devices: as `rsim run --devices`; samples: S (None: the
    scene's); k_format: as `--kij` ("" for the default); k_cache: reuse K across calls and runs
    (k_cache_dir: where; None: the user's cache directory). K stays on the simulator's devices
    from one run() to the next ("k_kept" in the results says so).

    run(poses=None, histories=False) simulates the scene's own camera, or each pose of `poses`: an array of shape
    [P, 6] (position, look_at) or [P, 9] (and up), or a list of dicts with "position",
    "look_at" and optionally "up" and "name". It returns a dict: "names"; "distance_m" and
    "true_distance_m" [P, N] by triangle id; "signal" [P, T] (the sensor signal s_fwd); with
    histories=True "B" and "Z" [P, N, T] by id; every array of images.h5 under its name there,
    with a leading pose axis: "range_m", "range_true_m", "range_error_m", "range_direct_m",
    "z_depth_m", "z_depth_true_m", "amplitude" (float32) and "triangle_id", "mesh_id",
    "material_id" (int32) [P, H, W], "normal" [P, H, W, 3]; in AMCW mode "amcw/phasor"
    [P, F, H, W, 2], "amcw/phase_rad", "amcw/amplitude", "amcw/phase_from_taps_rad" [P, F, H, W]
    and "amcw/taps" [P, F, H, W, K]; with the sensor model "noise/range_m",
    "noise/range_error_m", "noise/signal_electrons", "noise/ambient_electrons"; with
    [output] transient = true "transient" [P, h, w, bins]; the cameras: "camera/K" [3, 3],
    "camera/world_from_camera" [P, 4, 4] (OpenCV convention), "camera/position" and
    "camera/light_position" [P, 3]; "summary": each pose's summary.json as a dict; "backend",
    "devices", "k_from_cache", "k_kept". read_results() gives a results directory's arrays
    under the same names, without the pose axis. A single pose's arrays are the pipeline's own
    buffers (no copy). The GIL is released while it runs.
    """


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
    return out
