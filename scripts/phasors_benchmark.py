#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 61: the AMCW transport in the frequency domain (`simulation.transport = "phasors"`,
MODEL.md section 11) against the time-stepped one ("radiosity"), one pose and a batch of P poses
(`rsim poses --orbit P`), K from the K cache (stored by a first run), AMCW at the given
modulation frequencies. Reports the transport phase of summary.json (`radiosity` or `phasors`),
the whole process, and the phasors' iterations. Prints a table and writes phasors.csv into --out.

    scripts/phasors_benchmark.py --rsim build/rsim --scenes medium-room,large-room --poses 1,32 \\
        --backend vulkan --repeats 3 --out bench/phasors
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess

from rsim_bench import QUIET, print_command, run_rsim, scene_file, write_csv, write_table

TRANSPORTS = ("radiosity", "phasors")


def options(args, transport):
    return ["--backend", args.backend, "--k-cache", args.k_cache, *QUIET, "--no-images" if args.no_images else "",
            "--set", "sensor.mode=\"amcw\"", "--set", f"sensor.modulation_mhz=[{args.mhz}]",
            "--set", f"simulation.transport=\"{transport}\"", *args.extra.split()]


def poses_file(args, scene, count):
    path = os.path.join(args.tmp, f"poses-{os.path.basename(os.path.dirname(scene))}-{count}.csv")
    subprocess.run([args.rsim, "poses", scene, "--orbit", str(count), "-o", path, "-q"], check=True)
    return path


def iterations(out, poses):
    """The phasors' iterations (sweeps over K) of the run's first pose, and its frequencies' counts."""
    first = out if poses == 1 else os.path.join(out, sorted(d for d in os.listdir(out)
                                                             if os.path.isdir(os.path.join(out, d)))[0])
    with open(os.path.join(first, "summary.json")) as f:
        p = json.load(f).get("phasors", {})
    return p.get("sweeps", ""), "/".join(str(i) for i in p.get("iterations", []))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default="build/rsim")
    ap.add_argument("--scenes", default="medium-room,large-room")
    ap.add_argument("--poses", default="1,32", help="poses per run, comma-separated")
    ap.add_argument("--backend", default="vulkan")
    ap.add_argument("--mhz", default="20,50", help="sensor.modulation_mhz (comma-separated)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each case (medians)")
    ap.add_argument("--no-images", action="store_true", help="no images (the transport alone)")
    ap.add_argument("--extra", default="", help="more rsim run options for every run")
    ap.add_argument("--out", default="bench/phasors")
    ap.add_argument("--tmp", default="/tmp/rsim-phasors-bench")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    shutil.rmtree(args.tmp, ignore_errors=True)
    os.makedirs(args.tmp)
    args.k_cache = os.path.join(args.tmp, "k-cache")
    rows = []
    for name in args.scenes.split(","):
        scene = scene_file(args.rsim, name)
        # K computed once into the cache; every timed run reads it.
        run_rsim(args.rsim, scene, os.path.join(args.tmp, "warm"), [o for o in options(args, "phasors") if o])
        for count in (int(p) for p in args.poses.split(",")):
            more = [] if count == 1 else ["--poses", poses_file(args, scene, count)]
            for transport in TRANSPORTS:
                runs = []
                for _ in range(args.repeats):
                    runs.append(run_rsim(args.rsim, scene, os.path.join(args.tmp, "run"),
                                         [o for o in options(args, transport) if o] + more, who="phasors_benchmark"))
                    assert runs[-1].summary["k_from_cache"], "K was not read from the K cache"
                sweeps, per_freq = iterations(runs[-1].out, count) if transport == "phasors" else ("", "")
                row = {"scene": name, "triangles": runs[-1].summary.get("counts", {}).get("triangles", ""), "poses": count,
                       "transport": transport, "backend": args.backend, "mhz": args.mhz,
                       "transport_s": round(statistics.median(r.timing(transport) for r in runs), 4),
                       "transport_s_all": " ".join(f"{r.timing(transport):.4f}" for r in runs),
                       "process_s": round(statistics.median(r.wall_s for r in runs), 3),
                       "iterations": sweeps, "iterations_per_frequency": per_freq,
                       "command": runs[-1].command}
                print(f"{name} {count} pose(s) {transport}: {row['transport_s']:.4f} s of transport, "
                      f"{row['process_s']:.3f} s whole{', ' + str(sweeps) + ' iterations' if sweeps != '' else ''}",
                      flush=True)
                rows.append(row)
    write_csv(os.path.join(args.out, "phasors.csv"), rows)
    table = []
    for r in rows:
        if r["transport"] != "phasors":
            continue
        base = next(b for b in rows if b["scene"] == r["scene"] and b["poses"] == r["poses"]
                    and b["transport"] == "radiosity")
        table.append([r["scene"], str(r["poses"]), f"{base['transport_s']:.4f}", f"{r['transport_s']:.4f}",
                      f"{base['transport_s'] / max(r['transport_s'], 1e-9):.1f}x", str(r["iterations"]),
                      f"{base['process_s']:.2f} / {r['process_s']:.2f}"])
    write_table(os.path.join(args.out, "phasors.md"),
                ["scene", "poses", "radiosity s", "phasors s", "speed-up", "iterations", "whole process s (r / p)"],
                table)
    print_command("phasors_benchmark")


if __name__ == "__main__":
    main()
