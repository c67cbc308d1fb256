#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a run's time goes outside its phases (issue 21): whole-process wall time of `rsim run`
against summary.json's phases, start-up entries (`startup_s`: process start to main, Vulkan
instance, devices, each pipeline, first submit) and the time after the summary (shut-down and
exit; `shutdown_s` is empty where the command ended before its release, util/early_exit.h).
Runs each scene and backend REPEAT times, after one run that is reported as the first (cold
driver and caches on a fresh machine); optionally a scene with K from the K cache. The runs
write every default output but timeseries.h5 (--no-timeseries). Prints a table and writes
startup.csv into --out.

    scripts/startup_benchmark.py --rsim build/rsim --scenes tiny-room,medium-room --backends vulkan,cpu
"""
import argparse
import json
import os
import re
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import print_command, run_timed, scene_file, write_csv  # noqa: E402


def one_run(a, scene, backend, out, extra, rsim=None):
    # stderr holds the debug log with the shut-down line (run_rsim keeps only summary.json).
    rsim = rsim or a.rsim
    wall, log = run_timed([rsim, "run", scene_file(a.rsim, scene), "--backend", backend, "--output", out,
                       "--no-timeseries", "--no-progress", "--log-level", "debug"] + extra, "startup_benchmark")
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    phases = s["timings_s"]["total"]
    st = s.get("startup_s", {})
    m = re.search(r"shut-down: backend released in ([0-9.]+) s", log)
    row = {
        "scene": scene, "backend": backend, "wall_s": wall, "process_s": s.get("process_s"), "phases_s": phases,
        "outside_phases_s": (s["process_s"] - phases) if s.get("process_s") is not None else None,
        "after_summary_s": (wall - s["process_s"]) if s.get("process_s") is not None else None,
        "shutdown_s": float(m.group(1)) if m else None,
        "main_s": st.get("process start to main"),
        "instance_s": st.get("vulkan instance"),
        "devices_s": sum(v for k, v in st.items() if k.startswith("vulkan device")) if st else None,
        # Each pipeline's compile, summed (those made ahead overlap each other and the phases), and
        # what the run waited for the ones made ahead.
        "pipelines_s": sum(v for k, v in st.items() if k.startswith("pipeline ")) if st else None,
        "pipelines_waited_s": st.get("pipelines: waited for the warm-up", 0.0) if st else None,
        "first_submit_s": sum(v for k, v in st.items() if k.startswith("first submit")) if st else None,
        "k_from_cache": s.get("k_from_cache", s.get("k", {}).get("from_cache")),
        "cpu_phases": ",".join(s.get("cpu_phases", [])),
    }
    row["pipeline_detail"] = ";".join(f"{k[9:]}={v:.4f}" for k, v in st.items() if k.startswith("pipeline "))
    for k, v in s["timings_s"].items():
        row[f"phase_{k}"] = v
    row["log"] = log
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default="build/rsim")
    ap.add_argument("--scenes", default="tiny-room,medium-room")
    ap.add_argument("--backends", default="vulkan,cpu")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cache-scene", default="", help="also: these scenes (comma-separated) with --k-cache (store K, then read it)")
    ap.add_argument("--cache-repeat", type=int, default=2, help="runs that read K, per --host-rays mode")
    ap.add_argument("--host-rays", default="auto",
                    help="--host-rays modes of the runs that read K, alternating (e.g. auto,never)")
    ap.add_argument("--uncached-host-rays", default="",
                    help="--host-rays modes of the GPU runs without the K cache, alternating (e.g. auto,never; "
                         "default: rsim's default)")
    ap.add_argument("--compare-rsim", default="",
                    help="another build's rsim (same libraries): its GPU runs without the K cache alternate with "
                         "--rsim's, labelled 'vulkan, BASENAME'")
    ap.add_argument("--out", default="bench/startup")
    ap.add_argument("--tmp", default="/tmp/rsim-startup")
    a = ap.parse_args()
    print_command("startup_benchmark")
    os.makedirs(a.out, exist_ok=True)
    shutil.rmtree(a.tmp, ignore_errors=True)
    os.makedirs(a.tmp)
    rows = []
    # `rsim devices`: the instance alone. The very first command of a fresh machine meets a cold
    # driver (and cold disk caches): its row says "first".
    for r in range(a.repeat + 1):
        wall, _ = run_timed([a.rsim, "devices"], "startup_benchmark")
        rows.append({"scene": "(rsim devices)", "backend": "vulkan", "run": "first" if r == 0 else r, "wall_s": wall})
    for scene in a.scenes.split(","):
        for backend in a.backends.split(","):
            modes = [m for m in a.uncached_host_rays.split(",") if m] if backend == "vulkan" else []
            binaries = [(None, a.rsim)]
            if backend == "vulkan" and a.compare_rsim:
                binaries.append((os.path.basename(a.compare_rsim), a.compare_rsim))
            for r in range(a.repeat + 1):
                for mode in modes or [None]:
                    for name, rsim in binaries:
                        extra = ["--no-k-cache"] + (["--host-rays", mode] if mode else [])
                        row = one_run(a, scene, backend, os.path.join(a.tmp, "r"), extra, rsim)
                        if mode:
                            row["backend"] = f"vulkan, --host-rays {mode}"
                        if name:
                            row["backend"] += f", {name}"
                        row["run"] = "first" if r == 0 else r
                        rows.append(row)
    for cache_scene in filter(None, a.cache_scene.split(",")):
        cache = os.path.join(a.tmp, "kcache")
        row = one_run(a, cache_scene, "vulkan", os.path.join(a.tmp, "c"), ["--k-cache", cache])
        row["run"] = "store K"
        rows.append(row)
        for r in range(1, a.cache_repeat + 1):
            for mode in a.host_rays.split(","):
                row = one_run(a, cache_scene, "vulkan", os.path.join(a.tmp, "c"),
                              ["--k-cache", cache, "--host-rays", mode])
                row["backend"] = f"vulkan, K from cache, --host-rays {mode}"
                row["run"] = r
                rows.append(row)

    # The debug log of each scene and backend's first warm run: the start-up's timeline.
    for row in rows:
        if row.get("run") == 1 and row.get("log"):
            name = re.sub(r"[^A-Za-z0-9.-]+", "-", f"{row['scene']}-{row['backend']}").strip("-")
            with open(os.path.join(a.out, f"timeline-{name}.log"), "w") as f:
                f.write(row["log"])
    for row in rows:
        row.pop("log", None)
    write_csv(os.path.join(a.out, "startup.csv"), rows)

    cols = ["wall_s", "process_s", "phases_s", "outside_phases_s", "after_summary_s", "main_s", "instance_s",
            "devices_s", "pipelines_s", "pipelines_waited_s", "first_submit_s", "shutdown_s"]
    fmt = lambda v: "" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))
    print("| scene | backend | run | " + " | ".join(c[:-2] for c in cols) + " |")
    print("|---" * (3 + len(cols)) + "|")
    for row in rows:
        print(f"| {row['scene']} | {row['backend']} | {row['run']} | " +
              " | ".join(fmt(row.get(c)) for c in cols) + " |")
    # Medians of the warm runs.
    print()
    print("| scene | backend | warm runs | " + " | ".join(f"median {c[:-2]}" for c in cols) + " |")
    print("|---" * (3 + len(cols)) + "|")
    groups = {}
    for row in rows:
        if isinstance(row.get("run"), int):
            groups.setdefault((row["scene"], row["backend"]), []).append(row)
    for (scene, backend), rs in groups.items():
        med = [statistics.median([r[c] for r in rs if r.get(c) is not None]) if any(r.get(c) is not None for r in rs)
               else None for c in cols]
        print(f"| {scene} | {backend} | {len(rs)} | " + " | ".join(fmt(v) for v in med) + " |")
    print()
    for row in rows:
        if row.get("pipeline_detail") and row.get("run") == 1:
            print(f"pipelines, {row['scene']} {row['backend']} run 1: {row['pipeline_detail']}")


if __name__ == "__main__":
    main()
