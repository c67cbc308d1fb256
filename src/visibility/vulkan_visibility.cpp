// SPDX-License-Identifier: MIT
#include "visibility/vulkan_visibility.h"

#include <algorithm>

#include "accel/shaft_bvh.h"
#include "util/progress.h"
#include "util/timer.h"
#include "vulkan/ray_pass.h"
#include "vulkan/shaders.h"

namespace rsim {

namespace {
// Splits rows [rowBegin, rowEnd) (pairs i < j, or every column with RSIM_K_FULL_ROWS) into
// launches within the device's limits and calls launch(push, width, rows, pairs) for each.
// Columns [push.colBegin, push.colEnd) only (all of them for the whole rows).
template <class Launch>
void forEachVisibilityLaunch(vk::Device& device, shared::VisibilityPush push, std::uint32_t rowBegin,
                             std::uint32_t rowEnd, Launch launch) {
    const std::uint32_t colLo = push.colBegin, colHi = std::min(push.colEnd, push.n);
    const bool full = push.mirror == shared::RSIM_K_FULL_ROWS; // every column, not only j > i
    if (!full) rowEnd = std::min(rowEnd, colHi == 0 ? 0 : colHi - 1); // no pair i < j beyond
    const std::uint64_t maxItems = visibilityPairsPerLaunch(device);
    for (std::uint32_t row = rowBegin; row < rowEnd;) {
        const std::uint32_t first = full ? colLo : std::max(colLo, row + 1);
        if (first >= colHi) break; // later rows start further right
        const std::uint32_t width = colHi - first;
        const std::uint32_t rows = std::uint32_t(std::clamp<std::uint64_t>(
            maxItems / width, 1, std::min<std::uint64_t>(device.limits().maxComputeWorkGroupCount[1], rowEnd - row)));
        push.rowBegin = row;
        push.rowEnd = row + rows;
        push.colBegin = first;
        std::uint64_t pairs = 0; // elements computed (a pair twice with full rows)
        for (std::uint32_t r = row; r < row + rows; ++r) {
            const std::uint32_t from = full ? colLo : std::max(colLo, r + 1);
            const bool diagonal = full && r >= colLo && r < colHi;
            pairs += from < colHi ? colHi - from - (diagonal ? 1 : 0) : 0;
        }
        launch(push, width, rows, pairs);
        row += rows;
    }
}
} // namespace

vk::ShaderCode (*visibilityShader(const KSettings& k))(vk::RayPath) {
    return k.clearPairsByFormula && k.estimator != KEstimator::Area ? &vk::shaders::visibilityClearPairs
                                                                    : &vk::shaders::visibility;
}

shared::VisibilityPush visibilityPush(const GpuGeometry& geometry, const PreparedScene& prepared,
                                      const KSettings& k) {
    shared::VisibilityPush push{};
    push.triangles = geometry.triangles.address();
    push.n = geometry.n;
    push.samples = k.samples;
    push.seed = k.seed;
    push.rayEps = prepared.rayEps;
    push.estimator = kEstimatorId(k.estimator);
    push.nearFactor = k.nearPairFactor;
    push.shaftNodes = geometry.shaftNodes.address();
    push.shaftPrims = geometry.shaftPrims.address();
    push.shaftEps = shaftEps(prepared);
    push.clearPairs = k.clearPairsByFormula && k.estimator != KEstimator::Area ? 1u : 0u;
    push.colBegin = 0;
    push.colEnd = geometry.n;
    return push;
}

VisibilityPipelines makeVisibilityPipelines(vk::Device& device, const KSettings& settings,
                                            const vk::SceneAccel& accel) {
    VisibilityPipelines p;
    p.facing = std::make_unique<vk::Pass<shared::VisibilityPush>>(device, vk::shaders::facingPairs(),
                                                                  vk::SpecConstants{}, "visibility facing pairs");
    p.rays = makeRayPassPipeline(device, visibilityShader(settings), sizeof(shared::VisibilityPush), false, accel,
                                 "visibility");
    return p;
}

VisibilityLists::VisibilityLists(vk::Device& device, std::uint64_t pairsPerLaunch, std::uint32_t n,
                                 const char* name)
    : capacity(std::uint32_t(std::clamp<std::uint64_t>(pairsPerLaunch / 16, 4096, 1u << 20))),
      buffer(device, sizeof(shared::NearVisibilityListHeader) + std::uint64_t(capacity) * sizeof(shared::NearVisibilityPair), vk::kStorageUsage,
             vk::MemoryKind::Device, name),
      facing(device,
             sizeof(shared::FacingListHeader) +
                 std::min<std::uint64_t>(pairsPerLaunch, std::uint64_t(n) * n) * 2 * sizeof(std::uint32_t),
             vk::kStorageUsage, vk::MemoryKind::Device, std::string(name) + " (facing pairs)") {}

std::uint64_t visibilityPairsPerLaunch(vk::Device& device) {
    std::uint64_t maxItems = std::uint64_t(1) << 24;
    if (device.rayPath() == vk::RayPath::Pipeline)
        maxItems = std::min<std::uint64_t>(maxItems, device.rtProperties().maxRayDispatchInvocationCount);
    return maxItems;
}

namespace {
// One launch of its three phases: the facing pairs listed, their rays, then the near pairs the
// rays listed (gpu_layout.h). The lists are emptied first; the barrier at the end lets the next
// launch reuse them.
void recordLaunch(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush p,
                  std::uint32_t width, std::uint32_t rows, std::uint64_t pairs, const VisibilityLists& lists,
                  VkCommandBuffer cmd) {
    device.vk().vkCmdFillBuffer(cmd, lists.buffer.handle(), 0, sizeof(shared::NearVisibilityListHeader), 0);
    device.vk().vkCmdFillBuffer(cmd, lists.facing.handle(), 0, sizeof(shared::FacingListHeader), 0);
    vk::computeBarrier(device, cmd);
    p.nearList = lists.buffer.address();
    p.nearCapacity = lists.capacity;
    p.facingList = lists.facing.address();
    pipelines.facing->bind(cmd);
    pipelines.facing->dispatch(cmd, p, (width + shared::RSIM_WG_PAIRS_X - 1) / shared::RSIM_WG_PAIRS_X, rows);
    vk::computeBarrier(device, cmd);
    // The ray phase: on the RT pipeline one row of width x rows invocations, so that a warp takes
    // consecutive listed pairs (a 2-D launch may give a warp a tile of several rows); the compute
    // build keeps the 2-D shape, whose x is bounded by the workgroup count.
    const vk::Pipeline& rays = *pipelines.rays;
    const bool oneRow = rays.isRayTracing();
    p.phase = shared::RSIM_VIS_PAIRS;
    p.facingWidth = oneRow ? width * rows : width;
    rays.bind(cmd, &p);
    launchRayPass(rays, cmd, p.facingWidth, oneRow ? 1 : rows, shared::RSIM_WG_PAIRS_X);
    vk::computeBarrier(device, cmd);
    p.phase = shared::RSIM_VIS_NEAR;
    rays.pushConstants(cmd, &p);
    launchRayPass(rays, cmd, std::uint32_t(std::min<std::uint64_t>(lists.capacity, pairs)), 1,
                  shared::RSIM_WG_PAIRS_X);
    vk::computeBarrier(device, cmd);
}
} // namespace

void castVisibilityRows(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush push,
                        std::uint32_t rowBegin, std::uint32_t rowEnd, const VisibilityLists& lists,
                        Progress& progress) {
    forEachVisibilityLaunch(device, push, rowBegin, rowEnd,
                            [&](shared::VisibilityPush p, std::uint32_t width, std::uint32_t rows, std::uint64_t pairs) {
                                device.submitAndWait([&](VkCommandBuffer cmd) {
                                    recordLaunch(device, pipelines, p, width, rows, pairs, lists, cmd);
                                });
                                progress.add(pairs);
                            });
}

std::uint64_t recordVisibilityRows(vk::Device& device, const VisibilityPipelines& pipelines,
                                   shared::VisibilityPush push, std::uint32_t rowBegin, std::uint32_t rowEnd,
                                   const VisibilityLists& lists, VkCommandBuffer cmd) {
    std::uint64_t total = 0;
    forEachVisibilityLaunch(device, push, rowBegin, rowEnd,
                            [&](shared::VisibilityPush p, std::uint32_t width, std::uint32_t rows, std::uint64_t pairs) {
                                recordLaunch(device, pipelines, p, width, rows, pairs, lists, cmd);
                                total += pairs;
                            });
    return total;
}

VisibilityStats computeVisibilityVulkan(vk::Device& device, const GpuGeometry& geometry,
                                        const vk::SceneAccel& accel, const PreparedScene& prepared,
                                        const KSettings& settings, DeviceK& K, double& raySeconds,
                                        std::uint32_t nearCapacity) {
    const std::uint32_t n = geometry.n;
    const VisibilityPipelines pipelines = makeVisibilityPipelines(device, settings, accel);
    GpuCounters counters(device, kVisibilityCounters, "visibility counters");
    const vk::Buffer addresses = chunkAddressTable(device, K);
    shared::VisibilityPush push = visibilityPush(geometry, prepared, settings);
    push.kChunks = addresses.address();
    push.kStorage = K.chunking.storage();
    push.mirror = shared::RSIM_K_MIRRORED;
    push.stats = counters.address();
    push.rowsPerChunk = K.chunking.rowsPerChunk;

    // Rows in batches: each launch covers columns (rowBegin, n) of its rows and must respect
    // the group-count and ray-dispatch limits; ~16M pairs per submission keeps progress live.
    Progress progress("visibility", std::uint64_t(n) * (n - 1) / 2, "pairs");
    Stopwatch rayTime;
    VisibilityLists lists(device, visibilityPairsPerLaunch(device), n, "visibility lists");
    if (nearCapacity > 0) lists.capacity = std::min(lists.capacity, nearCapacity);
    castVisibilityRows(device, pipelines, push, 0, n - 1, lists, progress);
    progress.finish();
    raySeconds = rayTime.seconds();

    return visibilityCounts(counters);
}

VisibilityStats visibilityCounts(const GpuCounters& counters) {
    const auto sums = counters.read();
    VisibilityStats stats;
    stats.candidatePairs = sums[0];
    stats.nonzeroPairs = sums[1];
    stats.raysCast = sums[2];
    stats.clearPairs = sums[3];
    return stats;
}


} // namespace rsim
