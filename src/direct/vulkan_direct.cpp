// SPDX-License-Identifier: MIT
// Direct terms on a Vulkan device (direct/vulkan_direct.h).
#include "direct/vulkan_direct.h"

#include "direct/cpu_direct.h"
#include "vulkan/pass.h"
#include "vulkan/ray_pass.h"
#include "vulkan/shaders.h"

namespace rsim {

vk::PipelineRecipe directRecipe(vk::Device& device) {
    return rayPassRecipe(device, &vk::shaders::direct, sizeof(shared::DirectPush), false, "direct");
}

DirectTerms computeDirectVulkan(vk::Device& device, const GpuGeometry& scene, const GpuPose& pose,
                                const vk::SceneAccel& accel, vk::PosePasses& passes, const PreparedScene& prepared,
                                const SimConfig& config) {
    if (!passes.direct)
        passes.direct = makeRayPassPipeline(device, directRecipe(device), accel);
    const vk::Pipeline* pipeline = passes.direct.get();
    const GpuCounters counters(device, 1, passes.directCounters, "direct counters");
    const std::uint64_t outBytes = std::uint64_t(scene.n) * sizeof(glm::vec2);
    const vk::Buffer& out = passes.directOut.get(device, outBytes, vk::kStorageUsage, vk::MemoryKind::Device,
                                                 "direct terms");
    shared::DirectPush push{};
    push.triangles = scene.triangles.address();
    push.results = out.address();
    push.stats = counters.address();
    push.lightSensor = pose.lightSensor.address();
    push.n = scene.n;
    push.samples = config.directSamples;
    push.seed = config.seed;
    push.rayEps = prepared.rayEps;
    vk::HostReadback back(device, passes.readback,
                          vk::HostReadback::rounded(outBytes) + vk::HostReadback::rounded(counters.bytes()));
    std::uint64_t valuesAt = 0, countersAt = 0;
    device.submitAndWait([&](VkCommandBuffer cmd) {
        counters.zero(cmd);
        pipeline->bind(cmd, nullptr);
        launchRayPassLinear(device, *pipeline, cmd, push, scene.n);
        valuesAt = back.add(cmd, out, outBytes);
        countersAt = back.add(cmd, counters.buffer(), counters.bytes());
    });
    DirectTerms d;
    const glm::vec2* values = back.at<glm::vec2>(valuesAt);
    d.irradiance.resize(scene.n);
    d.importance.resize(scene.n);
    for (std::uint32_t i = 0; i < scene.n; ++i) {
        d.irradiance[i] = values[i].x;
        d.importance[i] = values[i].y;
    }
    d.shadowRays = counters.sums(back.at<std::uint32_t>(countersAt))[0];
    computeDelays(prepared, config, d);
    return d;
}

} // namespace rsim
