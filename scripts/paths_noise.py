#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The paths transport's per-pixel noise and its agreement with the radiosity pipeline, from
images.h5 files (docs/benchmarks.md, "Paths transport"; MODEL.md section 10.2, invariant 11).

    scripts/paths_noise.py --reference REF.h5 --radiosity RAD.h5 N1=A.h5 N2=B.h5 ...

REF.h5: a run with many paths per pixel (16,384) as the reference; N=FILE.h5: runs with N paths
per pixel, the same scene, camera and pixel filter. Pixels at depth edges (the second difference
of the true range along the row or the column above --edge-m) are left out: there the radiosity
pipeline's one triangle per pixel and the paths' average differ by construction. Prints a table
and, with --csv FILE, writes it.
"""
import argparse
import csv

import h5py
import numpy as np


def read(path):
    with h5py.File(path, "r") as f:
        return {k: f[k][()] for k in ("range_m", "range_true_m", "amplitude")}


def away_from_edges(true_range, edge_m):
    """Pixels whose true range is smooth around them: its second difference along the row and the
    column within edge_m (a plane seen at any angle has a small one; a depth edge a large one)."""
    t = np.pad(np.where(np.isfinite(true_range), true_range, np.nan), 1, mode="edge")
    c = t[1:-1, 1:-1]
    with np.errstate(invalid="ignore"):
        ok = (np.abs(t[1:-1, :-2] - 2 * c + t[1:-1, 2:]) <= edge_m) & (np.abs(t[:-2, 1:-1] - 2 * c + t[2:, 1:-1]) <= edge_m)
    return np.isfinite(true_range) & ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", required=True)
    ap.add_argument("--radiosity")
    ap.add_argument("--edge-m", type=float, default=0.02)
    ap.add_argument("--csv")
    ap.add_argument("runs", nargs="+", help="N=FILE.h5: a run with N paths per pixel (N a label, e.g. 1024 or 1024-cpu)")
    a = ap.parse_args()
    ref = read(a.reference)
    mask = away_from_edges(ref["range_true_m"], a.edge_m)
    rows = []
    for spec in a.runs:
        n, path = spec.split("=", 1)
        run = read(path)
        ok = mask & np.isfinite(run["range_m"]) & np.isfinite(ref["range_m"])
        d = np.abs(run["range_m"][ok] - ref["range_m"][ok])
        rows.append({"paths_per_pixel": n, "pixels": int(ok.sum()),
                     "median_abs_range_vs_reference_mm": 1e3 * float(np.median(d)),
                     "p90_abs_range_vs_reference_mm": 1e3 * float(np.percentile(d, 90))})
    print("%-16s %8s %28s %26s" % ("paths per pixel", "pixels", "median |range - ref| (mm)", "p90 |range - ref| (mm)"))
    for r in rows:
        print("%-16s %8d %28.2f %26.2f" % (r["paths_per_pixel"], r["pixels"], r["median_abs_range_vs_reference_mm"],
                                          r["p90_abs_range_vs_reference_mm"]))
    if a.radiosity:
        rad = read(a.radiosity)
        for name, run in [("reference", ref)] + [(spec.split("=")[0], read(spec.split("=", 1)[1])) for spec in a.runs]:
            ok = mask & np.isfinite(run["range_m"]) & np.isfinite(rad["range_m"]) & (rad["amplitude"] > 0)
            d = run["range_m"][ok] - rad["range_m"][ok]
            ratio = run["amplitude"][ok] / rad["amplitude"][ok]
            print("paths %s against radiosity, %d pixels away from depth edges: median |range difference| %.2f mm "
                  "(median signed %.2f mm), median |signal ratio - 1| %.2f %%, image signal ratio %.4f"
                  % (name, ok.sum(), 1e3 * np.median(np.abs(d)), 1e3 * np.median(d),
                     100 * np.median(np.abs(ratio - 1)), run["amplitude"][ok].sum() / rad["amplitude"][ok].sum()))
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
