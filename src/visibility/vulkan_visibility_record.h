// SPDX-License-Identifier: MIT
// One launch of the visibility pass recorded into a command buffer (vulkan_visibility_record.cpp),
// which the launch loops of vulkan_visibility.cpp record one after another. Internal to
// src/visibility/.
#pragma once
#include <cstdint>

#include "visibility/vulkan_visibility.h"

namespace rsim {

// One launch of its phases: the facing pairs listed, the tiles' occluder lists (when on), the
// rays, then the near pairs the rays listed (gpu_layout.h). The lists are emptied first; the
// barrier at the end lets the next launch reuse them. With `ts`, the launch writes timestamps
// first to first + kLaunchStamps - 1 (reset by the caller).
void recordVisibilityLaunch(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush p,
                            const VisibilityLists& lists, VkCommandBuffer cmd, const vk::Timestamps* ts = nullptr,
                            std::uint32_t first = 0);

} // namespace rsim
