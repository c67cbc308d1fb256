// SPDX-License-Identifier: MIT
// Compute and ray-tracing pipelines. Every pipeline takes its buffers as device addresses in
// push constants; those that trace rays also bind the scene at set 0, binding 0: the TLAS, or
// on the bvh ray path the storage buffer of rsim's own BVH (RayBvhHeader, gpu_layout.h).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vulkan/buffer.h"

namespace rsim::vk {

struct ShaderCode {
    const std::uint32_t* words = nullptr;
    std::size_t bytes = 0;
};

// Specialization constants, by constant_id 0, 1, ... (all 32-bit).
using SpecConstants = std::vector<std::uint32_t>;

class Pipeline {
public:
    // A compute pipeline.
    Pipeline(Device& device, ShaderCode compute, std::uint32_t pushBytes, bool usesTlas,
             const SpecConstants& spec, const std::string& name);
    // A ray-tracing pipeline: raygen, one miss shader, optionally a closest-hit group. Without
    // `bindingTable` its shader binding table, whose upload needs the device's queue, waits for
    // makeBindingTable() (the warm-up's threads compile; the thread that takes it uploads).
    Pipeline(Device& device, ShaderCode raygen, ShaderCode miss, ShaderCode closestHit,
             std::uint32_t pushBytes, const std::string& name, bool bindingTable = true);
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    // A ray-tracing pipeline's shader binding table, once (nothing for a compute pipeline).
    void makeBindingTable();
    void bindTlas(VkAccelerationStructureKHR tlas);
    void bindStorage(const Buffer& buffer); // the bvh ray path's scene
    // Binds the pipeline, its descriptor set and the push constants.
    void bind(VkCommandBuffer cmd, const void* push) const;
    void pushConstants(VkCommandBuffer cmd, const void* push) const;
    // Compute: groups; ray tracing: launch size (width, height).
    void dispatch(VkCommandBuffer cmd, std::uint32_t x, std::uint32_t y, std::uint32_t z = 1) const;
    // The same with (x, y, z) read by the device from `args` at `offset` (a uvec3 written by an
    // earlier pass, indirectBarrier between them); `args` needs VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT.
    void dispatchIndirect(VkCommandBuffer cmd, const Buffer& args, std::uint64_t offset) const;
    bool isRayTracing() const { return rayTracing_; }

private:
    void createLayout(std::uint32_t pushBytes, bool usesTlas, VkShaderStageFlags stages);
    VkShaderModule module(ShaderCode code) const;

    Device& device_;
    std::string name_;
    bool rayTracing_ = false;
    VkShaderStageFlags stages_ = 0;
    std::uint32_t pushBytes_ = 0;
    VkDescriptorType sceneType_ = VK_DESCRIPTOR_TYPE_MAX_ENUM; // of binding 0, when the pipeline traces rays
    VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
    VkDescriptorPool pool_ = VK_NULL_HANDLE;
    VkDescriptorSet set_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkPipeline pipeline_ = VK_NULL_HANDLE;
    std::uint32_t groups_ = 0; // a ray-tracing pipeline's shader groups
    Buffer sbt_;
    VkStridedDeviceAddressRegionKHR raygenRegion_{}, missRegion_{}, hitRegion_{}, callRegion_{};
};

} // namespace rsim::vk
