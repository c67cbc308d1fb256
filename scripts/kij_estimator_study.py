#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Error against rays for the K estimators of MODEL.md section 2 (issue 12).

Runs `rsim run` with four variants of the K estimator, for S from 4 to 256 and several seeds:

  area         the former estimator (x and y by area), simulation.k_estimator = "area"
  model        MODEL.md section 2's combination: solid-angle sampling, the two sides' G
               averaged, no extra samples for near pairs ("solid-angle-mean", near_pair_factor = 1)
  area-blend   the same with the sides blended by area ("solid-angle", near_pair_factor = 1)
  default      rsim's default: area blend, near pairs at 32 S ("solid-angle", near_pair_factor = 32)

on three scenes written here and the bundled tiny room:

  box-coarse   closed 4 x 3 x 2.5 m box, 3 x 3 cells per wall (108 triangles up to 1.7 m):
               row sums sum_j F_ij, exactly 1 for every row of a closed convex room
  box-fine     the same box, 6 x 6 cells per wall (432 triangles)
  corner       floor 1.0 x 0.8 m and wall 0.6 x 0.8 m on a common edge (160 + 96 triangles):
               view factor floor -> wall against the catalogue value 0.20004... (Howell C-14)
  tiny-room    scenes/tiny-room (566 triangles; slivers on walls, a panel 1 cm from a wall):
               row sums (the room is closed, so 1 up to its few open gaps)

and measures, against the rays cast (summary.json rays.visibility):
  - max_row_sum, mean_abs_row_error, rows_over_1_05 (the closed boxes);
  - view_factor_rel_error (corner);
  - k_rel_rms_error: RMS of F_ij - F_ij(ref) over RMS of F_ij(ref), box-coarse, where the
    reference is the area-blend variant at --reference-samples with another seed.
Each row of the CSV is one (scene, variant, S, seed); the table reports the worst seed for the
maximum and the mean over seeds for the rest.

  scripts/kij_estimator_study.py --out bench/estimator            # CPU backend, ~10 min on 2 cores
  scripts/kij_estimator_study.py --backend vulkan --out bench/est-gpu
"""
import argparse
import math
import os
import shutil
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rsim_bench import K_ESTIMATOR_VARIANTS as VARIANTS, ROOT, k_estimator_options, pyplot, run_rsim, write_csv  # noqa: E402


def grid(origin, u, v, nu, nv):
    """Triangles of the rectangle origin + s u + t v as nu x nv cells; front side along u x v."""
    o, u, v = (np.asarray(a, float) for a in (origin, u, v))
    tris = []
    for a in range(nu):
        for b in range(nv):
            p = lambda da, db: o + u * (a + da) / nu + v * (b + db) / nv  # noqa: E731
            tris += [(p(0, 0), p(1, 0), p(1, 1)), (p(0, 0), p(1, 1), p(0, 1))]
    return tris


def room_shell(size, n):
    X, Y, Z = np.diag(size)
    zero = np.zeros(3)
    return (grid(zero, X, Y, n, n) + grid(Z, Y, X, n, n) + grid(zero, Z, X, n, n) + grid(Y, X, Z, n, n) +
            grid(zero, Y, Z, n, n) + grid(X, Z, Y, n, n))


def write_scene(folder, groups, eye, look):
    """groups: list of (name, triangles), one OBJ and [[mesh]] each (geometry/source_mesh)."""
    os.makedirs(folder, exist_ok=True)
    meshes = ""
    for name, tris in groups:
        with open(os.path.join(folder, name + ".obj"), "w") as f:
            for k, t in enumerate(tris):
                for p in t:
                    f.write("v %.9g %.9g %.9g\n" % tuple(p))
                f.write(f"f {3 * k + 1} {3 * k + 2} {3 * k + 3}\n")
        meshes += f'[[mesh]]\npath = "{name}.obj"\n'
    with open(os.path.join(folder, "scene.toml"), "w") as f:
        f.write(f"""[simulation]
