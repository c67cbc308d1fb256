#!/usr/bin/env bash
# Issue 21: the binary without HDF5 and OpenEXR linked (modules) against c985a80's, warm.
set -uo pipefail
source .device/prelude.sh
REAL_OUT=$OUT; export OUT=/tmp/o; mkdir -p $OUT
STARTUP_OLD=${STARTUP_OLD:-.device/variants/rsim-c985a80} STARTUP_BACKENDS=vulkan STARTUP_REPEATS=9 STARTUP_CACHE_REPEAT=1 \
  scripts/device/gpu-run.sh startup tiny-room,small-room,medium-room > $OUT/campaign.log 2>&1
B=/tmp/rsimb/rsim-bundle
{
echo "== whole process of --version and devices, medians of 41, alternating"
python3 - "$B" <<'PY'
import os, subprocess, sys, time, statistics
b = sys.argv[1]
env = dict(os.environ, LD_LIBRARY_PATH=b + "/lib")
cmds = {"new": [b + "/bin/rsim"], "old": [b + "/" + os.environ.get("OLDNAME", "rsim-c985a80")]}
for args in (["--version"], ["devices"]):
    xs = {k: [] for k in cmds}
    for _ in range(41):
        for k, c in cmds.items():
            t0 = time.perf_counter(); subprocess.run(c + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); xs[k].append(time.perf_counter() - t0)
    for k in cmds: print(args[0], k, "median %.4f min %.4f" % (statistics.median(xs[k]), min(xs[k])))
PY
echo "== LD_DEBUG=statistics --version, new then old"
for b in rsim rsim-c985a80; do LD_LIBRARY_PATH=$B/lib LD_DEBUG=statistics $B/bin/$b --version 2>&1 | grep -E "startup time|load objects"; done
echo "== outputs, old against new"
for s in tiny-room medium-room; do
  p=scenes/$s/scene.toml; [[ -f $p ]] || p=scenes/generated/$s/scene.toml
  $B/rsim run $p --backend vulkan --no-k-cache --no-progress -q -o /tmp/cmp-new-$s
  $B/$OLDW run $p --backend vulkan --no-k-cache --no-progress -q -o /tmp/cmp-old-$s
  echo "$s: $($B/rsim compare /tmp/cmp-old-$s /tmp/cmp-new-$s --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
  ls /tmp/cmp-new-$s | tr '\n' ' '; echo
done
} 2>&1 | tee $OUT/process.txt
tar czf $REAL_OUT/modules-campaign.tgz -C $OUT .
tail -40 $OUT/startup.txt
