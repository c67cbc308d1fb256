#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The README's figure of the glossy room (MODEL.md §10): the range error of the radiosity
pipeline, which takes every material as Lambertian, next to that of the `paths` transport, which
models the glossy floor, steel, whiteboard and window, and their difference (paths - radiosity),
which is the multipath the Lambertian model misses. Also prints the median |range error| of each
transport and the difference on each material's pixels.

Its inputs, made on the CPU backend (paths through the pixel centres, as the radiosity pipeline's
one ray per pixel, so that the two images compare pixel by pixel):

  build/rsim generate glossy-room --output scenes/generated/glossy-room
  build/rsim run scenes/generated/glossy-room/scene.toml --backend cpu --output results/glossy-radiosity
  build/rsim run scenes/generated/glossy-room/scene.toml --backend cpu --output results/glossy-paths \\
      --set simulation.transport='"paths"' --set sensor.pixel_samples=256 --set sensor.pixel_filter='"centre"'
  python3 scripts/glossy_room_figure.py results/glossy-radiosity results/glossy-paths \\
      docs/images/glossy-room-range-error.png

Needs numpy, h5py and matplotlib (Debian: python3-numpy python3-h5py python3-matplotlib).
"""
import argparse
import os

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def read(results):
    with h5py.File(os.path.join(results, "images.h5"), "r") as f:
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["material_names"][:]]
        return f["range_error_m"][:], f["material_id"][:], names


def report(radiosity, paths, material, names):
    diff = paths - radiosity
    print(f"median |range error|: radiosity {np.nanmedian(np.abs(radiosity)) * 1e3:.1f} mm, "
          f"paths {np.nanmedian(np.abs(paths)) * 1e3:.1f} mm")
    print(f"{'material':14s} {'pixels':>6s} {'radiosity':>10s} {'paths':>10s} {'diff':>10s} {'p90 |diff|':>10s}"
          "   (medians, mm)")
    for i, name in enumerate(names):
        on = material == i
        if not on.any():
            continue
        print(f"{name:14s} {on.sum():6d} {np.nanmedian(radiosity[on]) * 1e3:10.1f} "
              f"{np.nanmedian(paths[on]) * 1e3:10.1f} {np.nanmedian(diff[on]) * 1e3:10.1f} "
              f"{np.nanpercentile(np.abs(diff[on]), 90) * 1e3:10.1f}")


def label_materials(ax, diff, material, names):
    """Names the glossy room's non-Lambertian surfaces where the difference shows on them: at
    the median pixel of those with |diff| > 0.1 m (all of the surface's pixels if none)."""
    labels = {"floor": "floor", "window_glass": "window", "steel": "steel", "whiteboard": "whiteboard"}
    for i, name in enumerate(names):
        on = material == i
        if name not in labels or not on.any():
            continue
        large = on & (np.abs(diff) > 0.1)
        rows, cols = np.nonzero(large if large.any() else on)
        ax.text(np.median(cols), np.median(rows), labels[name], fontsize=7, ha="center", va="center",
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.75))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("radiosity", help="results folder of the radiosity run")
    ap.add_argument("paths", help="results folder of the paths run")
    ap.add_argument("png", help="figure to write")
    ap.add_argument("--limit-m", type=float, default=0.3, help="colour scale: +-this many metres")
    args = ap.parse_args()

    radiosity, material, names = read(args.radiosity)
    paths, _, _ = read(args.paths)
    report(radiosity, paths, material, names)

    panels = [(radiosity, "radiosity (Lambertian)"), (paths, "paths (glossy, metal, glass)"),
              (paths - radiosity, "paths - radiosity")]
    fig, axes = plt.subplots(1, 3, figsize=(9.6, 2.7), constrained_layout=True)
    cmap = plt.get_cmap("RdBu_r").copy()
    cmap.set_bad("0.6")  # no range
    for ax, (image, title) in zip(axes, panels):
        shown = ax.imshow(image, cmap=cmap, vmin=-args.limit_m, vmax=args.limit_m, interpolation="nearest")
        ax.set_title(title, fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    label_materials(axes[2], panels[2][0], material, names)
    bar = fig.colorbar(shown, ax=axes, shrink=0.9, extend="both", pad=0.01)
    bar.set_label("range error (m)", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    os.makedirs(os.path.dirname(os.path.abspath(args.png)), exist_ok=True)
    fig.savefig(args.png, dpi=100)
    print(f"wrote {args.png} ({os.path.getsize(args.png) // 1024} KiB)")


if __name__ == "__main__":
    main()
