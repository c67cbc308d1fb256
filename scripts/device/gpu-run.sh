#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs on a GPU machine lent by the device tool (no -dev packages, no Vulkan loader installed),
# from the repository root, after `source .device/prelude.sh` (a copy of the workplace's
# prelude). The binary comes as .device/rsim-bundle.tgz (scripts/make-bundle.sh
# .device/rsim-bundle: the README's GPU path, with its own Vulkan loader). Writes logs and CSV
# under $OUT.
#
#   scripts/device/gpu-run.sh sanity          devices, tiny room GPU vs CPU, medium room GPU vs CPU
#   scripts/device/gpu-run.sh split           radiosity workgroup-split sweep on the medium room
#   scripts/device/gpu-run.sh bench SCENES    GPU benchmark (S=16, T=1000) of comma-separated scenes
#   scripts/device/gpu-run.sh probe SCENES    phase times: 1 GPU, 2 slots of GPU 0, streamed
#   scripts/device/gpu-run.sh kij SCENES      K compression accuracy study
#   scripts/device/gpu-run.sh multigpu 1,2,.. scaling, exchange, streaming, oversized (multigpu_benchmark.py)
#   scripts/device/gpu-run.sh cpu SCENES      CPU-backend benchmark on this machine's cores
#   scripts/device/gpu-run.sh agree           GPU vs CPU reference over a matrix of settings (rsim compare)
#   scripts/device/gpu-run.sh estimator       K estimators: rays/s of the former and the new one, and the
#                                             row sums of every bundled and generated scene (issue 12)
#   scripts/device/gpu-run.sh raysab OLD LIST  visibility alone: this bundle's rsim against OLD, LIST of
#                                             SCENE[@MAX_EDGE_M[@SAMPLES]], interleaved VIS_REPEATS times
#   scripts/device/gpu-run.sh raysvariants LIST  visibility alone, as raysab, of this bundle's rsim and each binary of
#                                             VARIANTS (same libraries), interleaved VIS_REPEATS times
#   scripts/device/gpu-run.sh raypaths LIST   the ray paths against each other, one binary: visibility of
#                                             LIST (SCENE[@MAX_EDGE_M]) with --visibility of each of PATHS
#                                             (default pipeline,bvh), interleaved VIS_REPEATS times; the
#                                             whole process of STARTUP_SCENES (tiny-room,medium-room)
#                                             STARTUP_REPEATS times; `rsim compare` of the paths' outputs
#   scripts/device/gpu-run.sh ab OLD SCENES   this bundle's rsim against an older build's binary OLD
#                                             (same libraries), GPU benchmark runs interleaved 3 times
#   scripts/device/gpu-run.sh batch SCENE SIZES  poses per run (issue 14): batches of SIZES poses of SCENE,
#                                             with BATCH_SEPARATE separate runs, a K-cache run and the
#                                             FLOP count when BATCH_EXTRA says so (batch_benchmark.py)
#   scripts/device/gpu-run.sh variants SCENE SIZES  the batch benchmark of this bundle's rsim, of each
#                                             .device/variants/rsim-NAME (same libraries) and of
#                                             VARIANT_OPTIONS="NAME=OPTIONS;...", interleaved
#   scripts/device/gpu-run.sh startup SCENES  start-up and shut-down outside the phases (issue 21), GPU and CPU,
#                                             against STARTUP_OLD's GPU runs when given (an older build's binary),
#                                             and runs with K from the K cache (startup_benchmark.py; scenes
#                                             STARTUP_CACHE_SCENE, STARTUP_CACHE_REPEAT runs per --host-rays
#                                             mode of STARTUP_HOST_RAYS, e.g. auto,never; the runs without
#                                             the cache alternate STARTUP_UNCACHED_HOST_RAYS' modes)
#   scripts/device/gpu-run.sh pixels OLD SCENE  the pixel outputs' cost (issue 15): this bundle's rsim against an
#                                             older build's binary OLD (same libraries), pixel_outputs_benchmark.py
#   scripts/device/gpu-run.sh statistics      the driver's statistics of every pipeline (RSIM_PIPELINE_STATISTICS=1),
#                                             of this bundle's rsim and each .device/variants/rsim-NAME, at 1, 2
#                                             and 4 poses per invocation of the far gather (tiny room, 4 poses)
#   scripts/device/gpu-run.sh python SCENE POSES  `import rsim` against `rsim run --poses`, whole process, on this GPU
#                                             (python_overhead_benchmark.py; the module and Python 3.11 come as
#                                             .device/rsim-python.tgz from scripts/make-python-bundle.sh)
#   scripts/device/gpu-run.sh scale EDGE      industry at --max-edge-m EDGE, K in place against K computed where it lives
#                                             (SCALE_LIVES_OPTS, default --max-device-mb 40000 --max-host-mb 2000;
#                                             SCALE_RUN_OPTS for both; SCALE_MODES="inplace lives"): host RSS, times, compare
#   scripts/device/gpu-run.sh streamblocks SCENES  the radiosity loop with K resident against K streamed with
#                                             --pass-blocks 1 to 4 (K from the K cache after the first run), twice
#   scripts/device/gpu-run.sh passblocks SCENES DEVICES  the radiosity loop on --devices 0 and on DEVICES
#                                             (e.g. 0,1) with --pass-blocks 1, 2, 4 (K from the K cache), twice
#   scripts/device/gpu-run.sh shafts [SCENES]  visibility with and without clear pairs by formula,
#                                             every generated scene (issue 18; estimator_benchmark.py)
#   scripts/device/gpu-run.sh tilelists [SCENES]  visibility with the tiles' occluder lists at each limit of
#                                             TILE_LISTS (default 0,64,128,256; 0 traces every ray), interleaved
#                                             TILE_REPEATS times (issue 18), and `rsim compare` against limit 0
#   scripts/device/gpu-run.sh tests           the whole Catch2 suite on this GPU, under the validation
#                                             layer (bundle made with make-bundle.sh --with-tests);
#                                             TESTS_FILTER: a Catch2 test spec, e.g. "[kcache]" 
set -uo pipefail
stage=${1:?stage}
scenes=${2:-small-room,medium-room}
OUT=${OUT:-/tmp/rsim-out}
mkdir -p "$OUT" /tmp/rsimb
rm -rf /tmp/rsimb/rsim-bundle  # always the bundle just carried
tar xzf .device/rsim-bundle.tgz -C /tmp/rsimb ||
  { echo "gpu-run: no bundle at .device/rsim-bundle.tgz (scripts/make-bundle.sh .device/rsim-bundle, then carry it)"; exit 2; }
