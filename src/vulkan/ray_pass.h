// SPDX-License-Identifier: MIT
// Helpers for the passes that trace rays on the device's path (ray queries or rsim's BVH in
// compute shaders, or a ray-tracing pipeline): pipeline creation, launch sizes, and the
// statistics counters.
#pragma once
#include <memory>

#include "rsim/shared/gpu_layout.h"
#include "vulkan/accel.h"
#include "vulkan/buffer.h"
#include "vulkan/pass.h"
#include "vulkan/pipeline.h"
#include "vulkan/pipeline_warmup.h"
#include "vulkan/shaders.h"

namespace rsim {

// The recipe of a ray pass on the device's path (for makeRayPassPipeline and the warm-up);
// `withHit` adds the closest-hit shader (primary rays; the compute paths always find the
// nearest hit).
vk::PipelineRecipe rayPassRecipe(vk::Device& device, vk::ShaderCode (*pass)(vk::RayPath), std::uint32_t pushBytes,
                                 bool withHit, const char* name);

// The recipe's pipeline (rayPassRecipe) with the scene bound; taken from the device's warm-up
// when it made it ahead.
std::unique_ptr<vk::Pipeline> makeRayPassPipeline(vk::Device& device, const vk::PipelineRecipe& recipe,
                                                  const vk::SceneAccel& accel);

// Launches a ray pass over width x height items (compute: groups of groupX x 1).
void launchRayPass(const vk::Pipeline& p, VkCommandBuffer cmd, std::uint32_t width,
                   std::uint32_t height, std::uint32_t groupX);

// A 1-D ray pass over items [0, count) (compute: groups of RSIM_WG_LINEAR), in as many launches
// as the device allows, each with its range in push.begin, push.end. The pipeline must be bound.
template <class Push>
void launchRayPassLinear(vk::Device& device, const vk::Pipeline& p, VkCommandBuffer cmd, Push push,
                         std::uint64_t count) {
    vk::forEachLaunch(count, vk::maxLinearLaunch(device, shared::RSIM_WG_LINEAR),
                      [&](std::uint32_t begin, std::uint32_t end) {
                          push.begin = begin;
                          push.end = end;
                          p.pushConstants(cmd, &push);
                          launchRayPass(p, cmd, end - begin, 1, shared::RSIM_WG_LINEAR);
                      });
}

// Counters the shaders increment (rsimCount in shaders/common/rsim.glsl): `counters` of
// RSIM_STAT_SLOTS slots each.
class GpuCounters {
  public:
    // Its own buffer, zeroed before this returns.
    GpuCounters(vk::Device& device, std::uint32_t counters, const char* name);
    // A buffer kept from call to call (a pass that runs once per pose), zeroed by zero() in the
    // pass's own submission.
    GpuCounters(vk::Device& device, std::uint32_t counters, vk::ScratchBuffer& kept, const char* name);
    VkDeviceAddress address() const { return buffer_->address(); }
    const vk::Buffer& buffer() const { return *buffer_; }
    std::uint64_t bytes() const;
    void zero(VkCommandBuffer cmd) const;
    std::vector<std::uint64_t> read() const;
    // The counters from a copy of the buffer's slots.
    std::vector<std::uint64_t> sums(const std::uint32_t* slots) const;

  private:
    vk::Device& device_;
    std::uint32_t counters_;
    vk::Buffer own_;
    vk::Buffer* buffer_;
};

} // namespace rsim
