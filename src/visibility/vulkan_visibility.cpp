// SPDX-License-Identifier: MIT
#include "visibility/vulkan_visibility.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "backends/vulkan_rays.h"
#include "compress/vulkan_log_encode.h"
#include "rsim/shared/form_factor.h"
#include "visibility/cpu_visibility.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"

namespace rsim {

namespace {
std::uint64_t chunkBytes(std::uint32_t storage, std::uint64_t elements) {
    return ((elements * shared::rsimKBits(storage) + 31) / 32) * 4; // whole 32-bit words
}

void refreshAddresses(const vk::Device& device, GpuKMatrix& K) {
    std::vector<std::uint64_t> addresses;
    for (const auto& c : K.chunks) addresses.push_back(c.address());
    K.addresses = vk::makeStorage(device, addresses, "K chunk addresses");
}
} // namespace

GpuKMatrix allocateK(const vk::Device& device, std::uint32_t n, KFormat format,
                     std::uint32_t rowsPerChunk) {
    GpuKMatrix K;
    K.n = n;
    K.format = format;
    const std::uint32_t storage = K.storage();
    while (rowsPerChunk > 1 && chunkBytes(storage, std::uint64_t(rowsPerChunk) * n) > device.maxAllocationBytes())
        rowsPerChunk = (rowsPerChunk + 1) / 2;
    K.rowsPerChunk = std::max<std::uint32_t>(1, std::min(rowsPerChunk, n));
    for (std::uint32_t first = 0; first < n; first += K.rowsPerChunk) {
        const std::uint32_t count = std::min(K.rowsPerChunk, n - first);
        K.chunks.emplace_back(device, chunkBytes(storage, std::uint64_t(count) * n), vk::kStorageUsage,
                              vk::MemoryKind::Device,
                              "K rows " + std::to_string(first) + ".." + std::to_string(first + count));
        vk::fillZero(device, K.chunks.back());
    }
    refreshAddresses(device, K);
    return K;
}

namespace {
// Splits rows [rowBegin, rowEnd) (pairs i < j) into launches within the device's limits and
// calls launch(push, width, rows, pairs) for each.
template <class Launch>
void forEachVisibilityLaunch(const vk::Device& device, shared::VisibilityPush push, std::uint32_t rowBegin,
                             std::uint32_t rowEnd, Launch launch) {
    const std::uint32_t n = push.n;
    rowEnd = std::min(rowEnd, n - 1); // the last row has no pair i < j
    const std::uint64_t maxItems = visibilityPairsPerLaunch(device);
    for (std::uint32_t row = rowBegin; row < rowEnd;) {
        const std::uint32_t width = n - (row + 1);
        const std::uint32_t rows = std::uint32_t(std::clamp<std::uint64_t>(
            maxItems / width, 1, std::min<std::uint64_t>(device.limits().maxComputeWorkGroupCount[1], rowEnd - row)));
        push.rowBegin = row;
        push.rowEnd = row + rows;
        push.colBegin = row + 1;
        std::uint64_t pairs = 0;
        for (std::uint32_t r = row; r < row + rows; ++r) pairs += n - 1 - r;
        launch(push, width, rows, pairs);
        row += rows;
    }
}
} // namespace

shared::VisibilityPush visibilityPush(const GpuScene& scene, const PreparedScene& prepared,
                                      const SimConfig& config) {
    shared::VisibilityPush push{};
    push.triangles = scene.triangles.address();
    push.n = scene.n;
    push.samples = config.samples;
    push.seed = config.seed;
    push.rayEps = prepared.rayEps;
    push.estimator = kEstimatorId(config.kEstimator);
    push.nearFactor = config.nearPairFactor;
    return push;
}

NearVisibilityList::NearVisibilityList(const vk::Device& device, std::uint64_t pairsPerLaunch, const char* name)
    : capacity(std::uint32_t(std::clamp<std::uint64_t>(pairsPerLaunch / 16, 4096, 1u << 20))),
      buffer(device, 16 + std::uint64_t(capacity) * sizeof(shared::NearVisibilityPair), vk::kStorageUsage,
             vk::MemoryKind::Device, name) {}

std::uint64_t visibilityPairsPerLaunch(const vk::Device& device) {
    std::uint64_t maxItems = std::uint64_t(1) << 24;
    if (device.rayPath() == vk::RayPath::Pipeline)
        maxItems = std::min<std::uint64_t>(maxItems, device.rtProperties().maxRayDispatchInvocationCount);
    return maxItems;
}

namespace {
// One launch of both phases: the pairs, then the near pairs they listed (gpu_layout.h). The list
// is emptied first; the barrier at the end lets the next launch reuse it.
void recordLaunch(const vk::Device& device, const vk::Pipeline& pipeline, shared::VisibilityPush p,
                  std::uint32_t width, std::uint32_t rows, std::uint64_t pairs, const NearVisibilityList& near,
                  VkCommandBuffer cmd) {
    device.vk().vkCmdFillBuffer(cmd, near.buffer.handle(), 0, 16, 0);
    vk::computeBarrier(device, cmd);
    p.nearList = near.buffer.address();
    p.nearCapacity = near.capacity;
    p.phase = shared::RSIM_VIS_PAIRS;
    pipeline.bind(cmd, &p);
    launchRayPass(pipeline, cmd, width, rows, shared::RSIM_WG_PAIRS_X);
    vk::computeBarrier(device, cmd);
    p.phase = shared::RSIM_VIS_NEAR;
    pipeline.pushConstants(cmd, &p);
    launchRayPass(pipeline, cmd, std::uint32_t(std::min<std::uint64_t>(near.capacity, pairs)), 1,
                  shared::RSIM_WG_PAIRS_X);
    vk::computeBarrier(device, cmd);
}
} // namespace

void castVisibilityRows(const vk::Device& device, const vk::Pipeline& pipeline, shared::VisibilityPush push,
                        std::uint32_t rowBegin, std::uint32_t rowEnd, const NearVisibilityList& near,
                        Progress& progress) {
    forEachVisibilityLaunch(device, push, rowBegin, rowEnd,
                            [&](shared::VisibilityPush p, std::uint32_t width, std::uint32_t rows, std::uint64_t pairs) {
                                device.submitAndWait([&](VkCommandBuffer cmd) {
                                    recordLaunch(device, pipeline, p, width, rows, pairs, near, cmd);
                                });
                                progress.add(pairs);
                            });
}

std::uint64_t recordVisibilityRows(const vk::Device& device, const vk::Pipeline& pipeline,
                                   shared::VisibilityPush push, std::uint32_t rowBegin, std::uint32_t rowEnd,
                                   const NearVisibilityList& near, VkCommandBuffer cmd) {
    std::uint64_t total = 0;
    forEachVisibilityLaunch(device, push, rowBegin, rowEnd,
                            [&](shared::VisibilityPush p, std::uint32_t width, std::uint32_t rows, std::uint64_t pairs) {
                                recordLaunch(device, pipeline, p, width, rows, pairs, near, cmd);
                                total += pairs;
                            });
    return total;
}

KErrors compressKVulkan(const vk::Device& device, GpuKMatrix& K, KFormat format) {
    KErrors total;
    if (format == K.format) return total;
    const std::uint32_t storage = kFormatInfo(format).storage;
    const std::uint32_t chunks = K.chunkCount();
    const std::uint32_t tableSize = shared::rsimKTableSize(storage);
    std::vector<float> tables(std::size_t(chunks) * tableSize);
    auto finish = [&](std::uint32_t c, EncodedChunk& encoded) {
        K.chunks[c] = vk::makeStorage(device, encoded.words,
                                      "K rows " + std::to_string(K.rowBegin(c)) + " (" + kFormatInfo(format).name + ")");
        std::copy(encoded.table.begin(), encoded.table.end(), tables.begin() + std::ptrdiff_t(c) * tableSize);
        total.sumSquared += encoded.sumSquaredError;
        total.maxAbs = std::max(total.maxAbs, encoded.maxAbsError);
    };
    auto fetch = [&](std::uint32_t c) {
        auto values = vk::download<float>(device, K.chunks[c], std::size_t(K.rowEnd(c) - K.rowBegin(c)) * K.n);
        K.chunks[c].reset();
        return values;
    };
    if (kFormatInfo(format).logTable) {
        // Encoded where K is: no chunk crosses to the host.
        total = encodeLogKVulkan(device, K, format);
        refreshAddresses(device, K);
        return total;
    }
    // lutrange sorts each chunk: chunks in parallel, one core each.
    std::vector<std::vector<float>> values(chunks);
    for (std::uint32_t c = 0; c < chunks; ++c) values[c] = fetch(c);
    std::vector<EncodedChunk> encoded(chunks);
    parallelFor(chunks, 1, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t c = begin; c < end; ++c) {
            encoded[c] = encodeChunk(values[c].data(), values[c].size(), format);
            std::vector<float>().swap(values[c]);
        }
    });
    for (std::uint32_t c = 0; c < chunks; ++c) finish(c, encoded[c]);
    K.tables = vk::makeStorage(device, tables, "K tables");
    K.format = format;
    refreshAddresses(device, K);
    return total;
}

