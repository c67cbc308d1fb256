#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The CPU backend and the GPU side by side on one machine (issue 62): the same `rsim run` on
each scene with `--backend cpu` and `--backend vulkan`, the two alternating, medians of
--repeat runs; per phase (visibility, radiosity or phasors, the rest) and whole process, with
the GPU's speed-up as one ratio measured in one call. Prints a Markdown table, writes
cpu_gpu.csv into --out and prints its command line.

  scripts/cpu_gpu_benchmark.py --scenes tiny-room,medium-room,large-room --repeat 3 --out bench/cpu-gpu

K is computed by each run (--no-k-cache) unless `-- --k-cache DIR` is given (each backend
stores its own K there). Scenes are taken from scenes/<name>/scene.toml, or generated into
scenes/generated/<name>.
"""
import argparse
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import QUIET, ROOT, print_command, run_rsim, scene_file, write_csv  # noqa: E402

BACKENDS = ["cpu", "vulkan"]


def phases(summary):
    t = summary["timings_s"]
    transport = t.get("radiosity", 0.0) + t.get("phasors", 0.0) + t.get("paths", 0.0)
    return {"visibility": t.get("visibility", 0.0), "transport": transport,
            "rest": t["total"] - t.get("visibility", 0.0) - transport, "process": summary["process_s"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default="build/rsim", help="rsim binary (default build/rsim)")
    ap.add_argument("--scenes", default="tiny-room,medium-room,large-room", help="comma-separated scene names")
    ap.add_argument("--repeat", type=int, default=1, help="runs per scene and backend; medians")
    ap.add_argument("--threads", type=int, default=0, help="the CPU backend's threads (0: every core)")
    ap.add_argument("--label", default="", help="label for the CSV rows (e.g. the machine)")
    ap.add_argument("--out", default="bench/cpu-gpu", help="folder for the CSV and the runs")
    ap.add_argument("extra", nargs="*", help="more rsim run options for both backends (after --)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    rsim = os.path.abspath(args.rsim)
    os.makedirs(args.out, exist_ok=True)
    print_command("cpu_gpu_benchmark")
    rows = []
    for name in [s for s in args.scenes.split(",") if s]:
        scene = scene_file(rsim, name, ROOT)
        runs = {b: [] for b in BACKENDS}
        commands = {}
        for rep in range(args.repeat):
            for b in BACKENDS:  # alternating, so that a drift of the machine's speed hits both
                out = os.path.join(args.out, f"{name}-{b}")
                options = ["--backend", b, *QUIET, *([] if "--k-cache" in " ".join(args.extra) else ["--no-k-cache"])]
                threads = ["--threads", str(args.threads)] if args.threads and b == "cpu" else []
                r = run_rsim(rsim, scene, out, options + args.extra, global_options=threads, who="cpu_gpu_benchmark")
                runs[b].append(phases(r.summary))
                commands[b] = " ".join(r.cmd)
                triangles = r.summary["counts"]["triangles"]
                shutil.rmtree(out, ignore_errors=True)
        row = {"label": args.label, "scene": name, "triangles": triangles, "runs": args.repeat}
        for b in BACKENDS:
            for p in ("visibility", "transport", "rest", "process"):
                row[f"{b}_{p}_s"] = statistics.median(x[p] for x in runs[b])
        for p in ("visibility", "transport", "process"):
            g = row[f"vulkan_{p}_s"]
            row[f"speedup_{p}"] = row[f"cpu_{p}_s"] / g if g > 0 else ""
        row["cpu_command"], row["gpu_command"] = commands["cpu"], commands["vulkan"]
        rows.append(row)
        print(f"  {name}: N={triangles}, CPU {row['cpu_process_s']:.2f} s, GPU {row['vulkan_process_s']:.2f} s",
              flush=True)
    csv_path = os.path.join(args.out, "cpu_gpu.csv")
    write_csv(csv_path, rows)
    print("\n| scene | N | visibility CPU / GPU | transport CPU / GPU | whole process CPU / GPU | GPU speed-up (process) |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        cells = [r["scene"], str(r["triangles"])]
        for p in ("visibility", "transport", "process"):
            cells.append(f"{r[f'cpu_{p}_s']:.3f} / {r[f'vulkan_{p}_s']:.3f} s")
        cells.append(f"{r['speedup_process']:.1f}x" if r["speedup_process"] != "" else "-")
        print("| " + " | ".join(cells) + " |")
    print(f"\nCSV: {csv_path}")


if __name__ == "__main__":
    main()
