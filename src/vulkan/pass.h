// SPDX-License-Identifier: MIT
// A compute pass typed by its push constants (include/rsim/shared/gpu_layout.h), its
// specialization constants named by their constant_ids there, and 1-D launches split to what
// the device allows.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

#include "rsim/shared/gpu_layout.h"
#include "vulkan/pipeline.h"
#include "vulkan/pipeline_warmup.h"

namespace rsim::vk {

// {{RSIM_SPEC_K_FORMAT, storage}, ...}: the vector of constants by constant_id.
SpecConstants specConstants(std::initializer_list<std::pair<std::uint32_t, std::uint32_t>> values);

// Most items one 1-D launch may cover on this device (compute groups or ray dimensions).
std::uint64_t maxLinearLaunch(Device& device, std::uint32_t workgroupSize);

// Splits [0, count) into launches of at most `maxPerLaunch` items; calls fn(begin, end).
template <class F> void forEachLaunch(std::uint64_t count, std::uint64_t maxPerLaunch, F&& fn) {
    for (std::uint64_t b = 0; b < count; b += maxPerLaunch)
        fn(std::uint32_t(b), std::uint32_t(std::min(count, b + maxPerLaunch)));
}

// The recipe of Pass<Push>(device, code, spec, name): what the warm-up needs to make it ahead.
template <class Push>
PipelineRecipe passRecipe(ShaderCode code, const SpecConstants& spec, const std::string& name) {
    return PipelineRecipe{code, {}, {}, std::uint32_t(sizeof(Push)), false, spec, name};
}

template <class Push> class Pass {
  public:
    // Takes the pipeline from the device's warm-up when it made it ahead.
    Pass(Device& device, ShaderCode code, const SpecConstants& spec, const std::string& name)
        : Pass(device, passRecipe<Push>(code, spec, name)) {}
    Pass(Device& device, const PipelineRecipe& recipe) : device_(&device), pipeline_(pipelineFor(device, recipe)) {}

    void bind(VkCommandBuffer cmd) const { pipeline_->bind(cmd, nullptr); }
    void dispatch(VkCommandBuffer cmd, const Push& p, std::uint32_t groupsX, std::uint32_t groupsY = 1,
                  std::uint32_t groupsZ = 1) const {
        pipeline_->pushConstants(cmd, &p);
        pipeline_->dispatch(cmd, groupsX, groupsY, groupsZ);
    }
    // A launch whose workgroup counts the device wrote at `offset` of `args`.
    void dispatchIndirect(VkCommandBuffer cmd, const Push& p, const Buffer& args, std::uint64_t offset) const {
        pipeline_->pushConstants(cmd, &p);
        pipeline_->dispatchIndirect(cmd, args, offset);
    }
    // Items [0, count) in workgroups of `group` items, in as many launches as the device needs;
    // each launch gets its range in p.begin, p.end. The pass must be bound.
    void dispatchLinear(VkCommandBuffer cmd, Push p, std::uint64_t count,
                        std::uint32_t group) const {
        forEachLaunch(count, maxLinearLaunch(*device_, group),
                      [&](std::uint32_t begin, std::uint32_t end) {
                          p.begin = begin;
                          p.end = end;
                          dispatch(cmd, p, (end - begin + group - 1) / group);
                      });
    }

    // Items [0, count) of a 1-D pass of RSIM_WG_LINEAR-wide workgroups in one launch, as rows (y)
    // of workgroups when one row cannot hold them all; the shader takes RSIM_ROWS_INDEX() and
    // leaves the items past `count`. The pass must be bound.
    void dispatchRows(VkCommandBuffer cmd, const Push& p, std::uint64_t count) const {
        const std::uint64_t groups = (count + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR;
        const std::uint32_t maxX = device_->limits().maxComputeWorkGroupCount[0];
        const std::uint32_t rows = std::uint32_t((groups + maxX - 1) / maxX);
        dispatch(cmd, p, std::uint32_t((groups + rows - 1) / rows), rows);
    }

  private:
    Device* device_;
    std::unique_ptr<Pipeline> pipeline_;
};

} // namespace rsim::vk
