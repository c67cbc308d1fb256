// SPDX-License-Identifier: MIT
#include "vulkan/vk_check.h"

#include <string>

#include "util/error.h"

namespace rsim::vk {

const char* resultName(VkResult r) {
    switch (r) {
#define RSIM_VK_RESULT(x) case x: return #x;
        RSIM_VK_RESULT(VK_SUCCESS)
        RSIM_VK_RESULT(VK_NOT_READY)
        RSIM_VK_RESULT(VK_TIMEOUT)
        RSIM_VK_RESULT(VK_EVENT_SET)
        RSIM_VK_RESULT(VK_EVENT_RESET)
        RSIM_VK_RESULT(VK_INCOMPLETE)
        RSIM_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
        RSIM_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        RSIM_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
        RSIM_VK_RESULT(VK_ERROR_DEVICE_LOST)
        RSIM_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
        RSIM_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
        RSIM_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
        RSIM_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
        RSIM_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
        RSIM_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
        RSIM_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
        RSIM_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
        RSIM_VK_RESULT(VK_ERROR_UNKNOWN)
        RSIM_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
        RSIM_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        RSIM_VK_RESULT(VK_ERROR_FRAGMENTATION)
        RSIM_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        RSIM_VK_RESULT(VK_THREAD_IDLE_KHR)
        RSIM_VK_RESULT(VK_THREAD_DONE_KHR)
        RSIM_VK_RESULT(VK_OPERATION_DEFERRED_KHR)
        RSIM_VK_RESULT(VK_OPERATION_NOT_DEFERRED_KHR)
#undef RSIM_VK_RESULT
    default: return "VK_RESULT_UNKNOWN";
    }
}

void fail(VkResult r, const char* call, const char* file, int line) {
    std::string where = file;
    if (auto slash = where.rfind("/src/"); slash != std::string::npos) where = where.substr(slash + 1);
    std::string hint;
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY)
        hint = " (the GPU is out of memory: try a smaller scene or a smaller --max-device-mb)";
    if (r == VK_ERROR_DEVICE_LOST) hint = " (the GPU driver reset the device)";
    throw Error(std::string("Vulkan: ") + call + " failed with " + resultName(r) + " at " + where +
                ":" + std::to_string(line) + hint);
}

} // namespace rsim::vk
