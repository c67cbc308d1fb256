#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Visibility cost and row sums of the K estimator variants on whole scenes (issue 12).

For every scene and variant (K_ESTIMATOR_VARIANTS in scripts/rsim_bench.py), runs
`rsim run` --repeat times and reports the rays cast, the visibility phase and its ray dispatches
alone (timings_detail_s.visibility_rays on the GPU), rays per second over the dispatches, and
the energy diagnostics of K: the largest row sum sum_j F_ij, the rows above 1.05 and the clamped
form factors. Writes a Markdown table and a CSV (one row per run).

  scripts/estimator_benchmark.py --scenes medium-room,large-room --variants area,default \\
      --backend vulkan --repeat 2 --out bench/estimator-gpu
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import ROOT, k_estimator_options, run_rsim, scene_file, write_csv, write_table  # noqa: E402

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default=os.path.join(ROOT, "build", "rsim"))
    ap.add_argument("--scenes", default="tiny-room,small-room")
    ap.add_argument("--variants", default="area,default")
    ap.add_argument("--backend", default="vulkan")
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--timesteps", type=int, default=200, help="the radiosity is not what is measured")
    ap.add_argument("--repeat", type=int, default=1, help="runs per scene and variant, interleaved")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "estimator-runs"))
    ap.add_argument("--tmp", default="/tmp/rsim-estimator-run")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for scene in args.scenes.split(","):
        path = scene_file(args.rsim, scene, ROOT)
        for rep in range(args.repeat):
            for variant in args.variants.split(","):
                r = run_rsim(args.rsim, path, args.tmp,
                             ["--backend", args.backend, "--samples", str(args.samples), "--timesteps",
                              str(args.timesteps), "--no-timeseries", "--no-images", "--no-progress", "--no-k-cache", "--log-level",
                              "error"] + k_estimator_options(variant), who="estimator_benchmark")
                d, wall = r.summary, r.wall_s
                vis = d["timings_s"]["visibility"]
                rays_s = d.get("timings_detail_s", {}).get("visibility_rays", vis)
                row = {"scene": scene, "variant": variant, "repeat": rep, "triangles": d["counts"]["triangles"],
                       "candidate_pairs": d["counts"]["candidate_pairs"], "rays": d["rays"]["visibility"],
                       "clear_pairs": d["rays"].get("visibility_clear_pairs", 0),
                       "visibility_s": vis, "visibility_rays_s": rays_s,
                       "grays_per_s": d["rays"]["visibility"] / rays_s / 1e9 if rays_s > 0 else 0.0,
                       "max_row_sum": d["max_form_factor_row_sum"],
                       "rows_over_1_05": d["counts"]["rows_with_form_factor_sum_over_1"],
                       "clamped": d["counts"]["clamped_form_factors"], "wall_s": wall,
                       "device": ",".join(d.get("devices", [])) or d["backend"]}
                rows.append(row)
                print("  %-12s %-10s rep %d: %.3f s rays, %.2f GRays/s, max row sum %.3f" %
                      (scene, variant, rep, rays_s, row["grays_per_s"], row["max_row_sum"]), file=sys.stderr)
    shutil.rmtree(args.tmp, ignore_errors=True)
    write_csv(os.path.join(args.out, "estimator_benchmark.csv"), rows)
    # The table: the last repeat of each scene and variant (the earlier ones warm the driver).
    last = {}
    for r in rows:
        last[(r["scene"], r["variant"])] = r
    header = ["scene", "triangles", "variant", "clear pairs", "rays", "visibility (s)", "ray dispatches (s)",
              "GRays/s", "max row sum", "rows > 1.05", "clamped F"]
    table = []
    for (scene, variant), r in last.items():
        clear = r["clear_pairs"] / r["candidate_pairs"] if r["candidate_pairs"] else 0.0
        table.append([scene, f"{r['triangles']:,}", variant, "%.1f%%" % (100 * clear), "%.3g G" % (r["rays"] / 1e9),
                      "%.3f" % r["visibility_s"], "%.3f" % r["visibility_rays_s"], "%.2f" % r["grays_per_s"],
                      "%.3f" % r["max_row_sum"], str(r["rows_over_1_05"]), str(r["clamped"])])
    write_table(os.path.join(args.out, "estimator_benchmark.md"), header, table)


if __name__ == "__main__":
    main()
