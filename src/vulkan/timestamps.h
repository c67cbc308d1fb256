// SPDX-License-Identifier: MIT
// GPU timestamps written between the passes of a command buffer (VK_QUERY_TYPE_TIMESTAMP): how
// long each pass took on the device, which the host's clock around a submission cannot tell.
// Where the compute queue has no timestamps, nothing is written and the times read as 0.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "vulkan/device.h"

namespace rsim::vk {

class Timestamps {
  public:
    // `count` timestamps per command buffer.
    Timestamps(Device& device, std::uint32_t count, const std::string& name);
    ~Timestamps();
    Timestamps(const Timestamps&) = delete;
    Timestamps& operator=(const Timestamps&) = delete;

    bool available() const { return pool_ != VK_NULL_HANDLE; }
    // At the start of the command buffer, before any write.
    void reset(VkCommandBuffer cmd) const;
    // Timestamp `index`, once every command recorded before it has completed.
    void write(VkCommandBuffer cmd, std::uint32_t index) const;
    // After the command buffer has completed: seconds from timestamp k to k + 1, for each k below
    // `written` - 1 (all 0 without timestamps). Only timestamps the command buffer wrote may be
    // read: the driver waits for the others forever.
    std::vector<double> intervals(std::uint32_t written) const;
    std::vector<double> intervals() const { return intervals(count_); }

  private:
    Device* device_;
    std::uint32_t count_;
    VkQueryPool pool_ = VK_NULL_HANDLE;
};

} // namespace rsim::vk
