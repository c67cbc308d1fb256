// SPDX-License-Identifier: MIT
#include "distance/vulkan_distance.h"

#include <cmath>
#include <limits>

#include "backends/vulkan_rays.h"
#include "vulkan/shaders.h"

namespace rsim {
namespace {

// AMCW w_k = 2 pi f_k dt for up to 8 frequencies.
void amcwOmegas(const SimConfig& c, glm::vec4& lo, glm::vec4& hi, std::uint32_t& count) {
    lo = hi = glm::vec4(1.0f);
    count = std::uint32_t(std::min<std::size_t>(c.modulationMhz.size(), shared::RSIM_MAX_FREQUENCIES));
    for (std::uint32_t k = 0; k < count; ++k)
        (k < 4 ? lo[int(k)] : hi[int(k - 4)]) =
            float(2.0 * M_PI * c.modulationMhz[k] * 1e-3 * c.dtNs);
}

} // namespace

void computeTriangleDistancesVulkan(const vk::Device& device, const GpuScene& scene,
                                    const vk::Buffer& transportTris, const vk::Buffer& history,
                                    const SimConfig& c, SimulationResult& r) {
    vk::Pipeline pipeline(device, vk::shaders::distances(), sizeof(shared::DistancePush), false, {},
                          "distances");
    vk::Buffer out(device, std::uint64_t(scene.n) * sizeof(glm::vec4), vk::kStorageUsage,
                   vk::MemoryKind::Device, "distances");
    shared::DistancePush push{};
    push.tris = transportTris.address();
    push.history = history.address();
    push.pulse = scene.pulse.address();
    push.results = out.address();
    amcwOmegas(c, push.omegaLo, push.omegaHi, push.frequencies);
    push.lightToSensor = glm::vec4(c.sensor.position - c.light.position, float(c.cdtM));
    push.n = scene.n;
    push.timesteps = c.timesteps;
    push.pulseLength = std::uint32_t(c.pulse.size());
    push.mode = c.mode == SensorMode::Pulsed ? 0u : 1u;
    device.submitAndWait([&](VkCommandBuffer cmd) {
        pipeline.bind(cmd, nullptr);
        forEachLaunch(scene.n, maxLinearLaunch(device, shared::RSIM_WG_LINEAR),
                      [&](std::uint32_t begin, std::uint32_t end) {
                          push.begin = begin;
                          push.end = end;
                          pipeline.pushConstants(cmd, &push);
                          pipeline.dispatch(cmd, (end - begin + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR, 1);
                      });
    });
    const auto values = vk::download<glm::vec4>(device, out, scene.n);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    r.pathLength.assign(scene.n, nan);
    r.distance.assign(scene.n, nan);
    r.echoesCutOff = 0;
    for (std::uint32_t i = 0; i < scene.n; ++i) {
        if (values[i].x == -2.0f) ++r.echoesCutOff;
        if (values[i].x < 0.0f) continue;
        r.pathLength[i] = double(values[i].x) * c.cdtM;
        r.distance[i] = double(values[i].y);
    }
}

SensorImage renderSensorImageVulkan(const vk::Device& device, const GpuScene& scene,
                                    const vk::SceneAccel& accel, const vk::Buffer& transportTris,
                                    const vk::Buffer& history, const PreparedScene& prepared,
                                    const SimConfig& c) {
    const std::uint32_t pixels = c.width * c.height;
    SensorImage img;
    img.width = c.width;
    img.height = c.height;
    img.rays = pixels; // primary rays; shadow rays are not counted here
    auto primary = makeRayPassPipeline(device, &vk::shaders::primary, sizeof(shared::PrimaryPush),
                                       true, accel, "primary rays");
    vk::Pipeline signal(device, vk::shaders::pixels(), sizeof(shared::PixelPush), false, {}, "pixels");
    vk::Buffer hits(device, std::uint64_t(pixels) * sizeof(glm::vec4), vk::kStorageUsage,
                    vk::MemoryKind::Device, "pixel hits");
    vk::Buffer out(device, std::uint64_t(pixels) * sizeof(glm::vec4), vk::kStorageUsage,
                   vk::MemoryKind::Device, "pixel depth");
    shared::PrimaryPush pp{};
    pp.triangles = scene.triangles.address();
    pp.lightSensor = scene.lightSensor.address();
    pp.results = hits.address();
    pp.rayEps = prepared.rayEps;
    pp.invCdt = float(1.0 / c.cdtM);
    shared::PixelPush px{};
    px.tris = transportTris.address();
    px.history = history.address();
    px.pulse = scene.pulse.address();
    px.hits = hits.address();
    px.results = out.address();
    px.lightSensor = scene.lightSensor.address();
    amcwOmegas(c, px.omegaLo, px.omegaHi, px.frequencies);
    px.invCdt = pp.invCdt;
    px.cdt = float(c.cdtM);
    px.timesteps = c.timesteps;
    px.pulseLength = std::uint32_t(c.pulse.size());
    px.mode = c.mode == SensorMode::Pulsed ? 0u : 1u;
    device.submitAndWait([&](VkCommandBuffer cmd) {
        primary->bind(cmd, nullptr);
        forEachLaunch(pixels, maxLinearLaunch(device, shared::RSIM_WG_LINEAR),
                      [&](std::uint32_t begin, std::uint32_t end) {
                          pp.begin = begin;
                          pp.end = end;
                          primary->pushConstants(cmd, &pp);
                          launchRayPass(*primary, cmd, end - begin, 1, shared::RSIM_WG_LINEAR);
                      });
        vk::computeBarrier(device, cmd);
        signal.bind(cmd, nullptr);
        forEachLaunch(pixels, maxLinearLaunch(device, shared::RSIM_WG_LINEAR),
                      [&](std::uint32_t begin, std::uint32_t end) {
                          px.begin = begin;
                          px.end = end;
                          signal.pushConstants(cmd, &px);
                          signal.dispatch(cmd, (end - begin + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR, 1);
                      });
    });
    const auto h = vk::download<glm::vec4>(device, hits, pixels);
    const auto o = vk::download<glm::vec4>(device, out, pixels);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    img.depth.resize(pixels);
    img.trueDepth.resize(pixels);
    img.amplitude.resize(pixels);
    img.triangle.resize(pixels);
    for (std::uint32_t p = 0; p < pixels; ++p) {
        img.triangle[p] = std::int32_t(h[p].x);
        img.trueDepth[p] = h[p].x >= 0.0f ? h[p].y : nan;
        img.depth[p] = o[p].x;
        img.amplitude[p] = o[p].y;
    }
    return img;
}

} // namespace rsim