RSIM=/tmp/rsimb/rsim-bundle/rsim
cores=$(nproc)
echo "machine: $(nproc) cores, $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)"

gen() { for s in ${1//,/ }; do [[ -f scenes/$s/scene.toml || -f scenes/generated/$s/scene.toml ]] ||
  $RSIM generate "$s" --output "scenes/generated/$s" -q >/dev/null; done; }
path_of() { [[ -f scenes/$1/scene.toml ]] && echo "scenes/$1/scene.toml" || echo "scenes/generated/$1/scene.toml"; }
# variant SRC NAME: another build SRC (its binary, or a folder with its binary and modules) as
# /tmp/rsimb/rsim-bundle/NAME (scripts/device/place-build.sh).
source scripts/device/place-build.sh
variant() { place_build "$1" "$2" /tmp/rsimb/rsim-bundle; }
# rays_builds FILE LIST NAME...: the visibility of each build NAME ("new": this bundle's rsim, else
# a variant) on LIST (SCENE[@MAX_EDGE_M[@SAMPLES]]; K cache off, the scene's own settings
# otherwise), interleaved VIS_REPEATS times; prints the log's visibility lines (pairs, rays,
# seconds, Mrays/s, the passes' device time) and `rsim compare` of each build's last outputs
# against new's, into $OUT/FILE.
rays_builds() {
  local file=$1 list=$2; shift 2
  local names=("$@") item which bin r s edge samples d
  for item in ${list//,/ }; do gen "${item%%@*}"; done
  for r in $(seq "${VIS_REPEATS:-2}"); do for item in ${list//,/ }; do for which in "${names[@]}"; do
    IFS=@ read -r s edge samples <<< "$item"
    bin=$RSIM; [[ $which == new ]] || bin=/tmp/rsimb/rsim-bundle/$which
    $bin run "$(path_of $s)" --backend vulkan --no-k-cache --no-timeseries --no-progress ${edge:+--max-edge-m $edge} \
      ${samples:+--samples $samples} -o "/tmp/raysv/$which-$s${edge:+-$edge}" > /tmp/raysv.log 2>&1 ||
      { cat /tmp/raysv.log; exit 1; }
    echo "$which $r $item: $(grep -o 'visibility: .*' /tmp/raysv.log | tr '\n' ' ')"
  done; done; done | tee "$OUT/$file"
  for d in /tmp/raysv/new-*; do for which in "${names[@]}"; do [[ $which == new ]] && continue
    echo "compare $which against new, ${d#/tmp/raysv/new-}: $($RSIM compare "$d" "/tmp/raysv/$which-${d#/tmp/raysv/new-}" --max-fraction 0 --tol-m 1e-6 2>&1 | tail -1)"
  done; done | tee -a "$OUT/$file"
}

case $stage in
sanity)
  $RSIM devices | tee "$OUT/devices.txt"
  gen medium-room
  for s in tiny-room medium-room; do
    $RSIM run "$(path_of $s)" --backend vulkan --output /tmp/r-$s-gpu --no-timeseries --no-progress 2>&1 | tee "$OUT/$s-gpu.log"
    $RSIM run "$(path_of $s)" --backend cpu --output /tmp/r-$s-cpu --no-timeseries --no-progress 2>&1 | tee "$OUT/$s-cpu.log"
    $RSIM compare /tmp/r-$s-cpu /tmp/r-$s-gpu | tee "$OUT/$s-compare.txt"
    cp /tmp/r-$s-gpu/summary.json "$OUT/$s-gpu-summary.json"
    cp /tmp/r-$s-cpu/summary.json "$OUT/$s-cpu-summary.json"
  done ;;
split)
  # --radiosity-split x --radiosity-unroll on the scenes given (default: medium room).
  s=${2:-medium-room}
  gen "$s"
  for u in ${UNROLLS:-1 2 4 8}; do for k in ${SPLITS:-4 8 16 32}; do
    $RSIM run "$(path_of $s)" --backend vulkan --radiosity-split $k --radiosity-unroll $u \
      --output /tmp/r-split --no-timeseries --no-images --no-progress -q 2>/dev/null
    python3 -c "import json;t=json.load(open('/tmp/r-split/summary.json'))['timings_s'];print('$s split $k unroll $u radiosity %.3f s'%t['radiosity'])"
  done; done | tee "$OUT/split.txt"
  # The fastest pair, as options for the runs that follow: $(cat "$OUT/best-split.opts").
  sort -k7 -g "$OUT/split.txt" | head -1 |
    awk '{print "--radiosity-split " $3 " --radiosity-unroll " $5}' > "$OUT/best-split.opts"
  cat "$OUT/best-split.opts" ;;
bench)
  gen "$scenes"
  python3 scripts/benchmark.py --rsim $RSIM --scenes "$scenes" --backend vulkan --visibility auto --warmup \
    --bandwidth-gbs "${BANDWIDTH_GBS:-3350}" --label "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" \
    --out "$OUT/gpu" 2>&1 | tee "$OUT/bench-gpu.txt" ;;
probe)
  # Phase times of the default format on the scenes given: one GPU (K compressed where it is
  # computed), two slots of GPU 0 (K assembled and encoded on the host), and streamed.
  gen "$scenes"
  for s in ${scenes//,/ }; do for mode in "--devices 0" "--devices 0,0" "--devices 0 --stream always"; do
    $RSIM run "$(path_of $s)" --backend vulkan --output /tmp/r-probe --samples 16 --timesteps 1000 --no-timeseries \
      --no-images --no-progress -q $mode
    python3 -c "import json;d=json.load(open('/tmp/r-probe/summary.json'));t=d['timings_s'];x=d['timings_detail_s'];print('$s $mode:', ' '.join(f'{k}={v:.3f}' for k,v in list(t.items())+list(x.items())))"
  done; done 2>&1 | tee "$OUT/probe.txt" ;;
kij)
  # The K compression accuracy study (issue 4) on the GPU.
  python3 scripts/kij_accuracy_study.py --rsim $RSIM --scenes "${2:-large-room,traffic}" --backend vulkan \
    --out "$OUT/kij" --tmp /tmp/kij 2>&1 | tee "$OUT/kij-study.txt" ;;
