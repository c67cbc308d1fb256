#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Batches (issue 14): whole-process wall time of P poses of one scene in one `rsim run --poses`
(K computed once, the transport of a group of poses at once), against the same poses as
separate runs, and one pose with K from the K cache. Prints a table and writes batch.csv (and
batch.png when matplotlib is there) into --out.

The radiosity's useful arithmetic is 4 FLOPs (two FMAs, B and Z) per pose for every far
pair-step: every ordered pair with K_ij > 0 and delay tau_ij >= 8 contributes T - tau_ij steps.
With --count-flops the script counts those pairs from a run with --write-kij (N x N float32 in
timeseries.h5: medium-sized scenes only).

    scripts/batch_benchmark.py --rsim build/rsim --scene medium-room --poses 1,8,32,128 \\
        --separate 8 --cache --count-flops --out bench/batch
"""
import argparse
import json
import math
import os
import shutil
import subprocess

from rsim_bench import QUIET, print_command, pyplot, run_timed, scene_file, write_csv

C_M_PER_NS = 0.299792458


def run(cmd):
    return run_timed(cmd, "batch_benchmark")


def outside_phases(s, wall):
    """The phases' sum and what lies outside them, from a summary.json: start-up before the first
    phase (process to main, instance, device: the pipelines are inside the phases), the process's
    age at summary.json, and the exit after it."""
    up = s.get("startup_s", {})
    process = s.get("process_s", float("nan"))
    return {"phases_s": round(sum(v for k, v in s["timings_s"].items() if k != "total"), 4),
            "startup_s": round(sum(v for k, v in up.items() if not k.startswith(("pipeline", "vkCreateDevice"))), 4),
            "process_s": round(process, 4), "exit_s": round(wall - process, 4)}


def far_pair_steps(h5file, dt_ns, T):
    """Sum over ordered pairs with K > 0 and tau >= 8 of max(0, T - tau)."""
    import h5py
    import numpy as np
    with h5py.File(h5file) as f:
        K = f["K"]
        c = f["geometry/centroid"][:].astype(np.float64)
        n = K.shape[0]
        cdt = C_M_PER_NS * dt_ns
        total = 0
        for r0 in range(0, n, 512):
            rows = K[r0:r0 + 512, :]
            d = np.linalg.norm(c[r0:r0 + 512, None, :] - c[None, :, :], axis=2)
            tau = np.maximum(1, np.floor(d / cdt + 0.5))
            mask = (rows > 0) & (tau >= 8) & (tau < T)
            total += int(np.sum(T - tau[mask]))
        return total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default="build/rsim")
    ap.add_argument("--scene", default="medium-room")
    ap.add_argument("--poses", default="1,8,32,128", help="batch sizes to run")
    ap.add_argument("--separate", type=int, default=0, help="also run this many poses as separate runs")
    ap.add_argument("--cache", action="store_true", help="also: one pose twice with a K cache")
    ap.add_argument("--count-flops", action="store_true")
    ap.add_argument("--backend", default="vulkan")
    ap.add_argument("--options", default="", help="extra rsim run options")
    ap.add_argument("--out", default="bench/batch")
    ap.add_argument("--tmp", default="/tmp/rsim-batch")
    ap.add_argument("--peak-tflops", type=float, default=0.0, help="the GPU's fp32 peak, for the table")
    a = ap.parse_args()
    print_command("batch_benchmark")
    os.makedirs(a.out, exist_ok=True)
    shutil.rmtree(a.tmp, ignore_errors=True)
    os.makedirs(a.tmp)
    scene = scene_file(a.rsim, a.scene)
    base = ["--backend", a.backend, "--no-k-cache", *QUIET, *a.options.split()]
    sizes = [int(x) for x in a.poses.split(",") if x]

    def poses_file(p):
        path = os.path.join(a.tmp, f"orbit-{p}.csv")
        with open(path, "w") as f:
            f.write(subprocess.run([a.rsim, "poses", scene, "--orbit", str(p)], capture_output=True, text=True,
                                   check=True).stdout)
        return path

    flops_per_pose = None
    if a.count_flops:
        out = os.path.join(a.tmp, "kij")
        run([a.rsim, "run", scene, "--output", out, "--backend", a.backend, "--no-k-cache", "--write-kij",
             "--no-images", "--no-progress", "--log-level", "warn", *a.options.split()])
        s = json.load(open(os.path.join(out, "summary.json")))
        T, dt = s["settings"]["simulation"]["timesteps"], s["settings"]["simulation"]["dt_ns"]
        flops_per_pose = 4 * far_pair_steps(os.path.join(out, "timeseries.h5"), dt, T)
        shutil.rmtree(out)

    cols = ["scene", "mode", "poses", "wall_s", "per_pose_s", "marginal_s", "group_size", "visibility_s", "direct_s",
            "radiosity_s", "radiosity_loop_s", "download_s", "distance_s", "output_s", "k_read_gbs", "gflops",
            "of_peak_pct", "k_cache_s", "phases_s", "startup_s", "process_s", "exit_s"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols), flush=True)

    def show(r):
        print("| " + " | ".join(str(r.get(c, "")) for c in cols) + " |", flush=True)

    rows = []
    for p in sizes:
        out = os.path.join(a.tmp, f"batch-{p}")
        wall, _ = run([a.rsim, "run", scene, "--output", out, "--poses", poses_file(p), *base])
        s = json.load(open(os.path.join(out, "summary.json")))
        t, d = s["timings_s"], s.get("timings_detail_s", {})
        loop = d.get("radiosity_loop", float("nan")) # summed over the pose groups
        row = {"scene": a.scene, "mode": "batch", "poses": p, "wall_s": round(wall, 3),
               "per_pose_s": round(wall / p, 4), "group_size": s["batch"]["group_size"], "groups": s["batch"]["groups"],
               "k_bytes": s["k_bytes"]}
        for k in ("load", "accel", "direct", "visibility", "compress", "radiosity", "download", "distance", "output"):
            row[k + "_s"] = round(t.get(k, 0.0), 4)
        row["radiosity_loop_s"] = round(loop, 4)
        row.update(outside_phases(s, wall))
        shutil.copy(os.path.join(out, "summary.json"), os.path.join(a.out, f"summary-batch-{p}.json"))
        # The far gather requests K once per 8-step block with a far gather (all but the first)
        # for every pose: one workgroup per pose block reads it (from L2 or DRAM).
        T = json.load(open(os.path.join(out, s["poses"][0]["name"], "summary.json")))["settings"]["simulation"]["timesteps"]
        blocks = max(0, math.ceil(T / 8) - 1)
        row["k_read_gb"] = round(s["k_bytes"] * blocks * p / 1e9, 2)
        row["k_read_gbs"] = round(row["k_read_gb"] / loop, 1) if loop == loop and loop > 0 else ""
        if flops_per_pose:
            row["gflops"] = round(flops_per_pose * p / loop / 1e9, 1)
            if a.peak_tflops:
                row["of_peak_pct"] = round(100 * flops_per_pose * p / loop / 1e12 / a.peak_tflops, 2)
        if rows:
            row["marginal_s"] = round((wall - rows[-1]["wall_s"]) / (p - rows[-1]["poses"]), 4)
        rows.append(row)
        show(row)
        shutil.rmtree(out)

    if a.separate:
        path = poses_file(max(a.separate, 2))
        lines = open(path).read().splitlines()
        walls = []
        for k in range(a.separate):
            one = os.path.join(a.tmp, f"one-{k}.csv")
            open(one, "w").write(lines[0] + "\n" + lines[1 + k] + "\n")
            wall, _ = run([a.rsim, "run", scene, "--output", os.path.join(a.tmp, f"sep-{k}"), "--poses", one, *base])
            walls.append(wall)
            shutil.rmtree(os.path.join(a.tmp, f"sep-{k}"))
        rows.append({"scene": a.scene, "mode": "separate", "poses": a.separate, "wall_s": round(sum(walls), 3),
                     "per_pose_s": round(sum(walls) / len(walls), 4)})
        show(rows[-1])

    if a.cache:
        one = os.path.join(a.tmp, "one.csv")
        lines = open(poses_file(2)).read().splitlines()
        open(one, "w").write(lines[0] + "\n" + lines[1] + "\n")
        cache = os.path.join(a.tmp, "kcache")
        opts = [o for o in base if o != "--no-k-cache"] + ["--k-cache", cache]
        for label in ("cache-store", "cache-load"):
            out = os.path.join(a.tmp, label)
            wall, _ = run([a.rsim, "run", scene, "--output", out, "--poses", one, *opts])
            s = json.load(open(os.path.join(out, "summary.json")))
            rows.append({"scene": a.scene, "mode": label, "poses": 1, "wall_s": round(wall, 3), "per_pose_s": round(wall, 3),
                         "visibility_s": round(s["timings_s"].get("visibility", 0.0), 4),
                         "k_cache_s": round(s["timings_s"].get("k_cache", 0.0), 4), "k_from_cache": s["k_from_cache"],
                         **outside_phases(s, wall)})
            shutil.copy(os.path.join(out, "summary.json"), os.path.join(a.out, f"summary-{label}.json"))
            show(rows[-1])
            shutil.rmtree(out)

    if flops_per_pose:
        print(f"useful radiosity FLOPs per pose: {flops_per_pose:.4g}")
    write_csv(os.path.join(a.out, "batch.csv"), rows)
    plt = pyplot("batch_benchmark")
    batch = [r for r in rows if r["mode"] == "batch"]
    if plt and len(batch) > 1:
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot([r["poses"] for r in batch], [r["wall_s"] for r in batch], "o-", label="one batch")
        sep = [r for r in rows if r["mode"] == "separate"]
        if sep:
            per = sep[0]["per_pose_s"]
            ax.plot([r["poses"] for r in batch], [per * r["poses"] for r in batch], "s--", label="separate runs (extrapolated)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("poses")
        ax.set_ylabel("whole process, s")
        ax.set_title(f"{a.scene}: poses per run")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(a.out, "batch.png"), dpi=120)


if __name__ == "__main__":
    main()
