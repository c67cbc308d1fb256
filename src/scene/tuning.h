// SPDX-License-Identifier: MIT
// The [tuning] table (docs/tuning.md): how rsim does the work, not what it simulates. Sweeps,
// studies and tests set it (`--set tuning.KEY=VALUE`, or a [tuning] table in the scene file);
// users need not. Results do not depend on it, but for the order of GPU sums some keys change.
// A key left out keeps rsim's default.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace rsim {

struct TuningDesc {
    std::optional<std::uint32_t> passBlocks;             // pass_blocks: 8-step blocks per pass over K
    std::optional<std::uint32_t> radiositySplit;         // radiosity_split: source slices per workgroup
    std::optional<std::uint32_t> radiosityUnroll;        // radiosity_unroll: sources per loop trip
    std::optional<std::uint32_t> radiosityPoses;         // radiosity_poses: poses per invocation (1, 2, 4)
    std::optional<std::string> radiosityLanes;           // radiosity_lanes: auto | off
    std::optional<std::uint32_t> radiosityLaneReceivers; // radiosity_lane_receivers
    std::optional<bool> radiosityStaged;                 // radiosity_staged: segments staged in shared memory
    std::optional<double> chunkMb;                       // chunk_mb: K chunk size, MiB
    std::optional<bool> kijErrors;                       // kij_errors: every format's error against fp32 K
    std::optional<std::string> hostRays;                 // host_rays: auto | always | never
    std::optional<std::string> cpuIsa;                   // cpu_isa: auto | baseline | x86-64-v3 | x86-64-v4
    std::optional<std::uint32_t> writers;                // writers: a batch's background writers
    std::optional<std::uint32_t> poseGroup;              // pose_group: poses whose transport runs at once
    std::optional<bool> validation;                      // validation: the Khronos validation layer
    std::optional<bool> earlyExit;                       // early_exit: end before the devices' release
};

} // namespace rsim