multigpu)
  # Issue 5/6: scaling over GPU counts ($2, default 1,2), exchange overhead, streaming per format,
  # and an oversized scene; plus the link's own host->device rate (pinned copies with PyTorch).
  python3 -c "
import torch, time
for d in range(torch.cuda.device_count()):
    x = torch.empty(1 << 30, dtype=torch.uint8).pin_memory(); y = torch.empty_like(x, device=f'cuda:{d}')
    y.copy_(x); torch.cuda.synchronize(d); t = time.time()
    for _ in range(5): y.copy_(x, non_blocking=True)
    torch.cuda.synchronize(d); print(f'pinned host->device copy, GPU {d}: {5 * (1 << 30) / (time.time() - t) / 1e9:.1f} GB/s')
" 2>&1 | tee "$OUT/link.txt"
  nvidia-smi --query-gpu=index,name,pcie.link.gen.current,pcie.link.width.current --format=csv | tee -a "$OUT/link.txt"
  python3 scripts/multigpu_benchmark.py --rsim $RSIM --gpus "${2:-1,2}" --out "$OUT/multigpu" --tmp /tmp/mgb \
    ${MULTIGPU_ARGS:-} 2>&1 | tee "$OUT/multigpu.txt" ;;
cpu)
  gen "$scenes"
  python3 scripts/benchmark.py --rsim $RSIM --scenes "$scenes" --backend cpu --label "$cores cores" \
    --out "$OUT/cpu" 2>&1 | tee "$OUT/bench-cpu.txt" ;;