VisibilityStats computeVisibilityVulkan(const vk::Device& device, const GpuScene& scene,
                                        const vk::SceneAccel& accel, const PreparedScene& prepared,
                                        const SimConfig& config, GpuKMatrix& K, std::uint32_t nearCapacity) {
    const std::uint32_t n = scene.n;
    auto pipeline = makeRayPassPipeline(device, &vk::shaders::visibility,
                                        sizeof(shared::VisibilityPush), false, accel, "visibility");
    GpuCounters counters(device, 3, "visibility counters");
    shared::VisibilityPush push = visibilityPush(scene, prepared, config);
    push.kChunks = K.addresses.address();
    push.kStorage = K.storage();
    push.mirror = 1;
    push.stats = counters.address();
    push.rowsPerChunk = K.rowsPerChunk;

    // Rows in batches: each launch covers columns (rowBegin, n) of its rows and must respect
    // the group-count and ray-dispatch limits; ~16M pairs per submission keeps progress live.
    Progress progress("visibility", std::uint64_t(n) * (n - 1) / 2, "pairs");
    Stopwatch rayTime;
    NearVisibilityList near(device, visibilityPairsPerLaunch(device), "visibility near pairs");
    if (nearCapacity > 0) near.capacity = std::min(near.capacity, nearCapacity);
    castVisibilityRows(device, *pipeline, push, 0, n - 1, near, progress);
    progress.finish();
    const double raySeconds = rayTime.seconds();

    const auto sums = counters.read();
    VisibilityStats stats;
    stats.raySeconds = raySeconds;
    stats.candidatePairs = sums[0];
    stats.nonzeroPairs = sums[1];
    stats.raysCast = sums[2];
    return stats;
}

