// SPDX-License-Identifier: MIT
#include "vulkan/ray_pass.h"

namespace rsim {
namespace {
constexpr std::uint32_t kStatSlots = 4096; // RSIM_STAT_SLOTS in shaders/common/rsim.glsl
}

vk::PipelineRecipe rayPassRecipe(vk::Device& d, vk::ShaderCode (*pass)(vk::RayPath), std::uint32_t pushBytes,
                                 bool withHit, const char* name) {
    if (d.rayPath() == vk::RayPath::Pipeline)
        return vk::PipelineRecipe{pass(vk::RayPath::Pipeline), vk::shaders::rtMiss(),
                                  withHit ? vk::shaders::rtClosestHit() : vk::ShaderCode{}, pushBytes, true, {}, name};
    return vk::PipelineRecipe{pass(d.rayPath()), {}, {}, pushBytes, true, {}, name};
}

std::unique_ptr<vk::Pipeline> makeRayPassPipeline(vk::Device& d, const vk::PipelineRecipe& recipe,
                                                  const vk::SceneAccel& accel) {
    std::unique_ptr<vk::Pipeline> p = vk::pipelineFor(d, recipe);
    accel.bindTo(*p);
    return p;
}

void launchRayPass(const vk::Pipeline& p, VkCommandBuffer cmd, std::uint32_t width,
                   std::uint32_t height, std::uint32_t groupX) {
    if (p.isRayTracing())
        p.dispatch(cmd, width, height);
    else
        p.dispatch(cmd, (width + groupX - 1) / groupX, height);
}

GpuCounters::GpuCounters(vk::Device& d, std::uint32_t counters, const char* name)
    : device_(d), counters_(counters),
      own_(d, std::uint64_t(counters) * kStatSlots * 4, vk::kStorageUsage, vk::MemoryKind::Device, name),
      buffer_(&own_) {
    vk::fillZero(d, own_);
}

GpuCounters::GpuCounters(vk::Device& d, std::uint32_t counters, vk::ScratchBuffer& kept, const char* name)
    : device_(d), counters_(counters),
      buffer_(&kept.get(d, std::uint64_t(counters) * kStatSlots * 4, vk::kStorageUsage, vk::MemoryKind::Device, name)) {}

std::uint64_t GpuCounters::bytes() const { return std::uint64_t(counters_) * kStatSlots * 4; }

void GpuCounters::zero(VkCommandBuffer cmd) const {
    device_.vk().vkCmdFillBuffer(cmd, buffer_->handle(), 0, bytes(), 0);
    vk::computeBarrier(device_, cmd);
}

std::vector<std::uint64_t> GpuCounters::read() const {
    return sums(vk::download<std::uint32_t>(device_, *buffer_, std::size_t(counters_) * kStatSlots).data());
}

std::vector<std::uint64_t> GpuCounters::sums(const std::uint32_t* slots) const {
    std::vector<std::uint64_t> out(counters_, 0);
    for (std::uint32_t c = 0; c < counters_; ++c)
        for (std::uint32_t s = 0; s < kStatSlots; ++s)
            out[c] += slots[c * kStatSlots + s];
    return out;
}

} // namespace rsim
