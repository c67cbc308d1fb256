#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the pixel outputs of images.h5 cost (issue 15): whole-process wall time and the
distance and output phases of `rsim run` on one scene, for an older rsim without them (--old)
and this one, pulsed and AMCW (every pixel output on: ground truth, direct-only range, AMCW
phasors and taps, images.exr; then the sensor model too), interleaved REPEAT times; then this rsim with the whole transient cube, whose
cost is reported apart. Prints a table of medians and writes pixel_outputs.csv into --out.

    scripts/pixel_outputs_benchmark.py --old /tmp/old/rsim --rsim build/rsim --scene medium-room
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import print_command, run_rsim, scene_file, write_csv  # noqa: E402

AMCW = ["--set", 'sensor.mode="amcw"', "--set", "sensor.modulation_mhz=[20.0, 50.0]"]
CASES = [  # name, which binary, options
    ("pulsed, before", "old", []),
    ("pulsed, pixel outputs", "new", []),
    ("amcw, before", "old", AMCW),
    ("amcw, pixel outputs (square, 4 taps)", "new", AMCW + ["--set", 'sensor.waveform="square"']),
    ("amcw, pixel outputs and the sensor model", "new",
     AMCW + ["--set", 'sensor.waveform="square"', "--set", "sensor_model.enabled=true"]),
]
TRANSIENT = ("pulsed, pixel outputs and the whole transient cube", "new", ["--set", "output.transient=true"])


def run(binary, scene, backend, out, options):
    r = run_rsim(binary, scene_file(binary, scene), out,
                 ["--backend", backend, "--no-timeseries", "--no-progress", "-q", "--no-k-cache", *options],
                 who="pixel_outputs_benchmark")
    size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    return {"wall_s": r.wall_s, "phases_s": r.timing("total"), "distance_s": r.timing("distance"),
            "output_s": r.timing("output"), "results_bytes": size}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="an rsim without the pixel outputs")
    ap.add_argument("--rsim", default="build/rsim")
    ap.add_argument("--scene", default="medium-room")
    ap.add_argument("--backend", default="vulkan")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="bench/pixel-outputs")
    ap.add_argument("--tmp", default="/tmp/rsim-pixel-outputs")
    a = ap.parse_args()
    print_command("pixel_outputs_benchmark")
    os.makedirs(a.out, exist_ok=True)
    binaries = {"old": a.old, "new": a.rsim}
    rows = []
    run(a.rsim, a.scene, a.backend, os.path.join(a.tmp, "warm"), [])  # warm driver and caches
    for r in range(a.repeat):
        for name, which, options in CASES + ([TRANSIENT] if r < 2 else []):
            row = {"case": name, "run": r, **run(binaries[which], a.scene, a.backend, os.path.join(a.tmp, "r"), options)}
            rows.append(row)
            print(f"{name} run {r}: " + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                                                  for k, v in row.items() if k not in ("case", "run")), flush=True)
    write_csv(os.path.join(a.out, "pixel_outputs.csv"), rows)
    cols = ["wall_s", "phases_s", "distance_s", "output_s", "results_bytes"]
    print(f"\n{a.scene}, {a.backend}, medians of {a.repeat} runs (the transient: 2)")
    print("| case | " + " | ".join(cols) + " |")
    print("|---" * (1 + len(cols)) + "|")
    for name, _, _ in CASES + [TRANSIENT]:
        rs = [r for r in rows if r["case"] == name]
        med = [statistics.median(r[c] for r in rs) for c in cols]
        print(f"| {name} | " + " | ".join(f"{v:.3f}" if c != "results_bytes" else f"{v / 1e6:.1f} MB"
                                         for c, v in zip(cols, med)) + " |")


if __name__ == "__main__":
    main()
