#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which rows of K have the largest sum of form factors F_ij = K_ij A_j, and what makes them up.

Reads a results directory written with `rsim run ... --kij fp32 --write-kij` (timeseries.h5 with
K and the geometry) and prints how many rows exceed 1.05 and 1.08, the meshes and areas of those
rows, and for each of the --worst rows its area, longest edge, normal, its sum split into near
pairs (centroids closer than the longer of the two longest edges) and far ones, and its largest
entries (F, area, centroid distance, near, the cosine between the normals, mesh). K is read in
blocks of rows, so a scene of 53k triangles (11 GB of K) needs about 15 GB of memory.

  scripts/worst_rows.py results/industry --worst 12
"""
import argparse

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="results directory written with --write-kij")
    ap.add_argument("--worst", type=int, default=12, help="rows to show")
    ap.add_argument("--entries", type=int, default=6, help="largest entries to show per row")
    args = ap.parse_args()

    f = h5py.File(args.results + "/timeseries.h5", "r")
    if "K" not in f:
        raise SystemExit(f"{args.results}/timeseries.h5 has no K: run rsim with --write-kij")
    g = f["geometry"]
    area = g["area"][:].astype(np.float64)
    verts = g["vertices"][:].astype(np.float64)
    centroid = g["centroid"][:].astype(np.float64)
    normal = g["normal"][:].astype(np.float64)
    mesh = g["source_mesh"][:]
    names = [x.decode() if isinstance(x, bytes) else str(x) for x in g["mesh_names"][:]]
    name = lambda i: names[int(mesh[i])] if int(mesh[i]) < len(names) else str(mesh[i])
    K = f["K"]
    n = K.shape[0]
    edge = np.sqrt(np.max([((verts[:, a] - verts[:, b]) ** 2).sum(1) for a, b in ((0, 1), (1, 2), (2, 0))], axis=0))

    rows = np.zeros(n)
    for i0 in range(0, n, 2048):
        rows[i0:i0 + 2048] = (K[i0:i0 + 2048].astype(np.float64) * area[None, :]).sum(1)
    over = rows > 1.05
    print(f"rows: {n}, largest sum {rows.max():.4f}, above 1.08: {(rows > 1.08).sum()}, above 1.05: {over.sum()}")
    if over.any():
        meshes, counts = np.unique(mesh[over], return_counts=True)
        print("meshes of the rows above 1.05:", ", ".join(f"{name(np.where(mesh == m)[0][0])} {c}" for m, c in zip(meshes, counts)))
        print("their areas (min, median, max):", np.quantile(area[over], [0, 0.5, 1]), "all rows':", np.quantile(area, [0, 0.5, 1]))
    for i in np.argsort(-rows)[:args.worst]:
        F = K[i].astype(np.float64) * area
        dist = np.sqrt(((centroid - centroid[i]) ** 2).sum(1))
        near = dist < np.maximum(edge, edge[i])
        print(f"row {i} sum {rows[i]:.4f} mesh {name(i)} area {area[i]:.3e} edge {edge[i]:.3f} normal {np.round(normal[i], 2)} "
              f"near part {F[near].sum():.4f} ({near.sum()} pairs) far {F[~near].sum():.4f}")
        for j in np.argsort(-F)[:args.entries]:
            print(f"    j {j} F {F[j]:.4f} area {area[j]:.3e} dist {dist[j]:.4f} near {near[j]} "
                  f"cos {np.dot(normal[i], normal[j]):.3f} mesh {name(j)}")


if __name__ == "__main__":
    main()
