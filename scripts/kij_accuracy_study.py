#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""K compression accuracy study (issue 4), like the paper's Section 4.2 / Table 3.

For each scene: one fp32 run (the reference; it also reports every format's K error against
its fp32 K, `rsim run --kij-errors`), then one run per compressed format. For each format:
  - the RMS error of K against fp32 (from the fp32 run's k_format_errors),
  - the share of triangles whose distance is within 1 cm of the fp32 run's (over the
    triangles that have a distance in the fp32 run; a missing distance counts as outside),
  - the mean and 99th-percentile absolute distance difference (over triangles with both).
Also plots the K histogram of one chunk of a scene, like the paper's Figure 4.

  scripts/kij_accuracy_study.py --scenes large-room,traffic --backend vulkan --out bench/kij
"""
import argparse
import csv
import math
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import ROOT, print_command, pyplot, run_rsim, scene_file, write_csv  # noqa: E402

FORMATS = ["fp16", "lut8-log", "lut8-range", "lut4-log", "lut4-range"]
# Paper, Table 3: K RMS error and share within delta (large room, traffic).
PAPER = {
    "lut8-log": ("0.000385", "0.002290", "96.71%", "98.75%"),
    "lut8-range": ("0.000180", "0.000671", "98.50%", "95.59%"),
    "lut4-log": ("0.008197", "0.117436", "67.82%", "83.90%"),
    "lut4-range": ("0.001965", "0.077244", "54.14%", "65.19%"),
}
BITS = {"fp32": 32, "fp16": 16, "lut8-log": 8, "lut8-range": 8, "lut4-log": 4, "lut4-range": 4}


def run(rsim, scene, out, args, extra):
    r = run_rsim(rsim, scene, out, ["--backend", args.backend, "--samples", str(args.samples), "--timesteps",
                                    str(args.timesteps), "--no-timeseries", "--no-images", "--no-progress",
                                    "--log-level", "warn", "--chunk-mb", str(args.chunk_mb)] + extra, who="study")
    return r.summary, r.cmd


def distances(path):
    with open(os.path.join(path, "triangles.csv")) as f:
        return [float(r["distance_m"]) for r in csv.DictReader(f)]


def compare(ref, got):
    within = total = 0
    diffs = []
    for a, b in zip(ref, got):
        if math.isnan(a):
            continue
        total += 1
        if math.isnan(b):
            continue
        d = abs(a - b)
        diffs.append(d)
        within += d <= 0.01
    diffs.sort()
    p99 = diffs[min(len(diffs) - 1, int(0.99 * len(diffs)))] if diffs else float("nan")
    mean = sum(diffs) / len(diffs) if diffs else float("nan")
    return 100.0 * within / max(1, total), mean, p99, total


def histogram(args, rsim, root, out):
    import h5py
    plt = pyplot("study")
    if not plt:
        return None
    scene = scene_file(rsim, args.histogram_scene, root)
    tmp = os.path.join(args.tmp, "hist")
    rows = run_rsim(rsim, scene, tmp, ["--backend", args.backend, "--kij", "fp32", "--write-kij", "--no-images",
                                       "--no-progress", "--log-level", "warn", "--timesteps", "200", "--chunk-mb",
                                       str(args.chunk_mb)], who="study").summary["k_rows_per_chunk"]
    with h5py.File(os.path.join(tmp, "timeseries.h5")) as h:
        # timeseries.h5 is in stable-id order; K chunks are in internal order. Any block of rows
        # is a fair sample of the distribution; take the first chunk's row count.
        K = h["K"][:rows, :]
    v = K[K > 0]
    fig, ax = plt.subplots(figsize=(8, 3.5))
    ax.hist(v[v < 100], bins=5000, range=(0, 100), color="#1f77b4")
    ax.set_ylim(0, 100)
    ax.set_xlim(0, 100)
    ax.set_xlabel("K_ij")
    ax.set_ylabel("count (capped at 100)")
    share = 100.0 * (v < 100).mean()
    ax.set_title(f"K histogram, {rows} rows of {args.histogram_scene} ({share:.2f}% of non-zero K below 100)")
    fig.tight_layout()
    png = os.path.join(out, "k-histogram.png")
    fig.savefig(png, dpi=120)
    shutil.rmtree(tmp, ignore_errors=True)
    return png


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default="build/rsim")
    ap.add_argument("--scenes", default="large-room,traffic")
    ap.add_argument("--backend", default="vulkan")
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--timesteps", type=int, default=1000)
    ap.add_argument("--chunk-mb", type=float, default=16.0)
    ap.add_argument("--histogram-scene", default="small-room")
    ap.add_argument("--out", default="bench/kij")
    ap.add_argument("--tmp", default="/tmp/rsim-kij-study")
    args = ap.parse_args()
    root = ROOT
    rsim = os.path.abspath(args.rsim)
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.tmp, exist_ok=True)
    print_command("study")
    scenes = [s for s in args.scenes.split(",") if s]
    results = {}  # (scene, format) -> dict
    for name in scenes:
        scene = scene_file(rsim, name, root)
        ref_dir = os.path.join(args.tmp, f"{name}-fp32")
        ref, _ = run(rsim, scene, ref_dir, args, ["--kij", "fp32", "--kij-errors"])
        ref_d = distances(ref_dir)
        errors = ref["k_format_errors"]
        for fmt in FORMATS:
            d = os.path.join(args.tmp, f"{name}-{fmt}")
            s, _ = run(rsim, scene, d, args, ["--kij", fmt])
            within, mean, p99, total = compare(ref_d, distances(d))
            results[(name, fmt)] = {
                "scene": name, "format": fmt, "n": s["counts"]["triangles"], "k_bytes": s["k_bytes"],
                "k_rms": errors[fmt]["rms"], "k_max_abs": errors[fmt]["max_abs"],
                "within_1cm_pct": within, "mean_abs_m": mean, "p99_abs_m": p99, "compared": total,
                "compress_s": s["timings_s"]["compress"], "radiosity_s": s["timings_s"]["radiosity"],
                "k_rms_run": s["k_rms_error"],
            }
            shutil.rmtree(d, ignore_errors=True)
            print(f"  {name} {fmt}: within 1 cm {within:.2f}%, mean {1e3 * mean:.2f} mm, p99 {1e3 * p99:.1f} mm",
                  flush=True)
        shutil.rmtree(ref_dir, ignore_errors=True)

    write_csv(os.path.join(args.out, "kij-study.csv"), list(results.values()))
    a, b = scenes[0], scenes[-1]
    print()
    print(f"| format | bits | K RMS {a} | K RMS {b} | within 1 cm {a} | within 1 cm {b} | "
          f"mean / p99 |Δd| {a} | mean / p99 |Δd| {b} | paper RMS | paper within |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for fmt in FORMATS:
        ra, rb = results[(a, fmt)], results[(b, fmt)]
        p = PAPER.get(fmt, ("-", "-", "-", "-"))
        print(f"| {fmt} | {BITS[fmt]} | {ra['k_rms']:.3g} | {rb['k_rms']:.3g} | {ra['within_1cm_pct']:.2f}% | "
              f"{rb['within_1cm_pct']:.2f}% | {1e3 * ra['mean_abs_m']:.2f} / {1e3 * ra['p99_abs_m']:.1f} mm | "
              f"{1e3 * rb['mean_abs_m']:.2f} / {1e3 * rb['p99_abs_m']:.1f} mm | {p[0]} / {p[1]} | {p[2]} / {p[3]} |")
    print(f"\nCSV: {os.path.join(args.out, 'kij-study.csv')}")
    if args.histogram_scene:
        print("plot:", histogram(args, rsim, root, args.out))


if __name__ == "__main__":
    main()
