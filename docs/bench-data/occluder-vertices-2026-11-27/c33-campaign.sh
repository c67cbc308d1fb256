#!/usr/bin/env bash
# The vertices alone for the segment tests (new) against 9717a85: the passes' device time.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p /tmp/variants && tar xzf .device/variants-c33.tgz -C /tmp/variants
mkdir -p .device/variants && rm -rf .device/variants/rsim-9717a85 && cp -r /tmp/variants/rsim-9717a85 .device/variants/
VIS_REPEATS=3 bash scripts/device/gpu-run.sh raysab .device/variants/rsim-9717a85 small-room,medium-room,large-room,traffic > /tmp/c33-stage.log 2>&1
echo "raysab rc $?"; tail -3 /tmp/c33-stage.log
python3 - "$OUT/raysab.txt" <<'PY'
import re, sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) (\d+) (\S+): (.*)", line)
    if not m: continue
    who, rep, scene, rest = m.groups()
    t = re.search(r"device time ([\d.]+) s listing.*?([\d.]+) s querying.*?([\d.]+) s on listed.*?([\d.]+) s on traced.*?([\d.]+) s on the near", rest)
    if t and int(rep) > 1: d[(scene, who)].append([float(x) for x in t.groups()])
for (scene, who), v in sorted(d.items()):
    cols = list(zip(*v))
    print("%-12s %-8s facing %s tiles %s listed %s traced %s near %s sum %s" % ((scene, who) + tuple(
        "/".join("%.4f" % x for x in c) for c in cols) + ("/".join("%.4f" % sum(r) for r in v),)))
PY