agree)
  # Each line: scene | options for both backends | options for the GPU run only | rsim compare
  # options. Its defaults (1 mm, 0.1% of triangles and pixels may exceed it: rays that graze an
  # edge) decide, except for AMCW: its phasor integrates all of a triangle's multipath, so the
  # same grazing-ray differences of K move it more (measured on a GPU, small room: 8 of 4,978
  # triangles beyond 1 mm, at most 9 mm; docs/accuracy.md, "GPU against the CPU reference"):
  # 0.5% may exceed 1 mm there.
  gen small-room,medium-room
  fails=0
  while IFS='|' read -r s opts gpuopts cmpopts; do
    [[ -z $s ]] && continue
    eval "set -- $opts"
    eval "gpu=($gpuopts)"
    eval "cmp=($cmpopts)"
    rm -f /tmp/agree.txt
    $RSIM run "$(path_of $s)" --backend cpu --output /tmp/r-agree-cpu --no-timeseries --no-progress -q "$@" &&
      $RSIM run "$(path_of $s)" --backend vulkan --output /tmp/r-agree-gpu --no-timeseries --no-progress -q "$@" "${gpu[@]}" &&
      $RSIM compare /tmp/r-agree-cpu /tmp/r-agree-gpu "${cmp[@]}" > /tmp/agree.txt
    rc=$?
    [[ $rc -eq 0 ]] || fails=$((fails + 1))
    echo "== $s [$opts] [GPU: $gpuopts] [compare: $cmpopts]: rc=$rc $(tail -1 /tmp/agree.txt 2>/dev/null)"
    grep -E "triangle distance_m|depth.pfm|sensor_signal" /tmp/agree.txt 2>/dev/null
  done > "$OUT/agree.txt" 2>&1 <<'CASES'
small-room|
small-room|--set sensor.mode='"amcw"' --set 'sensor.modulation_mhz=[20.0, 50.0]'||--max-fraction 0.005
small-room|--set light.pulse='"gaussian"' --set light.pulse_fwhm_ns=0.5
small-room|--set simulation.indirect=false --set output.kij=true
small-room|--kij fp16 --set simulation.seed=7
small-room|--kij lut8-range --samples 8
medium-room|--samples 8 --timesteps 600
medium-room|--samples 8 --timesteps 600|--devices 0,0
CASES
  cat "$OUT/agree.txt"; echo "agree: $fails case(s) failed"
  exit $((fails > 0)) ;;
estimator)
  # Issue 12: the same scenes and S with the former (area) estimator, the new one without extra
  # samples for near pairs (area-blend) and the default; twice each, interleaved, so that the
  # table's second run has a warm driver. Then the row sums of the other scenes.
  gen medium-room,large-room,traffic,industry
  python3 scripts/estimator_benchmark.py --rsim $RSIM --backend vulkan --scenes medium-room,large-room \
    --variants area,area-blend,default --repeat 2 --out "$OUT/speed" --tmp /tmp/est 2>&1 | tee "$OUT/estimator-speed.txt"
  python3 scripts/estimator_benchmark.py --rsim $RSIM --backend vulkan --scenes tiny-room,small-room,traffic,industry \
    --variants area,default --out "$OUT/rowsums" --tmp /tmp/est 2>&1 | tee "$OUT/estimator-rowsums.txt" ;;
shafts)
  # Issue 18: every generated scene with rays for every pair (issue 12's estimator) and with clear
  # pairs by formula (the default), twice each, interleaved; the table shows the second runs.
  gen ${2:-tiny-room,small-room,medium-room,large-room,traffic,industry}
  python3 scripts/estimator_benchmark.py --rsim $RSIM --backend vulkan --scenes ${2:-tiny-room,small-room,medium-room,large-room,traffic,industry} \
    --variants rays,default --repeat 2 --out "$OUT/shafts" --tmp /tmp/est 2>&1 | tee "$OUT/shafts.txt" ;;
