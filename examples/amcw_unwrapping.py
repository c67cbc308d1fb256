#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An AMCW unwrapping experiment with `import rsim`: two modulation frequencies, the wrapped
phase of each pixel from the phasors rsim returns, and a brute-force two-frequency unwrapping
of the light path written here, compared with the true path from the camera and the ground
truth rsim returns: which pixels unwrap to the wrong period, and how far multipath moves the rest.

    PYTHONPATH=build/python python3 examples/amcw_unwrapping.py scenes/tiny-room/scene.toml
"""
import argparse

import numpy as np

import rsim

C = 0.299792458  # m/ns


def unwrap(phases, freqs_mhz, max_path_m):
    """The light path (light -> surface -> sensor) whose phases at every frequency fit best."""
    periods = [C * 1e3 / f for f in freqs_mhz]  # path length of one modulation period, m
    best = np.full(phases[0].shape, np.inf)
    out = np.full(phases[0].shape, np.nan)
    for k in range(int(np.ceil(max_path_m / periods[0])) + 1):
        candidate = (phases[0] / (2 * np.pi) + k) * periods[0]
        cost = np.zeros_like(candidate)
        for ph, period in zip(phases[1:], periods[1:]):
            predicted = np.mod(candidate / period, 1.0) * 2 * np.pi
            cost += np.abs(np.angle(np.exp(1j * (predicted - ph))))
        better = cost < best
        best[better], out[better] = cost[better], candidate[better]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scene")
    ap.add_argument("--mhz", type=float, nargs=2, default=[60.0, 100.0])
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--set", action="append", default=[], help="scene overrides, as rsim run --set")
    a = ap.parse_args()

    scene = rsim.Scene.load(a.scene, set=a.set + ['sensor.mode="amcw"', f"sensor.modulation_mhz={list(a.mhz)}"])
    res = rsim.Simulator(scene, backend=a.backend).run()
    # Each frequency's wrapped phase of the pixel's light path, the emitted pulse's own phase
    # taken out (amcw/phase_rad; -arg(amcw/phasor) alone holds it for pulses wider than a bin).
    phases = list(res["amcw/phase_rad"][0])  # [F][H, W]
    # Each pixel's ray, its true surface point and true light path, from the camera rsim returns.
    H, W = phases[0].shape
    ys, xs = np.mgrid[0:H, 0:W]
    K, M = res["camera/K"], res["camera/world_from_camera"][0]
    rays = np.stack([(xs - K[0, 2]) / K[0, 0], (ys - K[1, 2]) / K[1, 1], np.ones_like(xs, dtype=float)], -1) @ M[:3, :3].T
    rays /= np.linalg.norm(rays, axis=-1, keepdims=True)
    eye, light = M[:3, 3], res["camera/light_position"][0]
    true_range = res["range_true_m"][0]
    surface = eye + true_range[..., None] * rays
    true_path = np.linalg.norm(surface - light, axis=-1) + np.linalg.norm(surface - eye, axis=-1)
    path = unwrap(phases, a.mhz, max_path_m=1.5 * np.nanmax(true_path))
    # The path light -> surface -> sensor as a range along the pixel's ray (the sensor-distance
    # formula of docs/MODEL.md section 6), so that it compares with rsim's own range_m.
    offset = eye - light
    my_range = (path**2 - offset @ offset) / (2 * (path + rays @ offset))
    error = my_range - true_range
    wrong = np.abs(path - true_path) > 0.25 * C * 1e3 / max(a.mhz)
    valid = np.isfinite(error)
    print(f"{a.mhz[0]:g} + {a.mhz[1]:g} MHz: {valid.sum()} pixels; {int((wrong & valid).sum())} unwrapped to a wrong "
          f"period; the rest: median |range error| {np.nanmedian(np.abs(error[valid & ~wrong])) * 1e3:.1f} mm "
          f"(rsim's own range_m, which unwraps the frequencies its own way: median |error| "
          f"{np.nanmedian(np.abs(res['range_m'][0] - true_range)) * 1e3:.1f} mm)")


if __name__ == "__main__":
    main()
