#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How sparse a scene's K is, for the choice of a sparse K format (issue 63) and for gathers that
skip all-zero blocks: the share of non-zero elements, the share of blocks of b x b elements that
hold one (triangles in the scene's order, as output.kij writes K; in Morton order of their centroids,
about rsim's internal order; and of centroid and normal), and the bytes per non-zero of delta-coded
column indices (LEB128 varints).

  rsim run SCENE --backend cpu --no-k-cache --set output.kij=true --set simulation.indirect=false \\
      --timesteps 200 -o DIR
  scripts/k_sparsity_study.py DIR/timeseries.h5
"""
import argparse

import h5py
import numpy as np


def occupied(nonzero, b):
    m = nonzero.shape[0] // b * b
    return nonzero[:m, :m].reshape(m // b, b, m // b, b).any(axis=(1, 3)).mean()


def morton_order(points, bits=10):
    span = np.ptp(points, axis=0) + 1e-9
    q = ((points - points.min(axis=0)) / span * (2**bits - 1)).astype(np.uint64)
    code = np.zeros(len(points), dtype=np.uint64)
    for bit in range(bits):
        for d in range(q.shape[1]):
            code |= ((q[:, d] >> np.uint64(bit)) & np.uint64(1)) << np.uint64(q.shape[1] * bit + d)
    return np.argsort(code, kind="stable")


def varint_bytes_per_index(nonzero, rows):
    total = count = 0
    for i in rows:
        j = np.flatnonzero(nonzero[i])
        if len(j) == 0:
            continue
        gaps = np.diff(np.concatenate([[-1], j]))
        total += (gaps < 2**7).sum() + 2 * ((gaps >= 2**7) & (gaps < 2**14)).sum() + 3 * (gaps >= 2**14).sum()
        count += len(j)
    return total / max(count, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("timeseries", help="timeseries.h5 of a run with output.kij = true")
    args = ap.parse_args()
    with h5py.File(args.timeseries, "r") as f:
        if "K" not in f:
            raise SystemExit(f"{args.timeseries}: no dataset K (run with --set output.kij=true)")
        nonzero = f["K"][()] != 0
        centroid = f["geometry/centroid"][()]
        normal = f["geometry/normal"][()]
    n = nonzero.shape[0]
    print(f"triangles,{n}")
    print(f"non-zero share,{nonzero.mean():.4f}")
    print("order,blocks 8,blocks 32,blocks 128")
    for name, order in [("file", np.arange(n)), ("morton centroids", morton_order(centroid)),
                        ("morton centroids+normals", morton_order(np.hstack([centroid, 2.0 * normal])))]:
        z = nonzero[np.ix_(order, order)]
        print(f"{name}," + ",".join(f"{occupied(z, b):.4f}" for b in (8, 32, 128)))
    print(f"varint bytes per non-zero index,{varint_bytes_per_index(nonzero, range(0, n, max(1, n // 64))):.3f}")


if __name__ == "__main__":
    main()
