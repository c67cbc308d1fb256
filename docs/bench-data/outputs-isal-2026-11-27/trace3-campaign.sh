#!/usr/bin/env bash
# The selection thread's exit: std::async (trace2) against ThreadResult (trace3), tiny and medium rooms.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
source scripts/device/place-build.sh
place_build .device/variants/rsim-trace2 rsim-trace2 $B
place_build .device/variants/rsim-trace3 rsim-trace3 $B
$R generate medium-room --output scenes/generated/medium-room -q > /dev/null
for v in trace2 trace3; do $B/rsim-$v run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1; done
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/trace3.txt
import re, subprocess, sys, time, statistics as st
b = sys.argv[1]
def t(line):
    h, m, s = line.split()[1].split(":"); return float(h) * 3600 + float(m) * 60 + float(s)
res = {}
for scene in ["scenes/tiny-room/scene.toml", "scenes/generated/medium-room/scene.toml"]:
    for rep in range(7):
        for v in ["trace2", "trace3"]:
            time.sleep(0.3)
            t0 = time.perf_counter()
            p = subprocess.run([b + "/rsim-" + v, "run", scene, "--backend", "vulkan", "--no-k-cache", "--no-progress", "--log-level", "debug", "-o", "/tmp/t-" + v],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            wall = time.perf_counter() - t0
            lines = p.stdout.splitlines()
            sel = next(t(l) for l in lines if "visibility path" in l)
            dev = next(l for l in lines if "vkCreateDevice" in l)
            devStart = t(dev) - float(re.search(r"([0-9.]+) s$", dev).group(1))
            res.setdefault((scene, v), []).append((devStart - sel, wall))
            if rep == 6: open("/tmp/o/%s-%s.log" % (v, scene.split("/")[-2]), "w").write(p.stdout)
    for v in ["trace2", "trace3"]:
        r = res[(scene, v)]
        print("%-45s %s: from the selection's log line to vkCreateDevice's start %.4f s (median of 7; %s), whole process %.3f s" % (
            scene, v, st.median(x[0] for x in r), " ".join("%.4f" % x[0] for x in r), st.median(x[1] for x in r)))
PY
cd /tmp/o && tar czf "$OUT/trace3.tgz" .
