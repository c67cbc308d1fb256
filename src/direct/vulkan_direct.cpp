// SPDX-License-Identifier: MIT
#include "direct/vulkan_direct.h"

#include "direct/direct_terms.h"
#include "vulkan/pass.h"
#include "vulkan/ray_pass.h"
#include "vulkan/shaders.h"

namespace rsim {

DirectTerms computeDirectVulkan(vk::Device& device, const GpuGeometry& scene, const GpuPose& pose,
                                const vk::SceneAccel& accel, vk::PosePasses& passes, const PreparedScene& prepared,
                                const SimConfig& config) {
    if (!passes.direct)
        passes.direct = makeRayPassPipeline(device, &vk::shaders::direct, sizeof(shared::DirectPush), false, accel,
                                            "direct");
    const vk::Pipeline* pipeline = passes.direct.get();
    GpuCounters counters(device, 1, "direct counters");
    vk::Buffer out(device, std::uint64_t(scene.n) * sizeof(glm::vec2), vk::kStorageUsage,
                   vk::MemoryKind::Device, "direct terms");
    shared::DirectPush push{};
    push.triangles = scene.triangles.address();
    push.results = out.address();
    push.stats = counters.address();
    push.lightSensor = pose.lightSensor.address();
    push.n = scene.n;
    push.samples = config.directSamples;
    push.seed = config.seed;
    push.rayEps = prepared.rayEps;
    device.submitAndWait([&](VkCommandBuffer cmd) {
        pipeline->bind(cmd, nullptr);
        launchRayPassLinear(device, *pipeline, cmd, push, scene.n);
    });
    DirectTerms d;
    const auto values = vk::download<glm::vec2>(device, out, scene.n);
    d.irradiance.resize(scene.n);
    d.importance.resize(scene.n);
    for (std::uint32_t i = 0; i < scene.n; ++i) {
        d.irradiance[i] = values[i].x;
        d.importance[i] = values[i].y;
    }
    computeDelays(prepared, config, d);
    d.shadowRays = counters.read()[0];
    return d;
}

} // namespace rsim
