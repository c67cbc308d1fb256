// SPDX-License-Identifier: MIT
// Near-pair lists from K where a Vulkan device holds it: a pass on the device over its resident
// chunks (shaders/near_pairs.comp), or the host grid builder over chunks streamed from pinned
// memory. The lists equal buildNearLists' (transport/near_pairs.h): same pairs, same order.
#pragma once
#include "k/gpu_k.h"
#include "transport/near_pairs.h"

namespace rsim {

// The near lists' pipeline for K stored as `storage`, for the device's warm-up.
vk::PipelineRecipe nearPairsRecipe(std::uint32_t storage);

// The lists of the rows of K's held chunks (the other rows' lists are empty). `records` are the
// transport records (GpuTransportTri) on the device.
NearLists buildNearListsVulkan(vk::Device& device, const DeviceK& K, const vk::Buffer& records,
                               const PreparedScene& scene, const SimConfig& config, std::uint32_t nearBelow);

} // namespace rsim