tilelists)
  # Issue 18: visibility with the tiles' occluder lists (simulation.tile_list_max) at each limit,
  # each SCENE[@MAX_EDGE_M] of the list once per limit and repeat, K cache off. Prints the log's
  # visibility lines, the largest row sum, then `rsim compare` of each limit's last run against
  # limit 0's (every ray traced).
  list=${2:-medium-room,large-room,industry}; limits=${TILE_LISTS:-0,64,128,256}
  for item in ${list//,/ }; do gen "${item%%@*}"; done
  rm -rf /tmp/tiles
  for r in $(seq "${TILE_REPEATS:-2}"); do for item in ${list//,/ }; do for L in ${limits//,/ }; do
    IFS=@ read -r s edge <<< "$item"
    d=/tmp/tiles/$s${edge:+-$edge}-L$L
    $RSIM run "$(path_of "$s")" --backend vulkan --no-k-cache --no-timeseries --no-images --no-progress \
      ${edge:+--max-edge-m $edge} --set simulation.tile_list_max=$L -o "$d" > /tmp/tiles.log 2>&1 ||
      { cat /tmp/tiles.log; exit 1; }
    echo "L=$L $r $item: $(grep -o 'visibility: .*' /tmp/tiles.log | tr '\n' ' ') max row sum $(grep -o '"max_form_factor_row_sum": [0-9.]*' "$d/summary.json" | cut -d' ' -f2)"
  done; done; done | tee "$OUT/tilelists.txt"
  for d in /tmp/tiles/*-L*; do
    base=${d%-L*}; [[ $d == "$base-L0" ]] && continue
    echo "compare ${d#/tmp/tiles/} against L0: $($RSIM compare "$base-L0" "$d" 2>&1 | tail -1)"
  done | tee -a "$OUT/tilelists.txt" ;;
raysab)
  # Visibility alone (issue 17 point 4): this bundle's rsim against an older build's binary OLD
  # (same libraries): rays_builds above, the old build first.
  variant "${2:?raysab: the older rsim binary}" rsim-old
  rays_builds raysab.txt "${3:-medium-room,large-room,industry}" rsim-old new ;;
raysvariants)
  # Visibility alone, like raysab, for several builds: this bundle's rsim ("new") and each binary of
  # VARIANTS (paths, e.g. .device/variants/rsim-*; same libraries).
  names=(new)
  for v in ${VARIANTS:?raysvariants: VARIANTS, the other binaries}; do variant "$v" "$(basename "$v")"; names+=("$(basename "$v")"); done
  rays_builds raysvariants.txt "${2:-medium-room,large-room}" "${names[@]}" ;;
raypaths)
  # One binary, its ray paths against each other (--host-rays never: every ray on the GPU).
  list=${2:-medium-room,large-room,industry}; paths=${PATHS:-pipeline,bvh}
  for item in ${list//,/ }; do gen "${item%%@*}"; done
  gen "${STARTUP_SCENES:-tiny-room,medium-room}"
  rm -rf /tmp/raypaths; mkdir -p /tmp/raypaths
  for r in $(seq "${VIS_REPEATS:-2}"); do for item in ${list//,/ }; do for p in ${paths//,/ }; do
    IFS=@ read -r s edge <<< "$item"
    $RSIM run "$(path_of "$s")" --backend vulkan --visibility "$p" --host-rays never --no-k-cache --no-timeseries \
      --no-progress ${edge:+--max-edge-m $edge} -o "/tmp/raypaths/$p-$s${edge:+-$edge}" > /tmp/raypaths.log 2>&1 ||
      { cat /tmp/raypaths.log; exit 1; }
    echo "$p $r $item: $(grep -o 'visibility: .*' /tmp/raypaths.log | tr '\n' ' ')"
    echo "$p $r $item: $(grep -o 'radiosity: .*\|direct: .*\|BVH.*' /tmp/raypaths.log | tr '\n' ' ')"
  done; done; done | tee "$OUT/raypaths.txt"
  first=${paths%%,*}
  for d in /tmp/raypaths/$first-*; do [[ -d $d ]] || continue; for p in ${paths//,/ }; do [[ $p == "$first" ]] && continue
    echo "compare $p against $first, ${d#/tmp/raypaths/$first-}: $($RSIM compare "$d" "/tmp/raypaths/$p-${d#/tmp/raypaths/$first-}" 2>&1 | tail -1)"
  done; done | tee -a "$OUT/raypaths.txt"
  # Whole process (the wall time around it), summary.json's phases, alternating the modes
  # (PATH:HOST_RAYS of STARTUP_MODES).
  echo "scene,path,host_rays,repeat,wall_s,process_s,phases_s,startup_s" > "$OUT/raypaths-startup.csv"
  startup_scenes=${STARTUP_SCENES:-tiny-room,medium-room}
  modes=${STARTUP_MODES:-pipeline:never,bvh:never,pipeline:auto,bvh:auto}
  for r in $(seq 0 "${STARTUP_REPEATS:-5}"); do for s in ${startup_scenes//,/ }; do
    for m in ${modes//,/ }; do
      p=${m%%:*} h=${m##*:} o=/tmp/raypaths/startup-$s; rm -rf "$o"
      t0=$(date +%s.%N)
      $RSIM run "$(path_of "$s")" --backend vulkan --visibility "$p" --host-rays "$h" --no-k-cache --no-progress \
        -o "$o" > /tmp/raypaths.log 2>&1 || { cat /tmp/raypaths.log; exit 1; }
      t1=$(date +%s.%N)
      python3 - "$s" "$p" "$h" "$r" "$t0" "$t1" "$o/summary.json" >> "$OUT/raypaths-startup.csv" <<'PY'
import json, sys
scene, path, hostrays, r, t0, t1, f = sys.argv[1:]
wall = float(t1) - float(t0)
j = json.load(open(f))
t = j.get("timings_s", {})
print(f"{scene},{path},{hostrays},{r},{wall:.3f},{j.get('process_s', '')},{t.get('total', '')},"
      f"{json.dumps(j.get('startup_s', {})).replace(',', ';')}")
PY
    done; done; done
  cat "$OUT/raypaths-startup.csv" ;;
ab)
  # A paired comparison for a change that must not slow rsim down: the older binary runs with
  # this bundle's libraries (a copy of the wrapper pointing at it), alternating with the new one.
  old=${2:?ab: the older rsim binary}; scenes=${3:-medium-room,large-room}
  variant "$old" rsim-old
  gen "$scenes"
  rm -rf /tmp/ab
  for r in $(seq "${AB_REPEATS:-3}"); do for which in old new; do
    bin=$RSIM; [[ $which == old ]] && bin=/tmp/rsimb/rsim-bundle/rsim-old
    python3 scripts/benchmark.py --rsim $bin --scenes "$scenes" --backend vulkan --label "$which-$r" --warmup \
      --out "/tmp/ab/$which-$r" > /tmp/ab.log 2>&1 || { cat /tmp/ab.log; exit 1; }
    grep "^| [a-z]" /tmp/ab.log | sed "s/^/$which $r /"
  done; done
  # One CSV of every run (the device tool brings back a limited number of files).
  python3 -c 'import csv, glob, sys
rows = [r for f in sorted(glob.glob("/tmp/ab/*/phases.csv")) for r in csv.DictReader(open(f))]
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=list(rows[0].keys())); w.writeheader(); w.writerows(rows)' \
    "$OUT/ab.csv" ;;
batch)
  s=${2:-medium-room}; sizes=${3:-1,8,32,128}
  gen "$s"
  # fp32 peak of the GPU (NVIDIA's datasheets), for the table's share of it.
  case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) in
    *H100*PCIe*) peak=51.2 ;; *H100*|*H200*) peak=66.9 ;; *) peak=0 ;;
  esac
  python3 scripts/batch_benchmark.py --rsim $RSIM --scene "$s" --poses "$sizes" --separate "${BATCH_SEPARATE:-0}" \
    --peak-tflops $peak ${BATCH_EXTRA:-} --out "$OUT/batch-$s" --tmp /tmp/rsim-batch 2>&1 | tee "$OUT/batch-$s.txt" ;;