timesteps = 300
dt_ns = 0.1
[light]
position = {list(eye)}
direction = {list(np.subtract(look, eye))}
[sensor]
look_at = {list(look)}
resolution = [8, 6]
[[material]]
name = "default"
reflectance = 0.5
""" + meshes)
    return os.path.join(folder, "scene.toml")


def make_scenes(out):
    scenes = {}
    size = (4.0, 3.0, 2.5)
    eye, look = (0.3, 1.5, 1.2), (4.0, 1.5, 1.2)
    scenes["box-coarse"] = write_scene(os.path.join(out, "scenes", "box-coarse"), [("box", room_shell(size, 3))], eye, look)
    scenes["box-fine"] = write_scene(os.path.join(out, "scenes", "box-fine"), [("box", room_shell(size, 6))], eye, look)
    floor = grid((0, 0, 0), (1.0, 0, 0), (0, 0.8, 0), 10, 8)
    wall = grid((0, 0, 0), (0, 0.8, 0), (0, 0, 0.6), 8, 6)
    scenes["corner"] = write_scene(os.path.join(out, "scenes", "corner"), [("floor", floor), ("wall", wall)],
                                   (0.5, 0.4, 0.3), (0.0, 0.4, 0.3))
    return scenes


def perpendicular_rectangles(w, h, l):
    """Howell C-14: from a w x l rectangle to an h x l rectangle on the common edge l."""
    W, H = w / l, h / l
    W2, H2 = W * W, H * H
    S = math.sqrt(W2 + H2)
    term = (math.log((1 + W2) * (1 + H2) / (1 + W2 + H2)) + W2 * math.log(W2 * (1 + W2 + H2) / ((1 + W2) * (W2 + H2))) +
            H2 * math.log(H2 * (1 + W2 + H2) / ((1 + H2) * (W2 + H2))))
    return (W * math.atan(1 / W) + H * math.atan(1 / H) - S * math.atan(1 / S) + 0.25 * term) / (math.pi * W)


def run(args, scene, out, variant, samples, seed):
    summary = run_rsim(args.rsim, scene, out, ["--backend", args.backend, "--samples", str(samples), "--seed",
                                               str(seed), "--kij", "fp32", "--write-kij", "--no-images",
                                               "--log-level", "error"] + k_estimator_options(variant),
                       who="study").summary
    with h5py.File(os.path.join(out, "timeseries.h5")) as h:
        K = h["K"][:].astype(np.float64)
        area = h["geometry/area"][:].astype(np.float64)
        group = h["geometry/source_mesh"][:]
    shutil.rmtree(out, ignore_errors=True)  # K of the larger box is 0.7 MB per run
    F = np.minimum(1.0, K * area[None, :])
    return summary, F, area, group


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rsim", default=os.path.join(ROOT, "build", "rsim"))
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--samples", default="4,8,16,32,64,128,256")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--reference-samples", type=int, default=4096)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "estimator"))
    args = ap.parse_args()
    samples = [int(s) for s in args.samples.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    os.makedirs(args.out, exist_ok=True)
    scenes = make_scenes(args.out)
    work = os.path.join(args.out, "run")

    scenes["tiny-room"] = os.path.join(ROOT, "scenes", "tiny-room", "scene.toml")
    _, F_ref, _, _ = run(args, scenes["box-coarse"], work, "area-blend", args.reference_samples, 99)
    exact_vf = perpendicular_rectangles(1.0, 0.6, 0.8)

    rows = []
    for variant in VARIANTS:
        for S in samples:
            for seed in seeds:
                for name in ["box-coarse", "box-fine", "corner", "tiny-room"]:
                    summary, F, area, group = run(args, scenes[name], work, variant, S, seed)
                    row = {"scene": name, "variant": variant, "samples": S, "seed": seed,
                           "rays": summary["rays"]["visibility"], "triangles": len(area)}
                    if name == "corner":
                        floor = group == 0
                        transfer = (area[floor, None] * F[np.ix_(floor, ~floor)]).sum() / area[floor].sum()
                        row["view_factor_rel_error"] = transfer / exact_vf - 1
                    else:
                        sums = F.sum(axis=1)
                        row["max_row_sum"] = sums.max()
                        row["min_row_sum"] = sums.min()
                        row["mean_abs_row_error"] = np.abs(sums - 1).mean()
                        row["rows_over_1_05"] = int((sums > 1.05).sum())
                        if name == "box-coarse":
                            row["k_rel_rms_error"] = math.sqrt(((F - F_ref) ** 2).mean() / (F_ref ** 2).mean())
                    rows.append(row)
                    print(f"  {name:10s} {variant:10s} S={S:4d} seed={seed}", file=sys.stderr)

    fields = ["scene", "variant", "samples", "seed", "triangles", "rays", "max_row_sum", "min_row_sum",
              "mean_abs_row_error", "rows_over_1_05", "k_rel_rms_error", "view_factor_rel_error"]
    csv_path = os.path.join(args.out, "kij_estimator_study.csv")
    write_csv(csv_path, rows, fields)

    def pick(scene, variant, S, key):
        return [r[key] for r in rows if r["scene"] == scene and r["variant"] == variant and r["samples"] == S]

    table = []
    head = ("| variant | S | rays, box-coarse | max row sum, coarse (worst seed) | mean abs(row - 1), coarse | "
            "rows > 1.05, coarse (of 108) | max row sum, fine | rows > 1.05, fine (of 432) | max row sum, tiny room | "
            "rows > 1.05, tiny room (of 566) | K rel. RMS error, coarse | view factor error (mean abs) |")
    table.append(head)
    table.append("| --- " * 12 + "|")
    for v in VARIANTS:
        for S in samples:
            table.append("| %s | %d | %d | %.3f | %.4f | %.1f | %.3f | %.1f | %.3f | %.1f | %.4f | %.4f |" % (
                v, S, int(np.mean(pick("box-coarse", v, S, "rays"))), max(pick("box-coarse", v, S, "max_row_sum")),
                np.mean(pick("box-coarse", v, S, "mean_abs_row_error")), np.mean(pick("box-coarse", v, S, "rows_over_1_05")),
                max(pick("box-fine", v, S, "max_row_sum")), np.mean(pick("box-fine", v, S, "rows_over_1_05")),
                max(pick("tiny-room", v, S, "max_row_sum")), np.mean(pick("tiny-room", v, S, "rows_over_1_05")),
                np.mean(pick("box-coarse", v, S, "k_rel_rms_error")),
                np.mean(np.abs(pick("corner", v, S, "view_factor_rel_error")))))
    text = "\n".join(table)
    print(text)
    with open(os.path.join(args.out, "kij_estimator_study.md"), "w") as f:
        f.write(text + "\n")

    plt = pyplot("study")
    if not plt:
        return
    fig, axes = plt.subplots(1, 4, figsize=(19, 4.2))
    for v, style in zip(VARIANTS, ["o--", "^-.", "d:", "s-"]):
        rays = [np.mean(pick("box-coarse", v, S, "rays")) for S in samples]
        axes[0].plot(rays, [max(pick("box-coarse", v, S, "max_row_sum")) - 1 for S in samples], style, label=v)
        axes[1].plot(rays, [np.mean(pick("box-coarse", v, S, "k_rel_rms_error")) for S in samples], style, label=v)
        rays_c = [np.mean(pick("corner", v, S, "rays")) for S in samples]
        axes[2].plot(rays_c, [np.mean(np.abs(pick("corner", v, S, "view_factor_rel_error"))) for S in samples], style,
                     label=v)
        rays_t = [np.mean(pick("tiny-room", v, S, "rays")) for S in samples]
        axes[3].plot(rays_t, [max(pick("tiny-room", v, S, "max_row_sum")) - 1 for S in samples], style, label=v)
    titles = ["closed box (coarse): max row sum - 1, worst seed", "closed box (coarse): K relative RMS error",
              "common edge: |view factor error|, mean over seeds", "tiny room: max row sum - 1, worst seed"]
    for ax, title in zip(axes, titles):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("visibility rays cast")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "kij_estimator_study.png"), dpi=110)
    print(f"wrote {csv_path}, kij_estimator_study.md and .png", file=sys.stderr)


if __name__ == "__main__":
    main()
