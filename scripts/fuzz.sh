#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan) in build-fuzz/ and fuzzes each
# one for a fixed time, starting from the committed corpus fuzz/corpus/TARGET. Any crash, hang
# (an input that runs longer than --timeout), leak or sanitizer report fails the script; the
# input that caused it is kept in build-fuzz/findings/ (docs/reliability.md: reproducing one).
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [TARGET...]   fuzz N seconds per target (default 40)
#   scripts/fuzz.sh --reseed                               rebuild the committed corpus: the
#        repository's scenes and Debian's assimp-testmodels, minimised by libFuzzer's -merge
# Targets: scene_file poses_csv mesh_file (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."

# --timeout: above the 10 s that rsim itself gives assimp on a small file (mesh_import.cpp). An
# input slower than that but under --timeout is rsim stopping a looping assimp, as it should: so
# libFuzzer's slow-unit report (default 10 s, kept in findings/) starts at --timeout too.
seconds=40 jobs=1 reseed=0 timeout=25 targets=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --reseed) reseed=1; shift ;;
    -h|--help) sed -n '3,12p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=(scene_file poses_csv mesh_file)

scripts/install-deps.sh
if [[ ! -f build-fuzz/CMakeCache.txt ]]; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRSIM_FUZZ=ON -DRSIM_BUILD_TESTS=OFF -DRSIM_PYTHON=OFF >/dev/null
fi
cmake --build build-fuzz -j "${RSIM_JOBS:-$(nproc)}" --target "${targets[@]/#/fuzz_}"

# Sanitizer settings of every run: stop at the first report, with a usable stack.
# Allocations over 2 GiB fail: malloc returns null; operator new is reported as out of memory
# (AddressSanitizer does not throw std::bad_alloc), which ends assimp's child process (an input
# error for rsim) and is a finding in rsim's own code: a hostile header may ask for anything, and
# rsim must check sizes before it allocates.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# A mesh seed is the format's index (fuzz_mesh_file.cpp) as one byte, then the file.
mesh_seed() { # $1: format index, $2: file, $3: output folder
  { printf "\\$(printf '%03o' "$1")"; cat "$2"; } >"$3/$(basename "$2").seed"
}

if [[ $reseed -eq 1 ]]; then
  seeds=build-fuzz/seeds
  rm -rf "$seeds" && mkdir -p "$seeds"/{scene_file,poses_csv,mesh_file}
  find scenes tests -name '*.toml' -size -64k -exec cp --backup=numbered -t "$seeds/scene_file" {} +
  printf 'name,x,y,z,look_x,look_y,look_z\na,0,0,1,0,0,0\nb,1,2,3,0,0,0\n' >"$seeds/poses_csv/minimal.csv"
  printf 'name,x,y,z,look_x,look_y,look_z,up_x,up_y,up_z\n# comment\n\np-1,0.5,-1e3,2,0,0,0,0,0,1\n' \
    >"$seeds/poses_csv/with-up.csv"
  models=/usr/share/assimp/models
  [[ -d $models ]] || { echo "fuzz.sh: --reseed needs Debian's assimp-testmodels" >&2; exit 1; }
  formats=(obj ply stl gltf glb dae off 3ds)
  for i in "${!formats[@]}"; do
    while IFS= read -r f; do mesh_seed "$i" "$f" "$seeds/mesh_file"; done < <(
      find "$models" scenes -iname "*.${formats[$i]}" -size -64k)
  done
  for t in "${targets[@]}"; do
    rm -rf "fuzz/corpus/$t" && mkdir -p "fuzz/corpus/$t"
    "build-fuzz/fuzz/fuzz_$t" -merge=1 -timeout="$timeout" -malloc_limit_mb=65536 -max_len=65536 "fuzz/corpus/$t" "$seeds/$t"
    echo "fuzz.sh: $t: $(ls "fuzz/corpus/$t" | wc -l) inputs in fuzz/corpus/$t"
  done
  exit 0
fi

status=0
for t in "${targets[@]}"; do
  work=build-fuzz/work/$t findings=build-fuzz/findings/$t
  rm -rf "$findings" && mkdir -p "$work" "$findings"
  log=build-fuzz/fuzz-$t.log
  echo "fuzz.sh: $t for ${seconds} s (log: $log)"
  # New inputs go to $work; the committed corpus is only read.
  if "build-fuzz/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout="$timeout" -report_slow_units="$timeout" -rss_limit_mb=4096 -malloc_limit_mb=65536 -max_len=65536 \
      $([[ $jobs -gt 1 ]] && echo "-jobs=$jobs -workers=$jobs") -print_final_stats=1 -artifact_prefix="$findings/" "$work" "fuzz/corpus/$t" \
      >"$log" 2>&1 && [[ -z $(ls -A "$findings") ]]; then
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" | tail -4 |
      sed "s/^/fuzz.sh: $t: /" || true
  else
    status=1
    echo "fuzz.sh: $t: FAILED; the end of $log:" >&2
    tail -40 "$log" >&2
    ls "$findings" >&2
    echo "fuzz.sh: reproduce one with build-fuzz/fuzz/fuzz_$t FILE (or build/fuzz/rsim_replay_$t FILE)" >&2
  fi
done
exit $status
