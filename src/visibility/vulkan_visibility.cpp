// SPDX-License-Identifier: MIT
#include "visibility/vulkan_visibility.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "backends/vulkan_rays.h"
#include "visibility/cpu_visibility.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timer.h"

namespace rsim {

GpuKMatrix allocateK(const vk::Device& device, std::uint32_t n, std::uint64_t maxChunkBytes) {
    GpuKMatrix K;
    K.n = n;
    const std::uint64_t rowBytes = std::uint64_t(n) * sizeof(float);
    const std::uint64_t cap = std::min<std::uint64_t>(maxChunkBytes, device.maxAllocationBytes());
    // Chunk indices in the shader are 32-bit: keep each chunk under 2^32 elements too.
    const std::uint64_t rows = std::max<std::uint64_t>(
        1, std::min<std::uint64_t>(cap / rowBytes, (std::uint64_t(1) << 32) / n - 1));
    K.rowsPerChunk = std::uint32_t(std::min<std::uint64_t>(rows, n));
    std::vector<std::uint64_t> addresses;
    for (std::uint32_t first = 0; first < n; first += K.rowsPerChunk) {
        const std::uint32_t count = std::min(K.rowsPerChunk, n - first);
        K.chunks.emplace_back(device, std::uint64_t(count) * rowBytes, vk::kStorageUsage,
                              vk::MemoryKind::Device,
                              "K rows " + std::to_string(first) + ".." + std::to_string(first + count));
        vk::fillZero(device, K.chunks.back());
        addresses.push_back(K.chunks.back().address());
        K.bytes += K.chunks.back().size();
    }
    K.table = vk::makeStorage(device, addresses, "K chunk table");
    return K;
}

VisibilityStats computeVisibilityVulkan(const vk::Device& device, const GpuScene& scene,
                                        const vk::SceneAccel& accel, const PreparedScene& prepared,
                                        const SimConfig& config, GpuKMatrix& K) {
    const std::uint32_t n = scene.n;
    auto pipeline = makeRayPassPipeline(device, &vk::shaders::visibility,
                                        sizeof(shared::VisibilityPush), false, accel, "visibility");
    GpuCounters counters(device, 3, "visibility counters");
    shared::VisibilityPush push{};
    push.triangles = scene.triangles.address();
    push.kChunks = K.table.address();
    push.stats = counters.address();
    push.n = n;
    push.samples = config.samples;
    push.seed = config.seed;
    push.rayEps = prepared.rayEps;
    push.rowsPerChunk = K.rowsPerChunk;

    // Rows in batches: each launch covers columns (rowBegin, n) of its rows and must respect
    // the group-count and ray-dispatch limits; ~16M pairs per submission keeps progress live.
    const auto& lim = device.limits();
    std::uint64_t maxRows = lim.maxComputeWorkGroupCount[1];
    std::uint64_t maxItems = std::uint64_t(1) << 24;
    if (device.rayPath() == vk::RayPath::Pipeline)
        maxItems = std::min<std::uint64_t>(maxItems, device.rtProperties().maxRayDispatchInvocationCount);
    Progress progress("visibility", std::uint64_t(n) * (n - 1) / 2, "pairs");
    Stopwatch rayTime;
    for (std::uint32_t row = 0; row + 1 < n;) {
        const std::uint32_t width = n - (row + 1);
        const std::uint32_t rows = std::uint32_t(std::clamp<std::uint64_t>(
            maxItems / width, 1, std::min<std::uint64_t>(maxRows, n - 1 - row)));
        push.rowBegin = row;
        push.rowEnd = row + rows;
        push.colBegin = row + 1;
        device.submitAndWait([&](VkCommandBuffer cmd) {
            pipeline->bind(cmd, &push);
            launchRayPass(*pipeline, cmd, width, rows, shared::RSIM_WG_PAIRS_X);
        });
        std::uint64_t pairs = 0;
        for (std::uint32_t r = row; r < row + rows; ++r) pairs += n - 1 - r;
        progress.add(pairs);
        row += rows;
    }
    progress.finish();
    const double raySeconds = rayTime.seconds();

    // Energy diagnostics (the CPU reference computes the same in formFactorDiagnostics).
    vk::Pipeline sumsPipeline(device, vk::shaders::formFactorSums(), sizeof(shared::FormFactorPush), false, {},
                      "form-factor sums");
    GpuCounters clamped(device, 1, "clamp counter");
    vk::Buffer rowSums(device, std::uint64_t(n) * sizeof(float), vk::kStorageUsage, vk::MemoryKind::Device,
                       "form-factor row sums");
    shared::FormFactorPush fp{};
    fp.triangles = scene.triangles.address();
    fp.rowSums = rowSums.address();
    fp.stats = clamped.address();
    fp.n = n;
    device.submitAndWait([&](VkCommandBuffer cmd) {
        sumsPipeline.bind(cmd, nullptr);
        for (std::uint32_t c = 0; c < K.chunkCount(); ++c) {
            fp.kChunk = K.chunks[c].address();
            fp.rowBegin = K.rowBegin(c);
            fp.rowEnd = K.rowEnd(c);
            sumsPipeline.pushConstants(cmd, &fp);
            sumsPipeline.dispatch(cmd, (fp.rowEnd - fp.rowBegin + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR, 1);
        }
    });
    const auto sums = counters.read();
    VisibilityStats stats;
    stats.clampedFormFactors = clamped.read()[0];
    stats.raySeconds = raySeconds;
    for (float v : vk::download<float>(device, rowSums, n)) {
        stats.maxRowSum = std::max(stats.maxRowSum, double(v));
        stats.rowsOverOne += double(v) > kRowSumWarning;
    }
    stats.candidatePairs = sums[0];
    stats.nonzeroPairs = sums[1];
    stats.raysCast = sums[2];
    return stats;
}

std::vector<float> downloadK(const vk::Device& device, const GpuKMatrix& K) {
    const std::size_t n = K.n;
    std::vector<float> out(n * n, 0.0f);
    for (std::uint32_t c = 0; c < K.chunkCount(); ++c) {
        const std::uint32_t first = K.rowBegin(c), rows = K.rowEnd(c) - first;
        auto chunk = vk::download<float>(device, K.chunks[c], std::size_t(rows) * n);
        for (std::size_t j = 0; j < n; ++j)
            for (std::uint32_t r = 0; r < rows; ++r) out[(first + r) * n + j] = chunk[j * rows + r];
    }
    return out;
}

} // namespace rsim