variants)
  # Kernel or constant variants of one change: each .device/variants/rsim-NAME binary runs with
  # this bundle's libraries (a copy of the wrapper pointing at it), alternating with the bundle's
  # own rsim ("base"), VARIANT_REPEATS times; and the bundle's rsim with the options of each
  # NAME=OPTIONS of VARIANT_OPTIONS (separated by ';'). One CSV of every run.
  s=${2:-medium-room}; sizes=${3:-8,32}
  gen "$s"
  B=/tmp/rsimb/rsim-bundle
  names=(base)
  declare -A opts=([base]="")
  for v in .device/variants/rsim-*; do
    [[ -f $v ]] || continue
    name=${v##*/rsim-}; names+=("$name"); opts[$name]=""
    variant "$v" "rsim-$name"
  done
  IFS=';' read -ra optionVariants <<< "${VARIANT_OPTIONS:-}"
  for v in "${optionVariants[@]}"; do
    [[ -n $v ]] || continue
    names+=("${v%%=*}"); opts[${v%%=*}]=${v#*=}
  done
  rm -rf /tmp/variants
  for r in $(seq "${VARIANT_REPEATS:-2}"); do for name in "${names[@]}"; do
    bin=$RSIM; [[ -f $B/rsim-$name ]] && bin=$B/rsim-$name
    python3 scripts/batch_benchmark.py --rsim "$bin" --scene "$s" --poses "$sizes" --separate 0 --options="${opts[$name]}" \
      --out "/tmp/variants/$name-$r" --tmp /tmp/rsim-batch > /tmp/variants.log 2>&1 || { cat /tmp/variants.log; exit 1; }
    grep "^| $s" /tmp/variants.log | sed "s/^/$name $r /"
  done; done | tee "$OUT/variants-$s.txt"
  python3 -c 'import csv, glob, os, sys
rows = []
for f in sorted(glob.glob("/tmp/variants/*/batch.csv")):
    for r in csv.DictReader(open(f)):
        rows.append({"variant": os.path.basename(os.path.dirname(f)), **r})
w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=list(rows[0].keys())); w.writeheader(); w.writerows(rows)' \
    "$OUT/variants-$s.csv" ;;
statistics)
  B=/tmp/rsimb/rsim-bundle
  $RSIM poses scenes/tiny-room/scene.toml --orbit 4 -o /tmp/poses4.csv
  for bin in $RSIM .device/variants/rsim-*; do
    [[ -f $bin ]] || continue
    name=base
    if [[ $bin != "$RSIM" ]]; then
      name=${bin##*/rsim-}
      variant "$bin" "rsim-$name"
      bin=$B/rsim-$name
    fi
    for k in 1 2 4; do
      RSIM_PIPELINE_STATISTICS=1 $bin run scenes/tiny-room/scene.toml --backend vulkan --poses /tmp/poses4.csv \
        --radiosity-poses $k --no-k-cache --no-timeseries --no-progress --output /tmp/stat-$name-$k 2>&1 |
        grep "pipeline statistics" | sed "s/^/$name poses-per-invocation=$k /"
    done
  done | tee "$OUT/pipeline-statistics.txt" ;;
python)
  s=${2:-medium-room}; poses=${3:-32}
  tar xzf .device/rsim-python.tgz -C /tmp/rsimb ||
    { echo "gpu-run: no .device/rsim-python.tgz (scripts/make-python-bundle.sh .device/rsim-python)"; exit 2; }
  gen "$s"
  /tmp/rsimb/rsim-python/python3 -c "import rsim; print(rsim.devices()[0])"
  python3 scripts/python_overhead_benchmark.py --rsim $RSIM --python /tmp/rsimb/rsim-python/python3 --scene "$s" \
    --poses "$poses" --backend vulkan --repeat "${REPEAT:-3}" 2>&1 | tee "$OUT/python-overhead-$s.txt" ;;
