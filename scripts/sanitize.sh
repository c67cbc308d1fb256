#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The AddressSanitizer + UndefinedBehaviorSanitizer job: builds rsim and its tests with
# -fsanitize=address,undefined in build-asan/ and runs the CPU-backend tests and the fuzz corpus
# replays there. Vulkan is hidden from this run (no driver), so the Vulkan tests skip: they run
# under the validation layer in the normal suite. Any sanitizer report fails a test.
#   scripts/sanitize.sh [extra ctest options, e.g. -R corpus]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [[ ! -f build-asan/CMakeCache.txt ]]; then
  # -O1 -g1: line tables for the reports' stacks, at half the compile time of -O2 -g.
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Asan -DCMAKE_CXX_FLAGS_ASAN="-O1 -g1" \
    -DCMAKE_C_FLAGS_ASAN="-O1 -g1" -DRSIM_SANITIZE=ON -DRSIM_PYTHON=OFF -DRSIM_MPI=OFF >/dev/null
fi
cmake --build build-asan -j "${RSIM_JOBS:-$(nproc)}"

# No Vulkan driver: the loader finds none, the Vulkan tests skip, `auto` runs on the CPU.
export VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json RSIM_TESTS_ALLOW_NO_VULKAN=1
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:allocator_may_return_null=1:max_allocation_size_mb=2048
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd build-asan
# Tests that only exist to run Python or pip need the normal build (no Python module here); MPI
# is left out of this build (Open MPI's own allocations would read as leaks).
ctest --output-on-failure -j "${RSIM_JOBS:-$(nproc)}" -E "Python|pip|example" "$@"
