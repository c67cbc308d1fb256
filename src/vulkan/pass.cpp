// SPDX-License-Identifier: MIT
#include "vulkan/pass.h"

namespace rsim::vk {

SpecConstants specConstants(std::initializer_list<std::pair<std::uint32_t, std::uint32_t>> values) {
    SpecConstants out;
    for (const auto& [id, value] : values) {
        if (out.size() <= id) out.resize(id + 1, 0u);
        out[id] = value;
    }
    return out;
}

std::uint64_t maxLinearLaunch(Device& device, std::uint32_t workgroupSize) {
    std::uint64_t m = std::uint64_t(device.limits().maxComputeWorkGroupCount[0]) * workgroupSize;
    if (device.rayPath() == RayPath::Pipeline)
        m = std::min<std::uint64_t>(m, device.rtProperties().maxRayDispatchInvocationCount);
    return std::min<std::uint64_t>(m, 1u << 24);
}

} // namespace rsim::vk
