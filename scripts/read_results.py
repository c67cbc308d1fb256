#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reading an rsim results directory in Python (README.md, "Reading results in Python"): the
transient B_i(t) of the brightest triangle the sensor sees, the depth image, and each
triangle's AMCW phase at a modulation frequency computed from its transient, with numpy, h5py
and matplotlib. Writes one figure; prints what it read.

    scripts/read_results.py results/tiny-room --mhz 20 --out overview.png

(Write the figure outside the results directory: rsim replaces only directories that hold
nothing but its own files.)
"""
import argparse
import csv
import os

import h5py
import numpy as np

C_M_PER_NS = 0.299792458


def read_pfm(path):
    """A grayscale PFM as a (height, width) float32 array, row 0 at the top (PFM stores the
    bottom row first; a negative scale means little-endian)."""
    with open(path, "rb") as f:
        if f.readline().strip() != b"Pf":
            raise SystemExit(f"{path}: not a grayscale PFM")
        width, height = map(int, f.readline().split())
        scale = float(f.readline())
        data = np.fromfile(f, dtype="<f4" if scale < 0 else ">f4", count=width * height)
    return data.reshape(height, width)[::-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="an rsim results directory (with timeseries.h5)")
    ap.add_argument("--mhz", type=float, default=20.0, help="modulation frequency of the phase map")
    ap.add_argument("--out", default="overview.png", help="figure to write")
    a = ap.parse_args()

    with h5py.File(os.path.join(a.results, "timeseries.h5")) as f:
        B = f["B"][:]                          # (N, T): radiosity of triangle id over time bins
        dt = float(f.attrs["dt_ns"])           # ns per bin
        t_sensor = f["direct/t_sensor_steps"][:]  # delay from each triangle to the sensor, bins
        importance = f["direct/importance"][:]    # > 0: the sensor sees the triangle
        units = f["B"].attrs["units"]
    rows = list(csv.DictReader(open(os.path.join(a.results, "triangles.csv"))))
    depth = read_pfm(os.path.join(a.results, "depth.pfm"))
    # images.h5: the same image, row 0 at the top, beside its ground truth.
    with h5py.File(os.path.join(a.results, "images.h5")) as im:
        range_m = im["range_m"][:]                   # (H, W) estimated range along each pixel's ray
        multipath = range_m - im["range_direct_m"][:]  # what the indirect light moves it by
        own = im["range_direct_m"][:] - im["range_true_m"][:]  # the estimator's own error
    assert np.array_equal(np.isnan(depth), np.isnan(range_m)) and np.allclose(depth, range_m, equal_nan=True)

    seen = importance > 0
    brightest = int(np.argmax(np.where(seen, B.sum(axis=1), -1.0)))
    t_ns = np.arange(B.shape[1]) * dt
    # The AMCW phasor of each triangle's signal as the camera sees it (MODEL.md §6): the
    # transient delayed by the sensor delay, against exp(-2 pi j f t).
    omega = 2 * np.pi * a.mhz * 1e-3 * dt                       # radians per bin
    phasor = (B * np.exp(-1j * omega * np.arange(B.shape[1]))).sum(axis=1)
    phase = np.mod(-np.angle(phasor) + omega * t_sensor, 2 * np.pi)
    phase[~seen | (B.sum(axis=1) <= 0)] = np.nan

    print(f"{len(rows)} triangles, {B.shape[1]} bins of {dt} ns; B in {units}")
    print(f"brightest seen triangle: id {brightest} ({rows[brightest]['source_mesh']}), "
          f"distance {rows[brightest]['distance_m']} m")
    print(f"depth image {depth.shape[1]} x {depth.shape[0]}, {np.isfinite(depth).sum()} pixels with a depth; "
          f"median |multipath error| {np.nanmedian(np.abs(multipath)) * 1e3:.3f} mm, "
          f"median |error of the direct signal alone| {np.nanmedian(np.abs(own)) * 1e3:.3f} mm")
    print(f"phase at {a.mhz} MHz: {np.isfinite(phase).sum()} triangles, "
          f"ambiguity range {C_M_PER_NS * 1e3 / a.mhz / 2:.2f} m")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(14, 4))
    ax[0].plot(t_ns, B[brightest])
    ax[0].set_xlabel("time (ns)")
    ax[0].set_ylabel(f"B ({units})")
    ax[0].set_title(f"transient of triangle {brightest}")
    im = ax[1].imshow(depth, cmap="viridis")
    fig.colorbar(im, ax=ax[1], label="depth (m)")
    ax[1].set_title("depth.pfm")
    cx = np.array([float(r["cx"]) for r in rows])
    cy = np.array([float(r["cy"]) for r in rows])
    sc = ax[2].scatter(cx, cy, c=phase, s=4, cmap="twilight")
    fig.colorbar(sc, ax=ax[2], label="phase (rad)")
    ax[2].set_title(f"AMCW phase at {a.mhz:g} MHz, by triangle (top view)")
    ax[2].set_aspect("equal")
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
