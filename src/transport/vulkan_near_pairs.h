// SPDX-License-Identifier: MIT
// Near-pair lists built on the device from a resident K (the single-device path); the lists are
// the same as buildNearLists' (transport/near_pairs.h): same pairs, same order.
#pragma once
#include "transport/near_pairs.h"
#include "visibility/vulkan_visibility.h"

namespace rsim {

NearLists buildNearListsVulkan(const vk::Device& device, const GpuKMatrix& K,
                               const std::vector<shared::GpuTransportTri>& records, const SimConfig& config);

} // namespace rsim
