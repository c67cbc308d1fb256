#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that includes in src/ point down the layers of docs/architecture.md, never up or across.

A file in a folder of layer L may include headers of its own folder and of folders in layers
below L; include/rsim/shared (layer 0) is below everything. Prints every include that breaks
this and exits 1 if there is one. CI runs it as a test ("includes point down the layers").

  scripts/check_layers.py [--root DIR]
"""
import argparse
import os
import re
import sys

# Bottom to top. Keep in step with docs/architecture.md ("Layers").
LAYERS = [
    ["util"],
    ["core"],
    ["scene"],
    ["geometry", "generate", "accel", "vulkan"],
    ["k"],
    ["direct"],
    ["visibility"],
    ["transport"],
    ["distance"],
    ["paths"],
    ["backends"],
    ["output"],
    ["compare"],
    ["pipeline"],
    ["cli", "python"],
]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(folder):
    for level, folders in enumerate(LAYERS, start=1):
        if folder in folders:
            return level
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = ap.parse_args()
    src = os.path.join(args.root, "src")
    problems, checked = [], 0
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        level = layer_of(folder)
        if level is None:
            problems.append(f"src/{folder}/: a folder without a layer (add it to LAYERS and docs/architecture.md)")
            continue
        # A folder's subfolders (e.g. output/hdf5, a module's code) are of its layer.
        files = sorted(os.path.relpath(os.path.join(d, n), path) for d, _, names in os.walk(path) for n in names)
        for name in files:
            if not name.endswith((".h", ".cpp")):
                continue
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for number, line in enumerate(f, start=1):
                    m = INCLUDE.match(line)
                    if not m or "/" not in m.group(1):
                        continue
                    target = m.group(1).split("/")[0]
                    if target in ("rsim", "shaders"):  # include/rsim/shared; generated SPIR-V
                        continue
                    checked += 1
                    other = layer_of(target)
                    where = f"src/{folder}/{name}:{number}"
                    if other is None:
                        problems.append(f"{where}: includes {m.group(1)} of a folder without a layer")
                    elif target != folder and other >= level:
                        kind = "up" if other > level else "across"
                        problems.append(f"{where}: includes {m.group(1)}, {kind} from layer {level} ({folder}) to "
                                        f"layer {other} ({target})")
    for p in problems:
        print(p)
    print(f"check_layers: {checked} includes checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
