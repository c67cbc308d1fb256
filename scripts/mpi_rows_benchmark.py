#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""MPI row-block mode (issue 20) against one process: one scene on the CPU backend as one
process and under `mpirun -np R` (each rank owning a block of K's rows), with the far sums'
exchange per time block: the bytes each rank receives and the time rank 0 waited for them,
beside the network model of docs/scaling.md. Checks that the distances agree bit for bit.

    scripts/mpi_rows_benchmark.py --rsim build/rsim --scene medium-room --ranks 1,2 \\
        --timesteps 300 --samples 1 --out /tmp/mpi-rows

Prints a table, writes mpi-rows.csv and mpi-rows.png into --out."""
import argparse
import filecmp
import math
import os
import shutil
import sys

from rsim_bench import QUIET, print_command, pyplot, run_rsim, scene_file, write_csv

WHO = "mpi_rows_benchmark"
BLOCK = 8                # RSIM_TIME_BLOCK: steps per far gather and exchange
CPU_SUM_BYTES = 2 * 8    # the CPU's far sums: B and Z in double, per row, step and pose
GPU_SUM_BYTES = 2 * 4    # the GPU's: B and Z in fp32


def received_bytes(n, rows_of_rank, poses, sum_bytes):
    """Bytes of far sums a rank receives per time block: every other rank's rows."""
    return (n - rows_of_rank) * poses * BLOCK * sum_bytes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default="build/rsim")
    ap.add_argument("--mpirun", default=shutil.which("mpirun") or "mpirun")
    ap.add_argument("--scene", default="medium-room")
    ap.add_argument("--ranks", default="1,2", help="comma-separated; 1 is one process without mpirun")
    ap.add_argument("--timesteps", type=int, default=300)
    ap.add_argument("--samples", type=int, default=1)
    ap.add_argument("--out", default="/tmp/rsim-mpi-rows")
    args = ap.parse_args()
    print_command(WHO)
    os.makedirs(args.out, exist_ok=True)
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    scene = scene_file(args.rsim, args.scene)
    options = ["--backend", "cpu", "--timesteps", str(args.timesteps), "--samples", str(args.samples),
               "--no-k-cache", "--no-images", *QUIET]
    rows, first = [], None
    for r in [int(x) for x in args.ranks.split(",")]:
        out = os.path.join(args.out, f"ranks{r}")
        if r == 1:
            run = run_rsim(args.rsim, scene, out, options, who=WHO)
        else:
            run = run_rsim(args.mpirun, scene, out, options, global_options=["--oversubscribe", "-np", str(r), args.rsim],
                           who=WHO)
        s = run.summary
        n = s["counts"]["triangles"]
        blocks = math.ceil(args.timesteps / BLOCK)
        rows0 = s["mpi"]["rows_of_ranks"][0] if r > 1 else n
        wait = run.detail("radiosity_exchange")
        same = first is None or filecmp.cmp(os.path.join(first.out, "triangles.csv"),
                                            os.path.join(out, "triangles.csv"), shallow=False)
        first = first or run
        rows.append({
            "scene": args.scene, "triangles": n, "ranks": r, "wall_s": round(run.wall_s, 3),
            "visibility_s": round(run.timing("visibility"), 3), "radiosity_s": round(run.timing("radiosity"), 3),
            "rays": s["rays"]["visibility"], "blocks": blocks,
            "rank0_receives_mb_per_block": round(received_bytes(n, rows0, 1, CPU_SUM_BYTES) / 1e6, 3) if r > 1 else 0,
            "rank0_wait_ms_per_block": round(1e3 * wait / blocks, 4) if r > 1 else 0,
            "distances_bit_identical": same,
        })
    fields = list(rows[0])
    print("| " + " | ".join(fields) + " |")
    print("|" + "---|" * len(fields))
    for row in rows:
        print("| " + " | ".join(str(row[f]) for f in fields) + " |")
    write_csv(os.path.join(args.out, "mpi-rows.csv"), rows)
    plt = pyplot(WHO)
    if plt:
        fig, ax = plt.subplots(figsize=(6, 4))
        labels = [str(row["ranks"]) for row in rows]
        ax.bar(labels, [row["visibility_s"] for row in rows], label="visibility")
        ax.bar(labels, [row["radiosity_s"] for row in rows], bottom=[row["visibility_s"] for row in rows],
               label="radiosity")
        ax.set_xlabel("ranks (1: one process)")
        ax.set_ylabel("s")
        ax.set_title(f"{args.scene}, CPU backend, row-block mode")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "mpi-rows.png"), dpi=120)
    if not all(row["distances_bit_identical"] for row in rows):
        sys.exit(f"{WHO}: distances differ from one process's")


if __name__ == "__main__":
    main()
