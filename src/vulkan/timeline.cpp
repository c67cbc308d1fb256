// SPDX-License-Identifier: MIT
#include "vulkan/timeline.h"

#include <utility>

#include "vulkan/vk_check.h"

namespace rsim::vk {

TimelineSemaphore::TimelineSemaphore(Device& device, const std::string& name)
    : device_(&device) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = 0;
    VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    ci.pNext = &type;
    VK_CHECK(device.vk().vkCreateSemaphore(device.handle(), &ci, nullptr, &semaphore_));
    device.name(semaphore_, VK_OBJECT_TYPE_SEMAPHORE, name);
}

TimelineSemaphore::TimelineSemaphore(TimelineSemaphore&& o) noexcept
    : device_(o.device_), semaphore_(std::exchange(o.semaphore_, VK_NULL_HANDLE)),
      value_(o.value_) {}

TimelineSemaphore::~TimelineSemaphore() {
    if (!semaphore_) return;
    try {
        // Work still in flight signals this semaphore, and the device's list of command buffers
        // to free refers to it: both must be done before it goes.
        waitAll();
        device_->reclaim();
    } catch (...) {
        device_->forgetPending(semaphore_); // the wait failed (device lost): free what refers to it
    }
    device_->vk().vkDestroySemaphore(device_->handle(), semaphore_, nullptr);
}

std::uint64_t TimelineSemaphore::submit(bool transferQueue,
                                        const std::function<void(VkCommandBuffer)>& record,
                                        const TimelineSemaphore* wait, std::uint64_t waitValue) {
    device_->submitAsync(transferQueue, record, wait ? wait->handle() : VK_NULL_HANDLE,
                         wait ? waitValue : 0, semaphore_, value_ + 1);
    return ++value_;
}

void TimelineSemaphore::signal(std::uint64_t v) {
    VkSemaphoreSignalInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    si.semaphore = semaphore_;
    si.value = v;
    VK_CHECK(device_->vk().vkSignalSemaphore(device_->handle(), &si));
    value_ = v;
}

void TimelineSemaphore::wait(std::uint64_t v) const { waitFor(v, UINT64_MAX); }

bool TimelineSemaphore::waitFor(std::uint64_t v, std::uint64_t timeoutNs) const {
    if (v == 0) return true;
    VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wi.semaphoreCount = 1;
    wi.pSemaphores = &semaphore_;
    wi.pValues = &v;
    const VkResult r = device_->vk().vkWaitSemaphores(device_->handle(), &wi, timeoutNs);
    if (r == VK_TIMEOUT) return false;
    VK_CHECK(r);
    return true;
}

} // namespace rsim::vk
