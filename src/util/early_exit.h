// SPDX-License-Identifier: MIT
// Asked to (`--set tuning.early_exit=true`, docs/tuning.md), `rsim run` ends when its results are
// in place, not when its devices are gone: the driver's teardown of a GPU context takes a few
// hundredths of a second (docs/benchmarks.md, "GPU start-up"), and nothing the user asked for
// waits on it. So before any thread exists the process forks: the child (the worker) runs the
// command, the parent waits. When the worker's results are in place it says so (resultsInPlace);
// the parent then exits with the worker's code at once, while the worker releases its devices and
// memory and ends unseen. A worker that ends without a word (an error, a signal, a crash) hands
// the parent its status. By default one run is one process, so that a monitor of the process
// sees the run's memory.
//
// Only a run that holds little leaves its release behind (resultsInPlace's limits): a large
// release could still be freeing memory when the next command starts, and beside a large run
// its 0.05 s do not matter. The parent passes on the stop signals it is sent (SIGINT, SIGTERM,
// SIGHUP; the worker takes a copy that also reached it through the process group as the same
// stop), and a parent killed outright takes the worker with it until the results are in place
// (docs/architecture.md, "The end of a run").
#pragma once
#include <cstdint>

namespace rsim::earlyexit {

// Forks when that is safe: this process has one thread and was not started by an MPI launcher
// (and not under AddressSanitizer, whose reports at the end must reach the command's output).
// Returns in the worker (or in this process when it did not fork); the parent does not return.
void forkWorker();

// In the worker: the run's results, logs and caches are in place. When the run's devices hold
// at most `kMaxDeviceBytes` and this process at most `kMaxHostBytes` of host memory, the parent
// exits with code 0 now, and the worker's stdin, stdout and stderr become /dev/null (a reader
// of the command's pipe sees its end now). Otherwise, and outside a worker, nothing happens.
inline constexpr std::uint64_t kMaxDeviceBytes = std::uint64_t(4) << 30;
inline constexpr std::uint64_t kMaxHostBytes = std::uint64_t(4) << 30;
void resultsInPlace(std::uint64_t deviceBytes);

} // namespace rsim::earlyexit
