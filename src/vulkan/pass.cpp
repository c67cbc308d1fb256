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
    if (device.rayTracingPipelines())
        m = std::min<std::uint64_t>(m, device.rtProperties().maxRayDispatchInvocationCount);
    // A multiple of the workgroup size, so that every launch but the last is whole workgroups
    // and starts on a workgroup boundary (kencode.comp indexes its partial sums by begin / group).
    m = std::min<std::uint64_t>(m, 1u << 24);
    return std::max<std::uint64_t>(workgroupSize, m / workgroupSize * workgroupSize);
}

} // namespace rsim::vk
