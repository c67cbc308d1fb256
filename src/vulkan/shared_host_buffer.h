// SPDX-License-Identifier: MIT
// Host memory several devices copy into and out of: one page-aligned allocation imported into
// each device (VK_EXT_external_memory_host) as a transfer buffer of that device. One device's
// copy writes a region that another's copy then reads, with no copy by the host between them;
// the order is the caller's (wait for the writer's semaphore, then let the reader's work go).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vulkan/device.h"

namespace rsim::vk {

class SharedHostBuffer {
  public:
    // Null, with the reason in `why`, when a device does not import host memory or its driver
    // refuses this allocation; nothing is left allocated then.
    static std::unique_ptr<SharedHostBuffer> tryCreate(const std::vector<Device*>& devices, std::uint64_t bytes,
                                                       const std::string& name, std::string* why = nullptr);
    // Every device's work on it must be done (the caller waits for it).
    ~SharedHostBuffer();
    SharedHostBuffer(const SharedHostBuffer&) = delete;
    SharedHostBuffer& operator=(const SharedHostBuffer&) = delete;

    // The buffer of devices[d], for vkCmdCopyBuffer (transfer source and destination).
    VkBuffer buffer(std::size_t d) const { return parts_[d].buffer; }
    void* data() const { return data_; }
    std::uint64_t size() const { return bytes_; }

  private:
    SharedHostBuffer() = default;
    struct Part {
        Device* device = nullptr;
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
    };
    std::vector<Part> parts_;
    void* data_ = nullptr;
    std::uint64_t bytes_ = 0;
};

} // namespace rsim::vk
