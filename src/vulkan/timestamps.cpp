// SPDX-License-Identifier: MIT
#include "vulkan/timestamps.h"

#include <algorithm>

#include "vulkan/vk_check.h"

namespace rsim::vk {

Timestamps::Timestamps(Device& device, std::uint32_t count, const std::string& name)
    : device_(&device), count_(count) {
    if (!device.computeTimestamps() || count == 0) return;
    VkQueryPoolCreateInfo ci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    ci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    ci.queryCount = count;
    VK_CHECK(device.vk().vkCreateQueryPool(device.handle(), &ci, nullptr, &pool_));
    device.name(pool_, VK_OBJECT_TYPE_QUERY_POOL, name);
}

Timestamps::~Timestamps() {
    if (pool_) device_->vk().vkDestroyQueryPool(device_->handle(), pool_, nullptr);
}

void Timestamps::reset(VkCommandBuffer cmd) const {
    if (pool_) device_->vk().vkCmdResetQueryPool(cmd, pool_, 0, count_);
}

void Timestamps::write(VkCommandBuffer cmd, std::uint32_t index) const {
    if (pool_) device_->vk().vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, index);
}

std::vector<double> Timestamps::intervals(std::uint32_t written) const {
    written = std::min(written, count_);
    std::vector<double> out(written > 0 ? written - 1 : 0, 0.0);
    if (!pool_ || written < 2) return out;
    std::vector<std::uint64_t> ticks(written);
    VK_CHECK(device_->vk().vkGetQueryPoolResults(device_->handle(), pool_, 0, written,
                                                 written * sizeof(std::uint64_t), ticks.data(), sizeof(std::uint64_t),
                                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    const double period = double(device_->limits().timestampPeriod) * 1e-9; // seconds per tick
    for (std::uint32_t k = 0; k + 1 < written; ++k)
        out[k] = ticks[k + 1] >= ticks[k] ? double(ticks[k + 1] - ticks[k]) * period : 0.0;
    return out;
}

} // namespace rsim::vk
