// SPDX-License-Identifier: MIT
// Near-pair lists from K where a Vulkan device holds it: a pass on the device over its resident
// chunks (shaders/near_pairs.comp), or the host grid builder over chunks streamed from pinned
// memory. The lists equal buildNearLists' (transport/near_pairs.h): same pairs, same order.
#pragma once
#include <cstdint>

#include "k/gpu_k.h"
#include "transport/near_pairs.h"

namespace rsim {

// The near lists' pipeline for K stored as `storage`, for the device's warm-up.
vk::PipelineRecipe nearPairsRecipe(std::uint32_t storage, std::uint32_t layout = shared::RSIM_K_LAYOUT_DENSE);

// Columns an invocation of the device's pass scans (one per row and block of columns), and the
// most (row, block) counts it makes (64 MiB each way between host and device: wider blocks
// beyond about 185k triangles, whose rows alone keep the device busy).
inline constexpr std::uint32_t kNearListColumns = 2048;
inline constexpr std::uint64_t kNearListCounts = std::uint64_t(1) << 24;

// The lists of the rows of K's held chunks (the other rows' lists are empty). `records` are the
// transport records (GpuTransportTri) on the device. `columns`, `maxCounts`: the pass's blocks
// of columns (tests make them small, or few).
NearLists buildNearListsVulkan(vk::Device& device, const DeviceK& K, const vk::Buffer& records,
                               const PreparedScene& scene, const SimConfig& config, std::uint32_t nearBelow,
                               std::uint32_t columns = kNearListColumns, std::uint64_t maxCounts = kNearListCounts);

} // namespace rsim