streamblocks)
  gen "$scenes"
  for s in ${scenes//,/ }; do
    for r in 1 2; do
      for mode in resident 1 2 3 4; do
        opts=(--stream never); [[ $mode != resident ]] && opts=(--stream always --pass-blocks "$mode")
        $RSIM run "$(path_of "$s")" --backend vulkan --no-timeseries --no-progress --k-cache /tmp/kcache "${opts[@]}" \
          --output /tmp/sb-$s > /tmp/sb.log 2>&1 || { tail -5 /tmp/sb.log; exit 1; }
        python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); d=s["timings_detail_s"]
print(sys.argv[2], sys.argv[3], sys.argv[4], "loop %.3f s" % d["radiosity_loop"], "streamed %.1f GiB" % d.get("streamed_gib", 0), "radiosity %.3f s" % s["timings_s"]["radiosity"])' \
          /tmp/sb-$s/summary.json "$s" "$r" "$mode"
      done
    done
  done | tee "$OUT/streamblocks.txt" ;;
passblocks)
  many=${3:-0,1}
  gen "$scenes"
  for s in ${scenes//,/ }; do
    for r in 1 2; do
      for run in "0 1" "$many 1" "$many 2" "$many 4"; do
        read -r devs blocks <<< "$run"
        $RSIM run "$(path_of "$s")" --backend vulkan --devices "$devs" --pass-blocks "$blocks" --no-timeseries \
          --no-progress --k-cache /tmp/kcache --output /tmp/pb-$s > /tmp/pb.log 2>&1 || { tail -5 /tmp/pb.log; exit 1; }
        python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); d=s["timings_detail_s"]; t=s["timings_s"]
print(sys.argv[2], sys.argv[3], "devices", sys.argv[4], "blocks", sys.argv[5], "loop %.3f s" % d["radiosity_loop"],
      "exchange %.3f s" % d.get("radiosity_exchange", 0), "radiosity %.3f s" % t["radiosity"], "total %.3f s" % t["total"])' \
          /tmp/pb-$s/summary.json "$s" "$r" "$devs" "$blocks"
      done
    done
  done | tee "$OUT/passblocks.txt" ;;
