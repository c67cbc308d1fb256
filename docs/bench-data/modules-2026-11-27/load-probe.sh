#!/usr/bin/env bash
# Where a warm GPU run's time outside rsim's own work goes: libraries loaded before main(), the
# driver's load in the Vulkan instance (strace), on this machine.
set -uo pipefail
O=/tmp/o; mkdir -p $O /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim; P=$PWD/.device/probe
ICD=$(ls /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json 2>/dev/null | head -1)
{
echo "== $(nproc) cores, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), ICD $ICD"
$R devices >/dev/null 2>&1
python3 - "$B" "$P" <<'PY'
import os, subprocess, sys, time, statistics
b, p = sys.argv[1], sys.argv[2]
env = dict(os.environ, LD_LIBRARY_PATH=b + "/lib")
def t(cmd):
    xs = []
    for _ in range(41):
        t0 = time.perf_counter(); subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); xs.append(time.perf_counter() - t0)
    return statistics.median(xs), min(xs)
for r in range(2):
    for name in ["e_none", "e_mpi", "e_curl", "e_h5", "e_nompih5", "e_all"]:
        print("%-10s median %.4f min %.4f" % ((name,) + t([p + "/" + name])))
    print("%-10s median %.4f min %.4f" % (("rsim --version",) + t([b + "/bin/rsim", "--version"])))
PY
echo "== LD_DEBUG=statistics rsim --version"; LD_LIBRARY_PATH=$B/lib LD_DEBUG=statistics $B/bin/rsim --version 2>&1 | grep -E "startup time|relocation:|load objects"
} 2>&1 | tee $O/load-probe.txt
export VK_DRIVER_FILES=$ICD
for i in 1 2; do
  LD_LIBRARY_PATH=$P $P/strace -f -tt -T -o $O/strace-devices-$i.txt env LD_LIBRARY_PATH=$B/lib $B/bin/rsim devices --log-level debug > $O/devices-$i.log 2>&1
done
LD_LIBRARY_PATH=$P $P/strace -f -tt -T -o $O/strace-tiny.txt env LD_LIBRARY_PATH=$B/lib $B/bin/rsim run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/tr > $O/tiny.log 2>&1
for i in 1 2 3; do $R run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache --no-progress --log-level debug -o /tmp/tr > $O/tiny-nostrace-$i.log 2>&1; done
ls -la $O; tar czf $OUT/load-probe.tgz -C $O .
