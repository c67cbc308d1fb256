// SPDX-License-Identifier: MIT
#include "backends/vulkan/k_memory.h"

#include <algorithm>

#include "transport/vulkan_transport.h"
#include "util/error.h"
#include "vulkan/device_group.h"

namespace rsim {

KPlan planKOnDevices(const std::vector<VulkanSlot>& slots, std::uint64_t n, const KChunking& chunking,
                     std::uint32_t transportSteps, const KMemoryLimits& limits, const RowShare* share,
                     std::vector<DeviceBudget>& budgets, std::uint64_t visibilityBytes, bool segments) {
    for (const VulkanSlot& slot : slots) {
        vk::Device& dev = *slot.device;
        DeviceBudget b;
        b.label = dev.label();
        b.budgetBytes = dev.deviceLocalBudget();
        if (limits.maxDeviceBytes) b.budgetBytes = std::min(b.budgetBytes, limits.maxDeviceBytes);
        // Scene and BVH are already allocated; the budget query saw them. Add the transport's
        // buffers and a margin for the visibility scratch (one fp32 chunk) and the pipelines.
        const std::uint64_t scratch = chunking.as(KFormat::Fp32).largestChunkBytes();
        b.fixedBytes = transportReserveBytes(n, transportSteps) + scratch + visibilityBytes + (8ull << 20);
        budgets.push_back(b);
    }
    if (share && share->chunking().rowsPerChunk != chunking.rowsPerChunk)
        throw Error("internal: the row share was cut for other chunks");
    return share ? planK(chunking, budgets, limits.stream, limits.maxHostBytes, share->firstChunk(), share->endChunk(),
                         segments)
                 : planK(chunking, budgets, limits.stream, limits.maxHostBytes, 0, UINT32_MAX, segments);
}

std::vector<DeviceK> placeK(const std::vector<VulkanSlot>& slots, const HostK& K, const KPlan& plan,
                            const std::function<void(std::uint32_t)>& uploaded) {
    std::vector<DeviceK> parts(slots.size());
    if (K.layout() == KLayout::Segments && !plan.budgets.empty())
        for (std::uint32_t d = 0; d < slots.size(); ++d) {
            if (plan.streamed[d]) continue; // in host memory
            const std::vector<std::uint32_t> ids = plan.chunksOf(d);
            std::uint64_t bytes = 0;
            for (std::uint32_t c : ids) bytes += K.segments(c).bytes();
            plan.checkSegmentsFit(d, bytes, std::uint32_t(ids.size()), std::uint32_t(ids.size()));
        }
    vk::forEachDevice(slots.size(), [&](std::size_t d) {
        parts[d] = uploadChunks(*slots[d].device, K, plan.chunksOf(std::uint32_t(d)), plan.streamed[d],
                                plan.streamGroup[d], uploaded);
    });
    return parts;
}

} // namespace rsim
