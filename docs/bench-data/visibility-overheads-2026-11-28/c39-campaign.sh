#!/usr/bin/env bash
# The seventeenth session, second campaign: the row sums in blocks of columns and the first
# launch's lists of pairs sized by its pairs ("new", without the pipelines compiled from the
# scene's placement, rejected after c38) against d288636, every run at --log-level debug so that
# each run gives its own timeline: the medium room eleven times each, the large room three times,
# industry twice, builds in turn; `rsim compare` of the last runs.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT" /tmp/o /tmp/rsimb; rm -rf /tmp/rsimb/rsim-bundle; tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb
B=/tmp/rsimb/rsim-bundle; R=$B/rsim
mkdir -p /tmp/variants && tar xzf .device/variants-c38.tgz -C /tmp/variants
source scripts/device/place-build.sh
place_build /tmp/variants/rsim-d288636 rsim-d288636 $B
for s in medium-room large-room industry; do $R generate $s --output scenes/generated/$s -q > /dev/null; done
nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader > /tmp/o/machine.txt; nproc >> /tmp/o/machine.txt
for v in rsim rsim-d288636; do $B/$v run scenes/tiny-room/scene.toml --backend vulkan --no-k-cache -q -o /tmp/w0 > /dev/null 2>&1; done
python3 - "$B" <<'PY' 2>&1 | tee /tmp/o/c39.txt
import json, re, subprocess, sys, time, statistics as st, csv, datetime
b = sys.argv[1]
V = {"d288636": b + "/rsim-d288636", "new": b + "/rsim"}
REPS = {"medium-room": 11, "large-room": 3, "industry": 2}
rows = []
def stamp(line):
    m = re.match(r"\[\w+\] (\d+):(\d+):(\d+\.\d+)", line)
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3)) if m else None
def timeline(log):
    r = {}
    lines = log.splitlines()
    for l in lines:
        t = stamp(l)
        if "visibility lists of" in l and "first" not in r:
            m = re.search(r"of ([\d.]+) MiB allocated in ([\d.]+) s", l); r["first_lists_mib"] = float(m.group(1)); r["first_lists_s"] = float(m.group(2))
        if "visibility launch of rows" in l:
            m = re.search(r"at \+([\d.]+) s, ([\d.]+) s waiting for its K chunks, done at \+([\d.]+) s, ([\d.]+) s of device", l)
            r.setdefault("launches", []).append([float(x) for x in m.groups()])
        if "K encoded in" in l: r["encoded_at"] = t
        if "K's row sums in" in l: r["row_sums_s"] = float(re.search(r"row sums in ([\d.]+) s", l).group(1))
        if re.search(r"\] visibility: \d+ candidate pairs", l) and "rays_line_at" not in r: r["rays_line_at"] = t
    if "encoded_at" in r and "rays_line_at" in r: r["after_encode_s"] = r["rays_line_at"] - r["encoded_at"]
    L = r.pop("launches", [])
    if L:
        r["launches"] = len(L); r["first_start_s"] = L[0][0] + L[0][1]; r["first_end_s"] = L[0][2]
        r["second_end_s"] = L[1][2] if len(L) > 1 else float("nan")
        r["launch_wall_s"] = L[-1][2]; r["launch_device_s"] = sum(x[3] for x in L)
        r["idle_s"] = r["launch_wall_s"] - r["launch_device_s"]
    return r
for scene, reps in REPS.items():
    f = "scenes/generated/%s/scene.toml" % scene
    for rep in range(reps):
        for v in V:
            time.sleep(0.35)
            out = "/tmp/r-%s-%s" % (v, scene)
            p = subprocess.run([V[v], "run", f, "--backend", "vulkan", "--no-k-cache", "--no-progress", "--log-level", "debug", "-o", out],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            open("/tmp/o/log-%s-%s-%d.log" % (scene, v, rep), "w").write(p.stdout)
            s = json.load(open(out + "/summary.json")) if p.returncode == 0 else {}
            r = dict(scene=scene, variant=v, rep=rep, rc=p.returncode, visibility=s.get("timings_s", {}).get("visibility", float("nan")),
                     accel=s.get("timings_s", {}).get("accel", float("nan")), compress=s.get("timings_s", {}).get("compress", float("nan")),
                     process_s=s.get("process_s", float("nan")), max_row_sum=s.get("max_form_factor_row_sum", float("nan")))
            r.update(timeline(p.stdout)); rows.append(r)
    keys = ["visibility", "accel", "compress", "first_lists_mib", "first_lists_s", "first_start_s", "first_end_s", "second_end_s",
            "launch_wall_s", "launch_device_s", "idle_s", "after_encode_s", "row_sums_s", "process_s", "max_row_sum"]
    print("%s (%d runs of each, medians; paired: new - d288636)" % (scene, reps))
    for k in keys:
        a = [r.get(k, float("nan")) for r in rows if r["scene"] == scene and r["variant"] == "d288636"]
        c = [r.get(k, float("nan")) for r in rows if r["scene"] == scene and r["variant"] == "new"]
        d = [y - x for x, y in zip(a, c)]
        print("  %-16s d288636 %10.4f   new %10.4f   paired %+.4f (%d of %d lower)" % (k, st.median(a), st.median(c), st.median(d), sum(x < 0 for x in d), len(d)))
keys = sorted({k for r in rows for k in r})
with open("/tmp/o/c39.csv", "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=keys); w.writeheader(); w.writerows(rows)
print("bad exit codes:", [(r["scene"], r["variant"], r["rc"]) for r in rows if r["rc"] != 0])
PY
for s in medium-room large-room industry; do
  $R compare /tmp/r-d288636-$s /tmp/r-new-$s --max-fraction 0 --tol-m 1e-6 > /tmp/o/compare-$s.txt 2>&1; echo "compare $s rc $?" >> /tmp/o/compare-$s.txt
done
(cd /tmp/o && tail -qn 1 compare-*.txt)
(cd /tmp/o && tar czf "$OUT/c39.tgz" . && cp c39.txt "$OUT/")
