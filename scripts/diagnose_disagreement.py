#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where do two results directories disagree: K, the radiosity B, or the distance estimator?

Both directories must come from `rsim run ... --write-kij` (timeseries.h5 with K), on the same
scene and settings, for example the CPU reference and the Vulkan backend. Prints:
  - how many triangles differ beyond --tol-m, and by how much;
  - how many form factors F_ij = min(1, K_ij A_j) differ, and how many non-zero pairs each has;
  - how many triangles' B differ, relative to their peak;
  - for each AMCW frequency given, the distance change that the phase of each directory's own
    B implies (computed here in double precision): when it matches the reported differences,
    the estimator is not the cause;
  - the worst triangles with their form-factor row sum and the differing pairs that touch them.

  scripts/diagnose_disagreement.py results/cpu results/gpu --mhz 20,50
"""
import argparse

import h5py
import numpy as np

C_M_PER_NS = 0.299792458


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a", help="first results directory (written with --write-kij)")
    ap.add_argument("b", help="second results directory (written with --write-kij)")
    ap.add_argument("--tol-m", type=float, default=1e-3, help="distance tolerance in metres (1 mm)")
    ap.add_argument("--mhz", default="", help="AMCW frequencies to check the phase of, e.g. 20,50")
    ap.add_argument("--worst", type=int, default=12, help="rows in the worst-triangle table")
    args = ap.parse_args()

    fa, fb = (h5py.File(d + "/timeseries.h5", "r") for d in (args.a, args.b))
    for f, d in ((fa, args.a), (fb, args.b)):
        if "K" not in f:
            raise SystemExit(f"{d}/timeseries.h5 has no K: run rsim with --write-kij")
    da, db = fa["distance_m"][:], fb["distance_m"][:]
    diff = np.abs(da - db)
    bad = np.where(diff > args.tol_m)[0]
    bad = bad[np.argsort(-diff[bad])]
    print(f"triangles beyond {args.tol_m} m: {bad.size} of {da.size}; largest difference "
          f"{np.nanmax(diff) if np.isfinite(diff).any() else float('nan'):.6g} m")

    area = fa["geometry/area"][:].astype(np.float64)
    Fa = np.minimum(1.0, fa["K"][:].astype(np.float64) * area[None, :])
    Fb = np.minimum(1.0, fb["K"][:].astype(np.float64) * area[None, :])
    dF = np.abs(Fa - Fb)
    print(f"form factors differing: > 1e-6: {(dF > 1e-6).sum()}, > 1e-3: {(dF > 1e-3).sum()}, "
          f"> 1e-2: {(dF > 1e-2).sum()}, largest {dF.max():.3g}; non-zero pairs "
          f"{(Fa > 0).sum()} and {(Fb > 0).sum()}")

    Ba, Bb = fa["B"][:].astype(np.float64), fb["B"][:].astype(np.float64)
    relB = np.abs(Ba - Bb).max(axis=1) / np.maximum(Ba.max(axis=1), 1e-30)
    print(f"triangles whose B differs by more than 1e-3 of its peak: {(relB > 1e-3).sum()}, "
          f"more than 1e-5: {(relB > 1e-5).sum()}")

    dt = float(fa.attrs["dt_ns"])
    t = np.arange(Ba.shape[1])
    for mhz in [float(x) for x in args.mhz.split(",") if x]:
        w = 2.0 * np.pi * mhz * 1e-3 * dt
        phasor = np.exp(-1j * w * t)[None, :]
        dphi = np.angle((Ba * phasor).sum(axis=1) * np.conj((Bb * phasor).sum(axis=1)))
        metres_per_rad = C_M_PER_NS / (2.0 * np.pi * mhz * 1e-3) / 2.0  # sensor distance ~ path / 2
        implied = np.abs(dphi) * metres_per_rad
        worst = implied[bad].max() if bad.size else 0.0
        print(f"{mhz:g} MHz: distance change implied by the two B (host, double): largest over the "
              f"triangles beyond tolerance {worst:.4g} m")

    rowsum = Fa.sum(axis=1)
    E = fa["E"][:]
    print(f"\n{'id':>6} {'A (m)':>9} {'B (m)':>9} {'diff (m)':>9} {'row sum F':>9} {'max|dB|/B':>9} "
          f"{'pairs |dF|>1e-3':>15} {'direct/total':>12}")
    for i in bad[: args.worst]:
        touching = int((dF[i] > 1e-3).sum() + (dF[:, i] > 1e-3).sum())
        share = E[i].sum() / max(Ba[i].sum(), 1e-30)
        print(f"{i:>6} {da[i]:>9.4f} {db[i]:>9.4f} {db[i] - da[i]:>9.4f} {rowsum[i]:>9.2f} "
              f"{relB[i]:>9.1e} {touching:>15} {share:>12.3f}")


if __name__ == "__main__":
    main()