VisibilityStats formFactorDiagnosticsVulkan(const vk::Device& device, const GpuScene& scene,
                                            const GpuKMatrix& K) {
    const std::uint32_t n = scene.n;
    // The CPU reference computes the same in formFactorDiagnostics.
    vk::Pipeline sumsPipeline(device, vk::shaders::formFactorSums(), sizeof(shared::FormFactorPush), false,
                              vk::SpecConstants{0, 0, K.storage()}, "form-factor sums");
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
            fp.kTable = K.tableAddress(c);
            fp.rowBegin = K.rowBegin(c);
            fp.rowEnd = K.rowEnd(c);
            sumsPipeline.pushConstants(cmd, &fp);
            sumsPipeline.dispatch(cmd, (fp.rowEnd - fp.rowBegin + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR, 1);
        }
    });
    VisibilityStats stats;
    stats.clampedFormFactors = clamped.read()[0];
    for (float v : vk::download<float>(device, rowSums, n)) {
        stats.maxRowSum = std::max(stats.maxRowSum, double(v));
        stats.rowsOverOne += double(v) > kRowSumWarning;
    }
    return stats;
}

std::vector<float> downloadK(const vk::Device& device, const GpuKMatrix& K) {
    const std::size_t n = K.n;
    vk::Pipeline decode(device, vk::shaders::kDecode(), sizeof(shared::KDecodePush), false,
                        vk::SpecConstants{0, 0, K.storage()}, "K decode");
    std::vector<float> out(n * n, 0.0f);
    for (std::uint32_t c = 0; c < K.chunkCount(); ++c) {
        const std::uint32_t first = K.rowBegin(c), rows = K.rowEnd(c) - first;
        const std::uint64_t elements = std::uint64_t(rows) * n;
        vk::Buffer values(device, elements * sizeof(float), vk::kStorageUsage, vk::MemoryKind::Device,
                          "decoded K chunk");
        shared::KDecodePush push{};
        push.kChunk = K.chunks[c].address();
        push.kTable = K.tableAddress(c);
        push.values = values.address();
        device.submitAndWait([&](VkCommandBuffer cmd) {
            decode.bind(cmd, nullptr);
            forEachLaunch(elements, maxLinearLaunch(device, shared::RSIM_WG_LINEAR),
                          [&](std::uint32_t begin, std::uint32_t end) {
                              push.begin = begin;
                              push.end = end;
                              decode.pushConstants(cmd, &push);
                              decode.dispatch(cmd, (end - begin + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR, 1);
                          });
        });
        const auto chunk = vk::download<float>(device, values, elements);
        for (std::size_t j = 0; j < n; ++j)
            for (std::uint32_t r = 0; r < rows; ++r) out[(first + r) * n + j] = chunk[j * rows + r];
    }
    return out;
}

} // namespace rsim
