#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Speedup of one backend over another from two CSV files of scripts/benchmark.py.

  scripts/plot_speedup.py --fast docs/bench-data/h100-gpu-2026-11-22.csv \
      --slow docs/bench-data/h100-cpu16-2026-11-22.csv --out docs/bench-data/h100-speedup.png

Prints a Markdown table (total and per phase) and writes a bar chart (PNG).
With --gpus G, --fast may be the scaling.csv of scripts/multigpu_benchmark.py (its G-GPU rows):
  scripts/plot_speedup.py --fast docs/bench-data/h200x4-scaling-2026-11-22.csv --gpus 4 \
      --slow docs/bench-data/h200x4-cpu64-2026-11-22.csv --out docs/bench-data/h200x4-speedup-4gpu.png
"""
import argparse
import csv

PHASES = ["visibility", "radiosity"]


def load(path, gpus=None):
    with open(path) as f:
        return {r["scene"]: r for r in csv.DictReader(f) if gpus is None or int(r.get("gpus", 1)) == gpus}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fast", required=True, help="CSV of the faster backend (e.g. GPU)")
    ap.add_argument("--slow", required=True, help="CSV of the baseline (e.g. CPU)")
    ap.add_argument("--out", help="PNG to write")
    ap.add_argument("--title", default="rsim speedup, GPU over CPU backend")
    ap.add_argument("--gpus", type=int, help="rows of --fast with this GPU count (multigpu_benchmark.py CSV)")
    args = ap.parse_args()
    fast, slow = load(args.fast, args.gpus), load(args.slow)
    scenes = [s for s in fast if s in slow]
    rows = []
    print("| scene | N | baseline total (s) | total (s) | speedup | visibility | radiosity |")
    print("|---|---|---|---|---|---|---|")
    for s in scenes:
        f, b = fast[s], slow[s]
        row = {"scene": s, "total": float(b["total_s"]) / float(f["total_s"])}
        for p in PHASES:
            row[p] = float(b[p + "_s"]) / float(f[p + "_s"]) if float(f[p + "_s"]) > 0 else 0.0
        rows.append(row)
        print(f"| {s} | {f['triangles']} | {float(b['total_s']):.2f} | {float(f['total_s']):.2f} | "
              f"{row['total']:.1f}x | {row['visibility']:.1f}x | {row['radiosity']:.0f}x |")
    if args.out:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 4))
        width = 0.27
        xs = range(len(rows))
        for k, key in enumerate(["total"] + PHASES):
            ax.bar([x + (k - 1) * width for x in xs], [r[key] for r in rows], width, label=key)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([r["scene"] for r in rows])
        ax.set_yscale("log")
        ax.set_ylabel("speedup (x)")
        ax.set_title(args.title)
        ax.legend()
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.out, dpi=120)
        print(f"plot: {args.out}")


if __name__ == "__main__":
    main()
