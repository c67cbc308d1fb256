// SPDX-License-Identifier: MIT
#include "backends/vulkan/histories.h"

#include <future>

#include "rsim/shared/gpu_layout.h"
#include "util/parallel.h"
#include "vulkan/pass.h"
#include "vulkan/piece_reader.h"
#include "vulkan/shaders.h"

namespace rsim {

VkDeviceAddress VulkanBatchHistory::poseHistory(std::uint32_t p, vk::Device& device, vk::PosePasses& passes) const {
    const std::uint64_t poseBytes = std::uint64_t(n) * timesteps * sizeof(glm::vec2);
    if (!lanes) return history.address() + VkDeviceAddress(p) * poseBytes;
    if (inPlain != p) {
        if (!plain) plain = vk::Buffer(device, poseBytes, vk::kStorageUsage, vk::MemoryKind::Device, "B/Z history of a pose");
        if (!passes.fromLanes)
            passes.fromLanes = std::make_unique<vk::Pass<shared::HistoryFromLanesPush>>(
                device, vk::shaders::historyFromLanes(), vk::SpecConstants{}, "B/Z history from pose lanes");
        shared::HistoryFromLanesPush push{};
        push.source = history.address();
        push.destination = plain.address();
        push.n = n;
        push.timesteps = timesteps;
        push.pose = p;
        device.submitAndWait([&](VkCommandBuffer cmd) {
            vk::computeBarrier(device, cmd);
            passes.fromLanes->bind(cmd);
            passes.fromLanes->dispatchRows(cmd, push, std::uint64_t(n) * timesteps);
        });
        inPlain = p;
    }
    return plain.address();
}

void downloadHistories(vk::Device& device, const VulkanBatchHistory& batch, std::uint32_t paddedPoses,
                       std::vector<Histories>& into) {
    const std::uint32_t n = batch.n, T = batch.timesteps;
    const std::size_t count = std::size_t(n) * T, real = into.size();
    // Each pose's [n][T] follows the previous one's, or the poses lie side by side in lanes
    // (gpu_layout.h).
    std::future<void> sized = std::async(std::launch::async, [&] {
        parallelFor(2 * real, 1, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t x = begin; x < end; ++x) (x % 2 ? into[x / 2].Z : into[x / 2].B).resize(count);
        });
    });
    vk::downloadPieces(device, batch.history, std::uint64_t(count) * paddedPoses * sizeof(glm::vec2),
                       [&](std::uint64_t offset, const void* data, std::uint64_t bytes) {
        if (sized.valid()) sized.get();
        const auto* bz = static_cast<const glm::vec2*>(data);
        const std::size_t first = std::size_t(offset / sizeof(glm::vec2));
        parallelFor(std::size_t(bytes / sizeof(glm::vec2)), 1 << 14, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t e = begin; e < end; ++e) {
                const std::size_t at = first + e;
                std::size_t p, k;
                if (batch.lanes) { // history indices are 32-bit (runTransportVulkan checks)
                    const glm::uvec2 entry = shared::rsimLaneHistoryEntry(std::uint32_t(at), T, n);
                    p = entry.x;
                    k = entry.y;
                } else {
                    p = at / count;
                    k = at % count;
                }
                if (p >= real) continue; // a padding pose
                into[p].B[k] = bz[e].x;
                into[p].Z[k] = bz[e].y;
            }
        });
    });
    if (sized.valid()) sized.get();
}

} // namespace rsim
