#!/usr/bin/env bash
# Experiment: the whole process with and without skipping the backend's release (_exit after the outputs).
set -uo pipefail
mkdir -p /tmp/rsimb && tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb && R=/tmp/rsimb/rsim-bundle/rsim
$R generate medium-room --output scenes/generated/medium-room -q > /dev/null
echo "scene,mode,rep,wall_s,process_s"
for rep in 0 1 2 3 4 5 6 7 8; do for s in scenes/tiny-room scenes/generated/medium-room; do for m in release quick; do
  rm -rf /tmp/q; t0=$(date +%s.%N)
  if [[ $m == quick ]]; then RSIM_EXPERIMENT_QUICK_EXIT=1 $R run $s/scene.toml --backend vulkan --no-k-cache --no-progress -q -o /tmp/q
  else $R run $s/scene.toml --backend vulkan --no-k-cache --no-progress -q -o /tmp/q; fi
  rc=$?; t1=$(date +%s.%N)
  python3 -c "import json,sys; j=json.load(open('/tmp/q/summary.json')); print('%s,%s,%s,%.3f,%.3f,rc=%s' % (sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[5])-float(sys.argv[4]), j['process_s'], sys.argv[6]))" $(basename $s) $m $rep $t0 $t1 $rc
done; done; done
