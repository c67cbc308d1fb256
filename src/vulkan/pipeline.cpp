// SPDX-License-Identifier: MIT
#include "vulkan/pipeline.h"

#include "vulkan/pipeline_cache.h"

#include <cstring>

#include <spdlog/spdlog.h>

#include "util/error.h"
#include "util/startup_times.h"

namespace rsim::vk {
namespace {
std::uint64_t alignUp(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

std::string statisticValue(const VkPipelineExecutableStatisticKHR& s) {
    switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return std::to_string(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return std::to_string(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return fmt::format("{:g}", s.value.f64);
    default: return "?";
    }
}

// Logs what the driver says about each executable of a pipeline created with
// VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR (Device::capturesStatistics).
void logStatistics(const Device& device, VkPipeline pipeline, const std::string& name) {
    const auto& vk = device.vk();
    VkPipelineInfoKHR pi{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    pi.pipeline = pipeline;
    std::uint32_t count = 0;
    if (vk.vkGetPipelineExecutablePropertiesKHR(device.handle(), &pi, &count, nullptr) != VK_SUCCESS) return;
    std::vector<VkPipelineExecutablePropertiesKHR> exes(count, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
    if (vk.vkGetPipelineExecutablePropertiesKHR(device.handle(), &pi, &count, exes.data()) != VK_SUCCESS) return;
    for (std::uint32_t e = 0; e < count; ++e) {
        VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        ei.pipeline = pipeline;
        ei.executableIndex = e;
        std::uint32_t n = 0;
        if (vk.vkGetPipelineExecutableStatisticsKHR(device.handle(), &ei, &n, nullptr) != VK_SUCCESS) continue;
        std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
        if (vk.vkGetPipelineExecutableStatisticsKHR(device.handle(), &ei, &n, stats.data()) != VK_SUCCESS) continue;
        std::string line;
        for (std::uint32_t k = 0; k < n; ++k)
            line += fmt::format("{}{} = {}", k ? ", " : "", stats[k].name, statisticValue(stats[k]));
        spdlog::info("pipeline statistics, {} ({}, subgroup {}): {}", name, exes[e].name, exes[e].subgroupSize, line);
    }
}
} // namespace

VkShaderModule Pipeline::module(ShaderCode code) const {
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = code.bytes;
    ci.pCode = code.words;
    VkShaderModule m;
    VK_CHECK(device_.vk().vkCreateShaderModule(device_.handle(), &ci, nullptr, &m));
    return m;
}

void Pipeline::createLayout(std::uint32_t pushBytes, bool usesTlas, VkShaderStageFlags stages) {
    const auto& vk = device_.vk();
    stages_ = stages;
    pushBytes_ = pushBytes;
    if (usesTlas) {
        // The scene of the device's ray path: a TLAS, or the storage buffer of rsim's own BVH.
        sceneType_ = usesAccelerationStructures(device_.rayPath()) ? VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR
                                                                     : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        VkDescriptorSetLayoutBinding b{};
        b.binding = 0;
        b.descriptorType = sceneType_;
        b.descriptorCount = 1;
        b.stageFlags = stages;
        VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        li.bindingCount = 1;
        li.pBindings = &b;
        VK_CHECK(vk.vkCreateDescriptorSetLayout(device_.handle(), &li, nullptr, &setLayout_));
        VkDescriptorPoolSize size{sceneType_, 1};
        VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        pi.maxSets = 1;
        pi.poolSizeCount = 1;
        pi.pPoolSizes = &size;
        VK_CHECK(vk.vkCreateDescriptorPool(device_.handle(), &pi, nullptr, &pool_));
        VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.descriptorPool = pool_;
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &setLayout_;
        VK_CHECK(vk.vkAllocateDescriptorSets(device_.handle(), &ai, &set_));
    }
    VkPushConstantRange range{stages, 0, pushBytes};
    VkPipelineLayoutCreateInfo li{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    li.setLayoutCount = setLayout_ ? 1 : 0;
    li.pSetLayouts = &setLayout_;
    li.pushConstantRangeCount = pushBytes ? 1 : 0;
    li.pPushConstantRanges = &range;
    VK_CHECK(vk.vkCreatePipelineLayout(device_.handle(), &li, nullptr, &layout_));
    device_.name(layout_, VK_OBJECT_TYPE_PIPELINE_LAYOUT, name_ + " layout");
}

Pipeline::Pipeline(Device& device, ShaderCode compute, std::uint32_t pushBytes,
                   bool usesTlas, const SpecConstants& spec, const std::string& name)
    : device_(device), name_(name) {
    StartupTimer timer("pipeline " + name);
    if (pushBytes > device.limits().maxPushConstantsSize)
        throw Error(name + ": push constants exceed the device limit");
    createLayout(pushBytes, usesTlas, VK_SHADER_STAGE_COMPUTE_BIT);
    std::vector<VkSpecializationMapEntry> entries;
    for (std::uint32_t i = 0; i < spec.size(); ++i)
        entries.push_back({i, i * 4u, 4u});
    VkSpecializationInfo si{std::uint32_t(entries.size()), entries.data(), spec.size() * 4u, spec.data()};
    VkShaderModule m = module(compute);
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = m;
    ci.stage.pName = "main";
    ci.stage.pSpecializationInfo = spec.empty() ? nullptr : &si;
    ci.layout = layout_;
    if (device.capturesStatistics()) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VkResult r = device.vk().vkCreateComputePipelines(device.handle(), device.pipelineCache().handle(), 1, &ci,
                                                      nullptr, &pipeline_);
    device.pipelineCache().added();
    device.vk().vkDestroyShaderModule(device.handle(), m, nullptr);
    VK_CHECK(r);
    device.name(pipeline_, VK_OBJECT_TYPE_PIPELINE, name);
    if (device.capturesStatistics()) logStatistics(device, pipeline_, name);
}

Pipeline::Pipeline(Device& device, ShaderCode raygen, ShaderCode miss, ShaderCode closestHit,
                   std::uint32_t pushBytes, const std::string& name, bool bindingTable)
    : device_(device), name_(name), rayTracing_(true) {
    StartupTimer timer("pipeline " + name);
    const auto& vk = device.vk();
    const VkShaderStageFlags stages = VK_SHADER_STAGE_RAYGEN_BIT_KHR | VK_SHADER_STAGE_MISS_BIT_KHR |
                                      VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR;
    createLayout(pushBytes, true, stages);
    std::vector<VkPipelineShaderStageCreateInfo> st;
    std::vector<VkRayTracingShaderGroupCreateInfoKHR> groups;
    auto addStage = [&](ShaderCode code, VkShaderStageFlagBits stage) {
        VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        s.stage = stage;
        s.module = module(code);
        s.pName = "main";
        st.push_back(s);
        return std::uint32_t(st.size() - 1);
    };
    auto group = [&](VkRayTracingShaderGroupTypeKHR type, std::uint32_t general, std::uint32_t hit) {
        VkRayTracingShaderGroupCreateInfoKHR g{VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR};
        g.type = type;
        g.generalShader = general;
        g.closestHitShader = hit;
        g.anyHitShader = VK_SHADER_UNUSED_KHR;
        g.intersectionShader = VK_SHADER_UNUSED_KHR;
        groups.push_back(g);
    };
    group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, addStage(raygen, VK_SHADER_STAGE_RAYGEN_BIT_KHR), VK_SHADER_UNUSED_KHR);
    group(VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR, addStage(miss, VK_SHADER_STAGE_MISS_BIT_KHR), VK_SHADER_UNUSED_KHR);
    const bool hasHit = closestHit.words != nullptr;
    if (hasHit)
        group(VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR, VK_SHADER_UNUSED_KHR,
              addStage(closestHit, VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR));

    VkRayTracingPipelineCreateInfoKHR ci{VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR};
    ci.stageCount = std::uint32_t(st.size());
    ci.pStages = st.data();
    ci.groupCount = std::uint32_t(groups.size());
    ci.pGroups = groups.data();
    ci.maxPipelineRayRecursionDepth = 1;
    ci.layout = layout_;
    if (device.capturesStatistics()) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VkResult r = vk.vkCreateRayTracingPipelinesKHR(device.handle(), VK_NULL_HANDLE, device.pipelineCache().handle(), 1,
                                                   &ci, nullptr, &pipeline_);
    device.pipelineCache().added();
    for (auto& s : st) vk.vkDestroyShaderModule(device.handle(), s.module, nullptr);
    VK_CHECK(r);
    device.name(pipeline_, VK_OBJECT_TYPE_PIPELINE, name);
    if (device.capturesStatistics()) logStatistics(device, pipeline_, name);

    groups_ = std::uint32_t(groups.size());
    if (bindingTable) makeBindingTable();
}

void Pipeline::makeBindingTable() {
    if (!rayTracing_ || sbt_) return;
    // Shader binding table: raygen | miss | hit, each region aligned to the base alignment.
    const auto& vk = device_.vk();
    const auto& rt = device_.rtProperties();
    const std::uint32_t handleSize = rt.shaderGroupHandleSize;
    const std::uint64_t stride = alignUp(handleSize, rt.shaderGroupHandleAlignment);
    const std::uint64_t region = alignUp(stride, rt.shaderGroupBaseAlignment);
    std::vector<std::uint8_t> handles(groups_ * handleSize);
    VK_CHECK(vk.vkGetRayTracingShaderGroupHandlesKHR(device_.handle(), pipeline_, 0, groups_, handles.size(),
                                                     handles.data()));
    std::vector<std::uint8_t> table(region * 3, 0);
    for (std::size_t g = 0; g < groups_; ++g)
        std::memcpy(&table[g * region], &handles[g * handleSize], handleSize);
    sbt_ = Buffer(device_, table.size(),
                  VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                  MemoryKind::Device, name_ + " SBT");
    uploadBytes(device_, sbt_, table.data(), table.size());
    raygenRegion_ = {sbt_.address(), region, region};
    missRegion_ = {sbt_.address() + region, stride, stride};
    if (groups_ > 2) hitRegion_ = {sbt_.address() + 2 * region, stride, stride};
}

Pipeline::~Pipeline() {
    const auto& vk = device_.vk();
    if (pipeline_) vk.vkDestroyPipeline(device_.handle(), pipeline_, nullptr);
    if (layout_) vk.vkDestroyPipelineLayout(device_.handle(), layout_, nullptr);
    if (pool_) vk.vkDestroyDescriptorPool(device_.handle(), pool_, nullptr);
    if (setLayout_) vk.vkDestroyDescriptorSetLayout(device_.handle(), setLayout_, nullptr);
}

void Pipeline::bindStorage(const Buffer& buffer) {
    if (sceneType_ != VK_DESCRIPTOR_TYPE_STORAGE_BUFFER)
        throw Error("internal: " + name_ + " binds a storage buffer in place of its TLAS");
    VkDescriptorBufferInfo info{buffer.handle(), 0, VK_WHOLE_SIZE};
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = set_;
    w.dstBinding = 0;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = &info;
    device_.vk().vkUpdateDescriptorSets(device_.handle(), 1, &w, 0, nullptr);
}

void Pipeline::bindTlas(VkAccelerationStructureKHR tlas) {
    if (sceneType_ != VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR)
        throw Error("internal: " + name_ + " binds a TLAS on the bvh ray path");
    VkWriteDescriptorSetAccelerationStructureKHR as{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR};
    as.accelerationStructureCount = 1;
    as.pAccelerationStructures = &tlas;
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.pNext = &as;
    w.dstSet = set_;
    w.dstBinding = 0;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
    device_.vk().vkUpdateDescriptorSets(device_.handle(), 1, &w, 0, nullptr);
}

void Pipeline::bind(VkCommandBuffer cmd, const void* push) const {
    const auto& vk = device_.vk();
    const VkPipelineBindPoint point = rayTracing_ ? VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR
                                                  : VK_PIPELINE_BIND_POINT_COMPUTE;
    vk.vkCmdBindPipeline(cmd, point, pipeline_);
    if (set_) vk.vkCmdBindDescriptorSets(cmd, point, layout_, 0, 1, &set_, 0, nullptr);
    if (push) pushConstants(cmd, push);
}

void Pipeline::pushConstants(VkCommandBuffer cmd, const void* push) const {
    device_.vk().vkCmdPushConstants(cmd, layout_, stages_, 0, pushBytes_, push);
}

void Pipeline::dispatch(VkCommandBuffer cmd, std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
    if (rayTracing_)
        device_.vk().vkCmdTraceRaysKHR(cmd, &raygenRegion_, &missRegion_, &hitRegion_, &callRegion_, x, y, z);
    else
        device_.vk().vkCmdDispatch(cmd, x, y, z);
}

void Pipeline::dispatchIndirect(VkCommandBuffer cmd, const Buffer& args, std::uint64_t offset) const {
    if (rayTracing_)
        device_.vk().vkCmdTraceRaysIndirectKHR(cmd, &raygenRegion_, &missRegion_, &hitRegion_, &callRegion_,
                                               args.address() + offset);
    else
        device_.vk().vkCmdDispatchIndirect(cmd, args.handle(), offset);
}

} // namespace rsim::vk
