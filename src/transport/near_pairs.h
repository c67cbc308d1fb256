// SPDX-License-Identifier: MIT
// The near pairs of the time-blocked transport (delay < RSIM_TIME_BLOCK), from a spatial grid:
// only triangles within RSIM_TIME_BLOCK c dt of each other can be near, so the lists cost
// O(N x neighbours) instead of a pass over all of K.
#pragma once
#include <functional>
#include <vector>

#include "core/prepared_scene.h"
#include "core/sim_config.h"
#include "rsim/shared/gpu_layout.h"

namespace rsim {

struct NearLists {
    std::vector<std::uint32_t> offsets; // receiver i's pairs are [offsets[i], offsets[i + 1])
    std::vector<shared::NearPair> pairs; // sources in increasing order per receiver
};

// `K(i, j)` returns the decoded K_ij the transport uses.
// `nearBelow`: the delays that are near (rsimIsNearDelay). Only the lists of rows
// [rowBegin, rowEnd) are built (the others are empty).
NearLists buildNearLists(const PreparedScene& scene, const SimConfig& config,
                         const std::function<float(std::uint32_t, std::uint32_t)>& K,
                         std::uint32_t nearBelow = shared::RSIM_TIME_BLOCK, std::uint32_t rowBegin = 0,
                         std::uint32_t rowEnd = UINT32_MAX);

// The lists of several builders that each covered other rows (the rows' lists, in row order).
NearLists mergeNearLists(const std::vector<NearLists>& parts);

} // namespace rsim
