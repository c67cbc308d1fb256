// SPDX-License-Identifier: MIT
// A timeline semaphore and its values, owned: destroyed (after the device has reached every
// value it was asked to signal) with the object, so that a long-lived device does not collect
// them. submitAsync() signals next(); waits name a value the semaphore has been given.
#pragma once
#include <cstdint>
#include <string>

#include "vulkan/device.h"

namespace rsim::vk {

class TimelineSemaphore {
  public:
    TimelineSemaphore(Device& device, const std::string& name);
    ~TimelineSemaphore();
    TimelineSemaphore(TimelineSemaphore&& other) noexcept;
    TimelineSemaphore& operator=(TimelineSemaphore&&) = delete;
    TimelineSemaphore(const TimelineSemaphore&) = delete;
    TimelineSemaphore& operator=(const TimelineSemaphore&) = delete;

    VkSemaphore handle() const { return semaphore_; }
    // The value the next submission signals; value() is then that value.
    std::uint64_t next() { return ++value_; }
    // The last value given to a submission (0: none yet).
    std::uint64_t value() const { return value_; }
    // Blocks until the device has signalled `v` (or everything given so far).
    void wait(std::uint64_t v) const;
    void waitAll() const { wait(value_); }

  private:
    Device* device_;
    VkSemaphore semaphore_ = VK_NULL_HANDLE;
    std::uint64_t value_ = 0;
};

} // namespace rsim::vk
