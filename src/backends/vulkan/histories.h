// SPDX-License-Identifier: MIT
// The B/Z histories of a transport batch as the Vulkan backend keeps them: on device 0, shared by
// the batch's poses (one pose after the other, or side by side in pose lanes), for the distance
// phases; and their copy to host memory when the caller wants them there.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/results.h"
#include "distance/vulkan_distance.h"
#include "vulkan/buffer.h"
#include "vulkan/device.h"
#include "vulkan/pose_passes.h"

namespace rsim {

// A batch's B/Z history and transport records on device 0, shared by its poses.
struct VulkanBatchHistory {
    vk::Buffer history, records; // B and Z (rsimHistoryIndex, or with `lanes` rsimLaneHistoryIndex), GpuTransportTri[poses][n]
    std::uint32_t n = 0, timesteps = 0;
    bool lanes = false;
    // With pose lanes: the one pose read out into a plain vec2[n][T] last (the distance phases
    // take one pose at a time, three passes each).
    mutable vk::Buffer plain;
    mutable std::uint32_t inPlain = UINT32_MAX;
    // Where the history goes when the group's poses are done: the next group takes it.
    std::weak_ptr<vk::Buffer> spare;

    VulkanBatchHistory() = default;
    VulkanBatchHistory(const VulkanBatchHistory&) = delete;
    VulkanBatchHistory& operator=(const VulkanBatchHistory&) = delete;
    ~VulkanBatchHistory() {
        if (const auto to = spare.lock(); to && !*to) *to = std::move(history);
    }

    // Pose p's vec2[n][T] on `device` (device 0).
    VkDeviceAddress poseHistory(std::uint32_t p, vk::Device& device, vk::PosePasses& passes) const;
};

// One pose's view of it, for the distance phases.
struct VulkanHistory final : DeviceCopy {
    const void* owner = nullptr;
    std::shared_ptr<const VulkanBatchHistory> batch;
    std::uint32_t pose = 0;
    DeviceHistoryView view(vk::Device& device, vk::PosePasses& passes) const {
        return {batch->records.address() + VkDeviceAddress(pose) * batch->n * sizeof(shared::GpuTransportTri),
                batch->poseHistory(pose, device, passes)};
    }
};

// B and Z of the batch's first `into.size()` poses (the others pad the batch) copied from
// device 0 into `into`, whose arrays are sized here: zeroed on other threads (their pages' first
// touch) while the first pieces come; each piece then goes straight into them. `paddedPoses`:
// the poses the history holds.
void downloadHistories(vk::Device& device, const VulkanBatchHistory& batch, std::uint32_t paddedPoses,
                       std::vector<Histories>& into);

} // namespace rsim
