#!/usr/bin/env bash
# The twenty-second session, fifth campaign (issue 21: why a two-GPU host starts slower): the tiny
# room on the GPU seven times (the first warms the caches and is left out) with every default
# output, K cache off, --log-level debug, as run (`auto`) and with CUDA_VISIBLE_DEVICES=0; the
# medians of summary.json's startup_s parts, process_s and the phases' total; the last run's log.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/b && tar xzf .device/rsim-bundle.tgz -C /tmp/b
B=/tmp/b/rsim-bundle
nvidia-smi -L > "$OUT/c75-machine.txt"; nproc >> "$OUT/c75-machine.txt"
( time $B/rsim devices ) > "$OUT/c75-devices.txt" 2>&1
( time CUDA_VISIBLE_DEVICES=0 $B/rsim devices ) >> "$OUT/c75-devices.txt" 2>&1
python3 - "$B" "$OUT" <<'PY' 2>&1 | tee "$OUT/c75.txt"
import json, os, subprocess, sys, statistics as st, collections
b, out = sys.argv[1], sys.argv[2]
for mode, extra in (("auto", {}), ("cvd0", {"CUDA_VISIBLE_DEVICES": "0"})):
    parts = collections.defaultdict(list); proc = []; total = []
    for rep in range(7):
        d = "/tmp/c75-%s" % mode
        env = dict(os.environ, XDG_CACHE_HOME="/tmp/xdg-c75", **extra)
        r = subprocess.run([b + "/rsim", "run", "scenes/tiny-room/scene.toml", "--backend", "vulkan", "--no-k-cache",
                            "--no-progress", "--log-level", "debug", "-o", d], env=env, capture_output=True, text=True)
        if r.returncode: print(mode, "exit", r.returncode, r.stderr[-300:]); continue
        if rep == 0: continue
        s = json.load(open(d + "/summary.json"))
        proc.append(s["process_s"]); total.append(s["timings_s"]["total"])
        for k, v in s.get("startup_s", {}).items(): parts[k].append(v)
        open("%s/c75-%s.log" % (out, mode), "w").write(r.stderr + r.stdout)
    print("%s: process_s median %.4f (%s), phases %.4f, outside %.4f" % (mode, st.median(proc), " ".join("%.4f" % x for x in proc), st.median(total), st.median(proc) - st.median(total)))
    for k, v in parts.items(): print("  %-60s %.4f" % (k, st.median(v)))
PY
