// SPDX-License-Identifier: MIT
// The `paths` transport on a Vulkan device (paths/vulkan_paths.h).
#include "paths/vulkan_paths.h"

#include <algorithm>
#include <bit>
#include <vector>

#include <spdlog/spdlog.h>

#include "paths/path_pixels.h"
#include "rsim/shared/bsdf.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"
#include "vulkan/buffer.h"
#include "vulkan/pose_passes.h"
#include "vulkan/ray_pass.h"
#include "vulkan/shaders.h"

namespace rsim {
namespace {

// Device memory for the signals of one chunk of pixels (two arrays of T floats per pixel), and its
// paths: a large image at a long window or many paths per pixel runs in chunks, each read back
// and finished before the next, so that one submission stays short (a stop waits for it).
constexpr std::uint64_t kChunkSignalBytes = 512ull << 20;
constexpr std::uint64_t kChunkPaths = 1ull << 26;

} // namespace

vk::PipelineRecipe pathsRecipe(vk::Device& device) {
    return rayPassRecipe(device, &vk::shaders::paths, sizeof(shared::PathsPush), true, "paths");
}

SensorImage pathTracedImageVulkan(vk::Device& device, const GpuGeometry& scene, const GpuPose& pose,
                                  const vk::SceneAccel& accel, vk::PosePasses& passes, const PreparedScene& prepared,
                                  const SimConfig& c) {
    std::unique_ptr<vk::Pipeline>& pipeline = passes.paths;
    if (!pipeline) pipeline = makeRayPassPipeline(device, pathsRecipe(device), accel);
    const std::uint64_t pixels = std::uint64_t(c.width) * c.height, T = c.timesteps;
    // Chunks of equal size: one pixel's paths run in one invocation, so a chunk of few pixels
    // takes as long as a full one.
    const std::uint64_t most = std::clamp<std::uint64_t>(
        std::min(kChunkSignalBytes / (8 * T), kChunkPaths / c.pixelSampling.perPixel), 1, pixels);
    const std::uint64_t chunks = (pixels + most - 1) / most, chunk = (pixels + chunks - 1) / chunks;
    const vk::Buffer materials = vk::makeStorage(device, bsdfsOf(prepared.materialModels), "materials");
    // Kept from pose to pose of a batch while large enough (each is filled before it is read).
    const vk::Buffer& signal =
        passes.pathSignal.get(device, chunk * T * 4, vk::kStorageUsage, vk::MemoryKind::Device, "path signals");
    const vk::Buffer& direct =
        passes.pathDirect.get(device, chunk * T * 4, vk::kStorageUsage, vk::MemoryKind::Device, "path direct signals");
    const vk::Buffer& hits =
        passes.pathHits.get(device, chunk * 8, vk::kStorageUsage, vk::MemoryKind::Device, "path centre hits");
    shared::PathsPush push{};
    push.triangles = scene.triangles.address();
    push.lightSensor = pose.lightSensor.address();
    push.materials = materials.address();
    push.pulse = pose.pulse.address();
    push.signal = signal.address();
    push.direct = direct.address();
    push.hits = hits.address();
    push.rayEps = prepared.rayEps;
    push.cdt = float(c.cdtM);
    push.timesteps = c.timesteps;
    push.pulseLength = std::uint32_t(c.pulse.size());
    push.perPixel = c.pixelSampling.perPixel;
    push.boxFilter = c.pixelSampling.boxFilter ? 1u : 0u;
    push.maxBounces = c.paths.maxBounces;
    push.seed = c.seed;
    const GpuCounters rays(device, 1, "path rays");
    push.stats = rays.address();
    PathPixels out(prepared, c);
    std::vector<std::vector<float>> noisy(threadCount());
    Progress progress("paths", pixels, "pixels");
    double traceSeconds = 0.0, finishSeconds = 0.0;
    Stopwatch step;
    for (std::uint64_t first = 0; first < pixels; first += chunk) {
        const std::uint64_t count = std::min(chunk, pixels - first);
        push.first = std::uint32_t(first);
        // The signals come back in the same submission, copied into host-visible memory.
        const std::uint64_t signalBytes = count * T * 4;
        vk::HostReadback back(device, passes.readback, 2 * vk::HostReadback::rounded(signalBytes) +
                                                    vk::HostReadback::rounded(count * 8));
        std::uint64_t totalAt = 0, directAt = 0, hitAt = 0;
        device.submitAndWait([&](VkCommandBuffer cmd) {
            device.vk().vkCmdFillBuffer(cmd, signal.handle(), 0, signalBytes, 0);
            device.vk().vkCmdFillBuffer(cmd, direct.handle(), 0, signalBytes, 0);
            vk::computeBarrier(device, cmd);
            pipeline->bind(cmd, nullptr);
            vk::forEachLaunch(count, vk::maxLinearLaunch(device, shared::RSIM_WG_LINEAR),
                              [&](std::uint32_t begin, std::uint32_t end) {
                                  push.begin = std::uint32_t(first) + begin;
                                  push.end = std::uint32_t(first) + end;
                                  pipeline->pushConstants(cmd, &push);
                                  launchRayPass(*pipeline, cmd, end - begin, 1, shared::RSIM_WG_LINEAR);
                              });
            totalAt = back.add(cmd, signal, signalBytes);
            directAt = back.add(cmd, direct, signalBytes);
            hitAt = back.add(cmd, hits, count * 8);
        });
        traceSeconds += step.seconds();
        step = Stopwatch();
        const float* total = back.at<float>(totalAt);
        const float* first1 = back.at<float>(directAt);
        const glm::vec2* hit = back.at<glm::vec2>(hitAt);
        parallelFor(count, 64, [&](std::size_t begin, std::size_t end, unsigned w) {
            for (std::size_t k = begin; k < end; ++k)
                out.finish(first + k, std::bit_cast<std::int32_t>(hit[k].x), hit[k].y, &total[k * T], &first1[k * T],
                           noisy[w]);
        });
        finishSeconds += step.seconds();
        step = Stopwatch();
        progress.add(count);
    }
    progress.finish();
    SensorImage image = out.take();
    image.rays = rays.read()[0];
    spdlog::debug("paths: traced and copied to the host in {:.4f} s, pixels estimated on the host in {:.4f} s",
                  traceSeconds, finishSeconds);
    return image;
}

} // namespace rsim
