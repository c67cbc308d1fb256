#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Single- versus multi-GPU benchmark (issues 5 and 6), like the paper's Section 6.3-6.4.

Runs `rsim run` with the Vulkan backend and writes CSV, Markdown and plots:
  scaling      each scene on 1..G GPUs: total and radiosity time, speedup (paper Figure 11)
  exchange     the host's part of combining far sums across GPUs per timestep block
               (timings_detail_s.radiosity_exchange of the scaling runs; the former
               RSIM_NO_EXCHANGE runs, which skipped the exchange and gave wrong results, are gone)
  streaming    each K format resident (--stream never) and streamed (--stream always) on one
               GPU: throughput ratio (paper Figure 10: 36% fp32, 58% fp16, 81% LUT), and
               the host-to-device rate achieved
  oversized    a scene whose K (default format) exceeds a per-GPU memory cap (--max-device-mb;
               filling a device's 141 GB would need ~375,000 triangles, minutes of visibility
               per run): streamed on 1 GPU, resident once spread over enough GPUs

  scripts/multigpu_benchmark.py --gpus 1,2 --out bench/multigpu
  scripts/multigpu_benchmark.py --gpus 1,2,3,4 --out bench/multigpu4     # issue 6
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import ROOT, print_command, pyplot, run_rsim, scene_file, write_csv  # noqa: E402

SCENES = "small-room,medium-room,large-room,traffic,industry"


def run(args, rsim, scene, extra):
    r = run_rsim(rsim, scene, os.path.join(args.tmp, "run"),
                 ["--backend", "vulkan", "--samples", "16", "--timesteps", str(args.timesteps), "--no-timeseries",
                  "--no-images", "--no-progress", "--log-level", "warn"] + extra)
    return dict(r.summary, _wall=r.wall_s, _cmd=r.command)


def detail(s, key):
    return s.get("timings_detail_s", {}).get(key, 0.0)


REPEAT_DEVICE = False


