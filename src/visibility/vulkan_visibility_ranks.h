// SPDX-License-Identifier: MIT
// K of an MPI rank's rows in row-block mode (k/row_share.h) on the rank's Vulkan device, each
// pair cast once in the job, as on the CPU backend: the rank casts its block's upper triangle
// and its half of the block of pairs it shares with every other rank (RowShare::pairBlock, cut
// at a chunk boundary), keeping both K_ij and K_ji of each pair on its device in fp32, the
// other rank's side in a scratch chunk that goes to that rank. The ranks swap those halves
// while the devices cast their own blocks, each copies what it received into place, and
// encodes its rows on its device. Without it (K computed where it lives) each rank casts the
// full rows of its chunks: the pairs between two ranks' rows are cast by both.
#pragma once
#include <cstdint>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "k/gpu_k.h"
#include "k/k_plan.h"
#include "k/row_share.h"
#include "visibility/vulkan_visibility_chunked.h"

namespace rsim {

// Device memory the assembly takes besides what the plan counts: this rank's rows of K in fp32,
// and two scratch chunks.
std::uint64_t rankAssemblyDeviceBytes(const RowShare& share);

struct RankAssembledK {
    DeviceK K;                    // this rank's chunks, in the plan's format
    VisibilityStats stats;        // this rank's pairs and rays; the row sums of its rows
    KErrors errors;               // of the encoding, against fp32
    double raySeconds = 0.0;      // until the device finished casting and the halves were in place
    double exchangeSeconds = 0.0; // the swap of half blocks (while the device cast its block)
    double compressSeconds = 0.0; // the encoding in place
};

// Collective: every rank of `share` calls it, with one device each.
RankAssembledK computeKRankAssembled(const VisibilityDevice& device, const PreparedScene& prepared,
                                    const KSettings& settings, const KPlan& plan, const RowShare& share);

} // namespace rsim
