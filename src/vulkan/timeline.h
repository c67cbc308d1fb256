// SPDX-License-Identifier: MIT
// A timeline semaphore and its values, owned: destroyed (after the device has reached every
// value it was asked to signal) with the object, so that a long-lived device does not collect
// them. Work is submitted through submit(), so that the value advances only once a submission
// has been made: a failed one leaves no value that nothing will signal.
#pragma once

#include <functional>
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
    // Records and submits a command buffer (Device::submitAsync) that signals the next value,
    // after `wait` has reached `waitValue` when given. Returns the value it signals.
    std::uint64_t submit(bool transferQueue, const std::function<void(VkCommandBuffer)>& record,
                         const TimelineSemaphore* wait = nullptr, std::uint64_t waitValue = 0);
    // Signals `v` from the host (greater than every value signalled or given before): for a
    // semaphore that the host alone signals, which submissions wait on (a gate).
    void signal(std::uint64_t v);
    // The last value given to a submission or signalled (0: none yet).
    std::uint64_t value() const { return value_; }
    // Blocks until the device has signalled `v` (or everything given so far).
    void wait(std::uint64_t v) const;
    void waitAll() const { wait(value_); }
    // Waits at most `timeoutNs` for `v`; whether the device has signalled it.
    bool waitFor(std::uint64_t v, std::uint64_t timeoutNs) const;

  private:
    Device* device_;
    VkSemaphore semaphore_ = VK_NULL_HANDLE;
    std::uint64_t value_ = 0;
};

} // namespace rsim::vk