def devices_arg(g):
    # --repeat-device: device 0 opened g times (a dry run on one GPU or on lavapipe).
    return ",".join("0" if REPEAT_DEVICE else str(k) for k in range(g))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default="build/rsim")
    ap.add_argument("--gpus", default="1,2", help="GPU counts to compare (devices 0..g-1)")
    ap.add_argument("--scenes", default=SCENES)
    ap.add_argument("--timesteps", type=int, default=1000)
    ap.add_argument("--parts", default="scaling,exchange,streaming,oversized")
    ap.add_argument("--stream-scenes", default="medium-room,large-room")
    ap.add_argument("--stream-formats", default="fp32,fp16,lut8-log")
    ap.add_argument("--oversized-scene", default="industry")
    ap.add_argument("--oversized-format", default="lut8-log", help="K format of the oversized run (default: rsim's)")
    ap.add_argument("--cap-mb", type=float, default=3072.0,
                    help="memory cap per GPU (--max-device-mb) under which the oversized scene's K does not fit one GPU")
    ap.add_argument("--out", default="bench/multigpu")
    ap.add_argument("--tmp", default="/tmp/rsim-multigpu")
    ap.add_argument("--repeat-device", action="store_true",
                    help="use device 0 for every GPU slot (dry run on a machine with one device)")
    args = ap.parse_args()
    global REPEAT_DEVICE
    REPEAT_DEVICE = args.repeat_device
    root = ROOT
    rsim = os.path.abspath(args.rsim)
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.tmp, exist_ok=True)
    gpus = [int(g) for g in args.gpus.split(",")]
    parts = set(args.parts.split(","))
    print_command("benchmark")
    # Warm the driver's shader cache so that no run pays for compiling pipelines.
    run(args, rsim, scene_file(rsim, "tiny-room", root), ["--devices", devices_arg(max(gpus))])

    if "scaling" in parts or "exchange" in parts:
        rows = []
        for name in args.scenes.split(","):
            scene = scene_file(rsim, name, root)
            base = None
            for g in gpus:
                s = run(args, rsim, scene, ["--devices", devices_arg(g)])
                t = s["timings_s"]
                row = {"scene": name, "triangles": s["counts"]["triangles"], "gpus": g, "k_format": s["k_format"],
                       "streaming": s["streaming"], "total_s": t["total"], "visibility_s": t["visibility"],
                       "compress_s": t.get("compress", 0.0), "near_lists_s": detail(s, "near_lists"),
                       "k_placement_s": detail(s, "k_placement"),
                       "radiosity_s": t["radiosity"], "radiosity_loop_s": detail(s, "radiosity_loop"),
                       "exchange_host_s": detail(s, "radiosity_exchange"), "wall_s": s["_wall"], "command": s["_cmd"]}
                if g == 1:
                    base = row
                row["speedup_total"] = base["total_s"] / row["total_s"]
                row["speedup_radiosity_loop"] = base["radiosity_loop_s"] / row["radiosity_loop_s"]
                row["exchange_overhead_s"] = row["exchange_host_s"] if "exchange" in parts and g > 1 else ""
                rows.append(row)
                print(f"  {name} x{g}: total {row['total_s']:.2f} s (x{row['speedup_total']:.2f}), radiosity loop "
                      f"{row['radiosity_loop_s']:.3f} s (x{row['speedup_radiosity_loop']:.2f})", flush=True)
        write_csv(os.path.join(args.out, "scaling.csv"), rows)
        print("\n| scene | N | GPUs | total (s) | speedup | radiosity loop (s) | speedup | exchange overhead |")
        print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            ov = ""
            if r["exchange_overhead_s"] != "":
                ov = f"{r['exchange_overhead_s']:.3f} s ({100 * r['exchange_overhead_s'] / r['radiosity_loop_s']:.0f}%)"
            print(f"| {r['scene']} | {r['triangles']} | {r['gpus']} | {r['total_s']:.2f} | {r['speedup_total']:.2f} | "
                  f"{r['radiosity_loop_s']:.3f} | {r['speedup_radiosity_loop']:.2f} | {ov} |")
        plt = pyplot()
        if plt:
            fig, ax = plt.subplots(figsize=(7, 4))
            for name in args.scenes.split(","):
                rs = [r for r in rows if r["scene"] == name]
                ax.plot([r["gpus"] for r in rs], [r["speedup_total"] for r in rs], marker="o", label=name)
            ax.plot(gpus, gpus, "k:", label="linear")
            ax.set_xlabel("GPUs")
            ax.set_ylabel("speedup over 1 GPU (total)")
            ax.set_xticks(gpus)
            ax.legend(fontsize=8)
            ax.grid(alpha=0.3)
            fig.tight_layout()
            fig.savefig(os.path.join(args.out, "scaling.png"), dpi=120)

    if "streaming" in parts:
        rows = []
        for name in args.stream_scenes.split(","):
            scene = scene_file(rsim, name, root)
            for fmt in args.stream_formats.split(","):
                res = run(args, rsim, scene, ["--devices", "0", "--kij", fmt, "--stream", "never"])
                st = run(args, rsim, scene, ["--devices", "0", "--kij", fmt, "--stream", "always"])
                row = {"scene": name, "k_format": fmt, "k_bytes": st["k_bytes"],
                       "loop_resident_s": detail(res, "radiosity_loop"), "loop_streamed_s": detail(st, "radiosity_loop"),
                       "streamed_gib": detail(st, "streamed_gib"), "streamed_gbs": detail(st, "streamed_gib") * 1.073741824 / max(detail(st, "radiosity_loop"), 1e-9)}
                row["throughput_ratio"] = row["loop_resident_s"] / row["loop_streamed_s"]
                rows.append(row)
                print(f"  {name} {fmt}: resident {row['loop_resident_s']:.3f} s, streamed {row['loop_streamed_s']:.3f} s "
                      f"({100 * row['throughput_ratio']:.0f}%), {row['streamed_gbs']:.1f} GB/s", flush=True)
        write_csv(os.path.join(args.out, "streaming.csv"), rows)
        print("\n| scene | K format | K | radiosity loop resident | streamed | throughput | host->device |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['scene']} | {r['k_format']} | {r['k_bytes'] / 2**30:.2f} GiB | {r['loop_resident_s']:.3f} s | "
                  f"{r['loop_streamed_s']:.3f} s | {100 * r['throughput_ratio']:.0f}% | {r['streamed_gbs']:.1f} GB/s |")

    if "oversized" in parts:
        rows = []
        scene = scene_file(rsim, args.oversized_scene, root)
        for g in gpus:
            s = run(args, rsim, scene, ["--devices", devices_arg(g), "--kij", args.oversized_format,
                                        "--max-device-mb", str(args.cap_mb)])
            rows.append({"scene": args.oversized_scene, "gpus": g, "k_format": s["k_format"], "cap_mb": args.cap_mb,
                         "k_bytes": s["k_bytes"],
                         "streaming": s["streaming"], "total_s": s["timings_s"]["total"],
                         "radiosity_loop_s": detail(s, "radiosity_loop"), "command": s["_cmd"],
                         "device_memory": json.dumps(s.get("device_memory", []))})
            print(f"  {args.oversized_scene} {s['k_format']} cap {args.cap_mb:.0f} MiB x{g}: streamed={s['streaming']}, "
                  f"total {s['timings_s']['total']:.2f} s, loop {detail(s, 'radiosity_loop'):.3f} s", flush=True)
        write_csv(os.path.join(args.out, "oversized.csv"), rows)
    print("\nCSV and plots in", args.out)


if __name__ == "__main__":
    main()
