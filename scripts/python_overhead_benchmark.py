#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`import rsim` against `rsim run` (issue 16): the same poses of one scene as one batch, whole
process each (a fresh python3 that imports rsim, loads the scene and runs; the CLI with
--poses), interleaved REPEAT times, K cache off. Prints medians and their ratio.

    PYTHONPATH=build/python scripts/python_overhead_benchmark.py --rsim build/rsim --scene tiny-room --poses 8
"""
import argparse
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import print_command, run_timed, scene_file  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default="build/rsim")
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--scene", default="tiny-room")
    ap.add_argument("--poses", type=int, default=8)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tmp", default="/tmp/rsim-python-overhead")
    a = ap.parse_args()
    print_command("python_overhead_benchmark")
    os.makedirs(a.tmp, exist_ok=True)
    scene = scene_file(a.rsim, a.scene)
    poses_csv = os.path.join(a.tmp, "poses.csv")
    subprocess.run([a.rsim, "poses", scene, "--orbit", str(a.poses), "-o", poses_csv], check=True,
                   stdout=subprocess.DEVNULL)
    script = (
        "import csv, numpy as np, rsim\n"
        f"rows = list(csv.DictReader(open({poses_csv!r})))\n"
        "poses = np.array([[float(r[k]) for k in ('x','y','z','look_x','look_y','look_z')] for r in rows])\n"
        f"sim = rsim.Simulator(rsim.Scene.load({scene!r}), backend={a.backend!r}, k_cache=False)\n"
        "res = sim.run(poses)\n"
        "assert res['range_m'].shape[0] == len(rows)\n")
    cli = [a.rsim, "run", scene, "--poses", poses_csv, "--backend", a.backend, "--no-k-cache", "--no-timeseries",
           "--no-progress", "-q", "-o", os.path.join(a.tmp, "cli")]
    py = [a.python, "-c", script]
    times = {"cli": [], "python": []}
    for _ in range(a.repeat):
        times["cli"].append(run_timed(cli, "python_overhead_benchmark")[0])
        times["python"].append(run_timed(py, "python_overhead_benchmark")[0])
    cli_s, py_s = statistics.median(times["cli"]), statistics.median(times["python"])
    print("| scene | poses | backend | rsim run --poses | import rsim | ratio |")
    print("|---|---|---|---|---|---|")
    print(f"| {a.scene} | {a.poses} | {a.backend} | {cli_s:.3f} s | {py_s:.3f} s | {py_s / cli_s:.3f} |")
    print("runs:", {k: [round(v, 3) for v in vs] for k, vs in times.items()})


if __name__ == "__main__":
    main()
