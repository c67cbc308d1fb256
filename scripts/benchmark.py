#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-phase benchmark of rsim: runs `rsim run` on scenes and tabulates summary.json.

Prints a Markdown table, writes CSV (one row per run) and, with --plot, a PNG of the phase
times, and prints its command line. Figures of docs/benchmarks.md name it in their command
(e.g. "CPU backend"); scripts/device/gpu-run.sh's stages bench, cpu and ab run it.

  scripts/benchmark.py --scenes small-room,medium-room --backend cpu --out bench/cpu
  scripts/benchmark.py --scenes medium-room --backend vulkan --visibility pipeline \
      --bandwidth-gbs 3350 --out bench/h100

Scenes are taken from scenes/<name>/scene.toml, or generated with `rsim generate` into
scenes/generated/<name> (deterministic) when not committed.
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import QUIET, ROOT, print_command, pyplot, run_rsim, scene_file, write_csv  # noqa: E402

PHASES = ["load", "accel", "visibility", "compress", "direct", "radiosity", "download", "distance", "output"]


def run_one(args, rsim, scene, out_dir):
    options = ["--backend", args.backend, "--samples", str(args.samples), "--timesteps", str(args.timesteps)] + QUIET
    if args.backend != "cpu":
        options += ["--visibility", args.visibility, "--devices", args.devices]
    threads = ["--threads", str(args.threads)] if args.threads else []
    r = run_rsim(rsim, scene, out_dir, options + args.extra, global_options=threads)
    return r.cmd, r.wall_s, r.summary


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default="build/rsim", help="rsim binary (default build/rsim)")
    ap.add_argument("--scenes", default="small-room,medium-room", help="comma-separated scene names")
    ap.add_argument("--backend", default="cpu", choices=["cpu", "vulkan", "auto"])
    ap.add_argument("--visibility", default="auto", choices=["auto", "ray-query", "pipeline"])
    ap.add_argument("--devices", default="auto")
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--timesteps", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="runs per scene; the table shows the median")
    ap.add_argument("--bandwidth-gbs", type=float, default=0.0,
                    help="device memory bandwidth (GB/s) to express the radiosity phase's K traffic as a fraction")
    ap.add_argument("--label", default="", help="label for the CSV rows (e.g. machine name)")
    ap.add_argument("--out", default="bench/out", help="folder for CSV, plot and run directories")
    ap.add_argument("--plot", action="store_true", help="also write phases.png (matplotlib)")
    ap.add_argument("--keep", action="store_true", help="keep each run's results directory")
    ap.add_argument("--warmup", action="store_true",
                    help="run the tiny room once first, so the driver's shader cache is warm")
    ap.add_argument("extra", nargs="*", help="extra arguments for rsim run (after --)")
    args = ap.parse_args()

    root = ROOT
    rsim = os.path.abspath(args.rsim)
    os.makedirs(args.out, exist_ok=True)
    print_command("benchmark")
    if args.warmup:
        warm = os.path.join(args.out, "warmup")
        run_one(args, rsim, scene_file(rsim, "tiny-room", root), warm)
        shutil.rmtree(warm, ignore_errors=True)
    rows = []
    for name in [s for s in args.scenes.split(",") if s]:
        scene = scene_file(rsim, name, root)
        runs = []
        for rep in range(args.repeat):
            out_dir = os.path.join(args.out, f"{name}-{rep}")
            cmd, wall, summary = run_one(args, rsim, scene, out_dir)
            runs.append((summary["timings_s"]["total"], cmd, wall, summary))
            if not args.keep:
                shutil.rmtree(out_dir, ignore_errors=True)
        runs.sort(key=lambda r: r[0])
        _, cmd, wall, s = runs[len(runs) // 2]
        t = s["timings_s"]
        n = s["counts"]["triangles"]
        T = args.timesteps
        row = {
            "label": args.label, "scene": name, "triangles": n, "samples": args.samples, "timesteps": T,
            "backend": s["backend"], "device": "; ".join(s["devices"]), "visibility_path": s["visibility_path"],
            "k_format": s["k_format"], "streaming": s["streaming"], "k_bytes": s["k_bytes"],
        }
        for p in PHASES:
            row[p + "_s"] = t.get(p, 0.0)
        row["total_s"] = t["total"]
        row["wall_s"] = wall
        detail = s.get("timings_detail_s", {})
        for k in ("visibility_rays", "near_lists", "k_placement", "radiosity_setup", "radiosity_loop"):
            row[k + "_s"] = detail.get(k, "")
        row["download_s"] = t.get("download", 0.0)
        row["rays_visibility"] = s["rays"]["visibility"]
        row["grays_per_s"] = s["rays"]["visibility_per_s"] / 1e9
        # Ray throughput of the dispatches alone, where the backend reports them (GPU).
        vr = detail.get("visibility_rays", 0.0)
        row["grays_per_s_dispatch"] = s["rays"]["visibility"] / vr / 1e9 if vr else ""
        row["radiosity_ms_per_step"] = 1e3 * t["radiosity"] / T
        loop = detail.get("radiosity_loop", 0.0)
        row["loop_ms_per_step"] = 1e3 * loop / T if loop else ""
        # K bytes per timestep over the time per step: how fast a transport that streams K every
        # step would have to read it. The time-blocked transport reads K once per 8 steps, so
        # this is an equivalent figure, not the DRAM traffic (that is k_read_actual_gbs).
        kgbs = s["k_bytes"] * T / t["radiosity"] / 1e9 if t["radiosity"] > 0 else 0.0
        blocks = -(-T // 8)
        row["k_read_actual_gbs"] = s["k_bytes"] * blocks / t["radiosity"] / 1e9 if t["radiosity"] > 0 else 0.0
        row["pair_steps_per_s"] = float(n) * n * T / t["radiosity"] if t["radiosity"] > 0 else 0.0
        row["k_read_gbs"] = kgbs
        row["k_read_fraction"] = kgbs / args.bandwidth_gbs if args.bandwidth_gbs else ""
        row["command"] = " ".join(cmd)
        rows.append(row)
        print(f"  {name}: N={n}, total {t['total']:.2f} s", flush=True)

    csv_path = os.path.join(args.out, "phases.csv")
    write_csv(csv_path, rows)

    head = ["scene", "N", "backend", "path"] + PHASES + ["total", "GRays/s", "ms/step", "loop ms/step",
                                                         "G pair-steps/s", "K-equiv GB/s"]
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = [r["scene"], str(r["triangles"]), r["backend"], r["visibility_path"]]
        cells += [f"{r[p + '_s']:.3f}" for p in PHASES]
        cells += [f"{r['total_s']:.2f}", f"{r['grays_per_s']:.3f}", f"{r['radiosity_ms_per_step']:.3f}",
                  f"{r['loop_ms_per_step']:.3f}" if r["loop_ms_per_step"] != "" else "-",
                  f"{r['pair_steps_per_s'] / 1e9:.1f}",
                  f"{r['k_read_gbs']:.1f}" + (f" ({100 * r['k_read_fraction']:.0f}%)" if r["k_read_fraction"] != "" else "")]
        print("| " + " | ".join(cells) + " |")
    print(f"\nCSV: {csv_path}")

    plt = pyplot() if args.plot else None
    if plt:
        fig, ax = plt.subplots(figsize=(8, 4))
        bottom = [0.0] * len(rows)
        for p in PHASES:
            vals = [r[p + "_s"] for r in rows]
            ax.bar([r["scene"] for r in rows], vals, bottom=bottom, label=p)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_ylabel("seconds")
        ax.set_title(f"rsim per-phase time ({rows[0]['backend']}, S={args.samples}, T={args.timesteps})")
        ax.legend(fontsize=8)
        fig.tight_layout()
        png = os.path.join(args.out, "phases.png")
        fig.savefig(png, dpi=120)
        print(f"plot: {png}")


if __name__ == "__main__":
    main()
