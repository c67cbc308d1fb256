#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Row sums and K error of one or more rsim builds on whole scenes, CPU backend (issue 18).

For every scene, build (--rsim LABEL=PATH, repeatable: compare a build before a change with one
after it) and seed, runs

  rsim run SCENE --backend cpu --kij fp32 --samples S --seed SEED --write-kij ...

and reports what the issue's acceptance names: the largest row sum sum_j F_ij
(F_ij = min(1, K_ij A_j), from the decoded K that --write-kij stores in timeseries.h5), the rows
above 1.05, the rays cast and the visibility phase. With --reference-samples, one more run of
the first build at that S and another seed is the reference, and each run also reports
  - k_sq_error: sum over i, j of (F_ij - F_ij(ref))^2,
  - row_rms_error: RMS over rows of (sum_j F_ij - sum_j F_ij(ref)).
The reference has its own noise (a quarter of S = 16's variance at 64, an eighth at 128), so
the errors are upper bounds that order the builds. K is fp32 so that the format's rounding is
not what is measured; --write-kij stores N x N floats (medium room: 0.5 GB).

  scripts/row_sum_study.py --rsim before=/tmp/old/build/rsim --rsim after=build/rsim \\
      --scenes tiny-room,small-room --seeds 1,2 --reference-samples 128 --out bench/row-sums
"""
import argparse
import os
import shutil
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import ROOT, run_rsim, scene_file, write_csv, write_table  # noqa: E402


def form_factors(out):
    with h5py.File(os.path.join(out, "timeseries.h5"), "r") as f:
        area = f["geometry/area"][...].astype(np.float64)
        return np.minimum(1.0, f["K"][...].astype(np.float64) * area[None, :])


def run(rsim, scene, out, samples, seed, timesteps, extra):
    return run_rsim(rsim, scene, out, ["--backend", "cpu", "--kij", "fp32", "--samples", str(samples), "--seed",
                                       str(seed), "--timesteps", str(timesteps), "--write-kij", "--no-images",
                                       "--no-progress", "--no-k-cache", "--log-level", "error"] + extra,
                    who="row_sum_study")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", action="append", default=[],
                    help="LABEL=PATH of a build (repeatable; default: this checkout's build/rsim)")
    ap.add_argument("--scenes", default="tiny-room,small-room")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--timesteps", type=int, default=200, help="the radiosity is not what is measured")
    ap.add_argument("--reference-samples", type=int, default=0, help="0: no reference, no K error")
    ap.add_argument("--reference-seed", type=int, default=99)
    ap.add_argument("--set", action="append", default=[], help="passed to every run as --set")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "row-sums"))
    ap.add_argument("--tmp", default="/tmp/rsim-row-sum-study")
    args = ap.parse_args()
    builds = [b.split("=", 1) for b in args.rsim] or [["this", os.path.join(ROOT, "build", "rsim")]]
    extra = [a for s in args.set for a in ("--set", s)]
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for scene in args.scenes.split(","):
        path = scene_file(builds[0][1], scene, ROOT)
        ref = None
        if args.reference_samples:
            run(builds[0][1], path, args.tmp, args.reference_samples, args.reference_seed, args.timesteps, extra)
            ref = form_factors(args.tmp)
            print("  %-12s reference S = %d seed %d: max row sum %.4f" % (
                scene, args.reference_samples, args.reference_seed, ref.sum(1).max()), file=sys.stderr)
        for label, rsim in builds:
            for seed in [int(s) for s in args.seeds.split(",")]:
                r = run(rsim, path, args.tmp, args.samples, seed, args.timesteps, extra)
                F = form_factors(args.tmp)
                sums = F.sum(1)
                row = {"scene": scene, "build": label, "seed": seed, "samples": args.samples,
                       "triangles": r.summary["counts"]["triangles"], "max_row_sum": sums.max(),
                       "rows_over_1_05": int((sums > 1.05).sum()), "rays": r.summary["rays"]["visibility"],
                       "visibility_s": r.timing("visibility")}
                if ref is not None:
                    row["k_sq_error"] = float(((F - ref) ** 2).sum())
                    row["row_rms_error"] = float(np.sqrt(((sums - ref.sum(1)) ** 2).mean()))
                rows.append(row)
                print("  %-12s %-8s seed %d: max row sum %.4f, %d rows > 1.05, %.3g rays, %.1f s" % (
                    scene, label, seed, row["max_row_sum"], row["rows_over_1_05"], row["rays"],
                    row["visibility_s"]), file=sys.stderr)
    shutil.rmtree(args.tmp, ignore_errors=True)
    write_csv(os.path.join(args.out, "row_sum_study.csv"), rows)
    header = ["scene", "triangles", "build", "seed", "max row sum", "rows > 1.05", "rays", "visibility (s)"]
    if args.reference_samples:
        header += ["sum (F - F_ref)^2", "RMS row-sum error"]
    table = []
    for r in rows:
        cells = [r["scene"], f"{r['triangles']:,}", r["build"], str(r["seed"]), "%.4f" % r["max_row_sum"],
                 str(r["rows_over_1_05"]), "%.3g" % r["rays"], "%.1f" % r["visibility_s"]]
        if args.reference_samples:
            cells += ["%.3f" % r["k_sq_error"], "%.4f" % r["row_rms_error"]]
        table.append(cells)
    write_table(os.path.join(args.out, "row_sum_study.md"), header, table)


if __name__ == "__main__":
    main()
