// SPDX-License-Identifier: MIT
// A rough forecast of a run's size and time, logged before the long phases start (issue 15):
// K's bytes, the histories', the rays of the visibility and the time of visibility and
// transport from typical throughputs (docs/benchmarks.md, "One GPU: whole run and phases" and
// "CPU backend"). Within a
// factor of about two on rooms; it says so.
#pragma once
#include <cstddef>
#include <string>

#include "core/run_metadata.h"
#include "core/sim_config.h"

namespace rsim {

struct RunEstimate {
    double kBytes = 0.0;              // K in its storage format
    double historyBytesPerPose = 0.0; // B and Z, N x T x 8 bytes
    double rays = 0.0;                // visibility rays (0 when K comes from the cache)
    double visibilitySeconds = 0.0;
    double transportSecondsPerPose = 0.0;
    // Host memory the run will hold at its peak, roughly: K where the CPU backend keeps it (fp32
    // while computing, then its storage format), one pose's B, Z, E and R, and the images.
    double hostKBytes = 0.0, hostHistoryBytes = 0.0, hostImageBytes = 0.0;
    // What a caller that keeps every pose's result (Python) holds at the end: `retainedPoses`
    // times the images, transient and (with histories) B and Z of one pose.
    double retainedBytesPerPose = 0.0;
    std::size_t retainedPoses = 0;
    double hostBytes() const {
        return hostKBytes + hostHistoryBytes + hostImageBytes + retainedBytesPerPose * double(retainedPoses);
    }
    std::string where; // the throughput it assumed, in words
};

RunEstimate estimateRun(const RunMetadata& meta, std::size_t triangles, const SimConfig& config, bool kCached);
// Counts `poses` results kept whole by the caller (RunOptions::keepsEveryPose), each with its
// histories when `histories`.
void countRetainedPoses(RunEstimate& e, std::size_t triangles, const SimConfig& config, std::size_t poses,
                        bool histories);
// An InputError when the run would need more host memory than the machine has available, with
// the numbers and the settings to change; before any large allocation.
void checkHostMemory(const RunEstimate& e, const SimConfig& config, std::uint64_t availableBytes);
// One log line: "estimate (rough): ...".
std::string describeEstimate(const RunEstimate& e, std::size_t poses);
// The same for the paths transport (MODEL.md §10.2): its rays and time from typical throughput.
std::string describePathsEstimate(const RunMetadata& meta, const SimConfig& config, std::size_t poses);

} // namespace rsim
