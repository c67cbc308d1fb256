// SPDX-License-Identifier: MIT
// VK_CHECK: a failed Vulkan call becomes an rsim::Error naming the result, the call and the
// place. volk provides the function pointers; no link-time dependency on the loader.
#pragma once
#include <volk.h>

namespace rsim::vk {

const char* resultName(VkResult result);
[[noreturn]] void fail(VkResult result, const char* call, const char* file, int line);

} // namespace rsim::vk

#define VK_CHECK(call)                                                                             \
    do {                                                                                           \
        VkResult vkCheckResult_ = (call);                                                          \
        if (vkCheckResult_ != VK_SUCCESS)                                                          \
            ::rsim::vk::fail(vkCheckResult_, #call, __FILE__, __LINE__);                           \
    } while (0)