scale)
  edge=${2:-0.7}
  gen industry
  rm -rf /tmp/scale-inplace /tmp/scale-lives
  for mode in ${SCALE_MODES:-inplace lives}; do
    read -ra opts <<< "${SCALE_RUN_OPTS:-}"
    if [[ $mode == lives ]]; then read -ra more <<< "${SCALE_LIVES_OPTS:---max-device-mb 40000 --max-host-mb 2000}"; opts+=("${more[@]}"); fi
    $RSIM run scenes/generated/industry/scene.toml --backend vulkan --max-edge-m "$edge" --no-k-cache --no-timeseries \
      --no-progress "${opts[@]}" --output /tmp/scale-$mode > "$OUT/scale-$mode-$edge.log" 2>&1
    echo "$mode: exit $?"; grep -E "K |visibility|radiosity|wrote|error" "$OUT/scale-$mode-$edge.log" | head -20
    cp /tmp/scale-$mode/summary.json "$OUT/scale-$mode-$edge-summary.json" 2>/dev/null
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("peak RSS GB", s["peak_host_rss_bytes"]/1e9, "timings", s["timings_s"], "details", s["timings_detail_s"], "rays", s["rays"]["visibility"])' \
      "$OUT/scale-$mode-$edge-summary.json" 2>&1 | tee -a "$OUT/scale.txt"
  done
  [[ -d /tmp/scale-inplace && -d /tmp/scale-lives ]] && $RSIM compare /tmp/scale-inplace /tmp/scale-lives 2>&1 | tail -5 | tee -a "$OUT/scale.txt" ;;
pixels)
  old=${2:?pixels: the older rsim binary}; s=${3:-medium-room}
  variant "$old" rsim-old
  gen "$s"
  python3 scripts/pixel_outputs_benchmark.py --old /tmp/rsimb/rsim-bundle/rsim-old --rsim $RSIM --scene "$s" \
    --repeat "${PIXEL_REPEATS:-3}" --out "$OUT/pixels" 2>&1 | tee "$OUT/pixels.txt" ;;
startup)
  # Run this first on a fresh machine: the first command's row is the cold-driver figure.
  # STARTUP_OLD: an older build's binary (same libraries), whose GPU runs alternate with this one's.
  gen "$scenes"
  compare=()
  if [[ -n ${STARTUP_OLD:-} ]]; then
    variant "$STARTUP_OLD" "$(basename "$STARTUP_OLD")"
    compare=(--compare-rsim "/tmp/rsimb/rsim-bundle/$(basename "$STARTUP_OLD")")
  fi
  python3 scripts/startup_benchmark.py --rsim $RSIM "${compare[@]}" --scenes "$scenes" \
    --backends "${STARTUP_BACKENDS:-vulkan,cpu}" \
    --repeat "${STARTUP_REPEATS:-5}" --cache-scene "${STARTUP_CACHE_SCENE:-medium-room}" \
    --cache-repeat "${STARTUP_CACHE_REPEAT:-2}" --host-rays "${STARTUP_HOST_RAYS:-auto}" \
    --uncached-host-rays "${STARTUP_UNCACHED_HOST_RAYS:-}" --out "$OUT/startup" \
    2>&1 | tee "$OUT/startup.txt" ;;
tests)
  # The tests run rsim as build/rsim (compiled-in path): the bundle's binary is copied there. Each
  # test makes its own Vulkan instance; NVIDIA's driver, loaded again and again beside the
  # validation layer, runs out of glibc's static TLS reserve without the tunable.
  B=/tmp/rsimb/rsim-bundle
  [[ -f build/CMakeCache.txt ]] && { echo "build/ is a real build here: run this stage on the GPU machine only"; exit 2; }
  [[ -x $B/bin/rsim_tests ]] || { echo "the bundle has no tests: make it with make-bundle.sh --with-tests"; exit 2; }
  # The binary itself with its modules beside it, as in a build tree (a test copies it alone to
  # see it name a missing module); the libraries and the driver's ICD as the bundle's wrapper
  # finds them.
  mkdir -p build/tests && rm -f build/rsim build/rsim-*.so build/tests/rsim_tests
  cp $B/bin/rsim $B/bin/rsim-*.so build/
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
             /etc/vulkan/icd.d/nvidia_icd.json; do
    [[ -z ${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-} && -f $icd ]] && export VK_DRIVER_FILES=$icd
  done
  cp $B/bin/rsim_tests build/tests/
  (cd build/tests && GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536 VK_LAYER_PATH=$B/layer \
    LD_LIBRARY_PATH=$B/lib:$B/layer ./rsim_tests --durations yes ${TESTS_FILTER:+"$TESTS_FILTER"}) > "$OUT/gpu-tests.txt" 2>&1
  rc=$?
  grep -E "^(All tests|test cases|assertions)" "$OUT/gpu-tests.txt"
  exit $rc ;;
*) echo "unknown stage $stage"; exit 2 ;;
esac
