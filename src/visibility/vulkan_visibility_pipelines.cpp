// SPDX-License-Identifier: MIT
// The visibility pass's setup (vulkan_visibility.h): the shader and push constants the settings
// ask for, its pipelines (compiled ahead on the device's warm-up threads), the lists one launch
// needs and their bytes, and the counters it fills.
#include "visibility/vulkan_visibility.h"

#include <algorithm>
#include <memory>
#include <string>

#include "accel/shaft_bvh.h"
#include "vulkan/ray_pass.h"
#include "vulkan/shaders.h"

namespace rsim {

vk::ShaderCode (*visibilityShader(const KSettings& k))(vk::RayPath) {
    return k.clearPairsByFormula && k.estimator != KEstimator::Area ? &vk::shaders::visibilityClearPairs
                                                                    : &vk::shaders::visibility;
}

std::uint32_t tileListMax(const KSettings& k) {
    return k.estimator == KEstimator::Area || k.clearPairsByFormula ? 0 : k.tileListMax;
}

bool blockerRounds(const KSettings& k) {
    return k.blockerRounds && shared::rsimBlockerRounds(k.samples, kEstimatorId(k.estimator));
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

namespace {
// The passes of the facing pairs, the tiles' lists, the listed pairs, the launch sizes and the
// blocker rounds' compaction, those the settings use, in the order of VisibilityPipelines.
struct VisibilityRecipes {
    vk::PipelineRecipe facing, tiles, listed, nearLaunch, activePairs, rays;
};
VisibilityRecipes visibilityRecipeSet(vk::Device& device, const KSettings& settings) {
    using Push = shared::VisibilityPush;
    VisibilityRecipes r;
    r.facing = vk::passRecipe<Push>(vk::shaders::facingPairs(), {}, "visibility facing pairs");
    if (tileListMax(settings) > 0) {
        r.tiles = vk::passRecipe<Push>(vk::shaders::tileShafts(), {}, "visibility tile shafts");
        r.listed = vk::passRecipe<Push>(vk::shaders::visibilityListed(), {}, "visibility listed pairs");
    }
    r.nearLaunch = vk::passRecipe<Push>(vk::shaders::nearLaunch(), {}, "visibility launch sizes");
    if (blockerRounds(settings))
        r.activePairs = vk::passRecipe<Push>(vk::shaders::activePairs(), {}, "visibility active pairs");
    // With the closest-hit shader: rsimBlocker names what blocked a ray (the blocker rounds).
    r.rays = rayPassRecipe(device, visibilityShader(settings), sizeof(Push), true, "visibility");
    return r;
}
// Those the settings use, the ray pass first: on a cold driver it compiles longest.
std::vector<vk::PipelineRecipe> inUse(const VisibilityRecipes& r) {
    std::vector<vk::PipelineRecipe> all;
    for (const vk::PipelineRecipe* x : {&r.rays, &r.facing, &r.tiles, &r.listed, &r.nearLaunch, &r.activePairs})
        if (x->code.words) all.push_back(*x);
    return all;
}
} // namespace

void warmVisibilityPipelines(vk::Device& device, const KSettings& settings) {
    device.pipelineWarmup().start(inUse(visibilityRecipeSet(device, settings)));
}

VisibilityPipelines makeVisibilityPipelines(vk::Device& device, const KSettings& settings,
                                            const vk::SceneAccel& accel) {
    // Every pass compiled at once (the device's warm-up, vulkan/pipeline_warmup.h), then each
    // taken when ready.
    const VisibilityRecipes r = visibilityRecipeSet(device, settings);
    device.pipelineWarmup().start(inUse(r));
    using Pass = vk::Pass<shared::VisibilityPush>;
    VisibilityPipelines p;
    p.facing = std::make_unique<Pass>(device, r.facing);
    if (r.tiles.code.words) p.tiles = std::make_unique<Pass>(device, r.tiles);
    if (r.listed.code.words) p.listed = std::make_unique<Pass>(device, r.listed);
    p.nearLaunch = std::make_unique<Pass>(device, r.nearLaunch);
    if (r.activePairs.code.words) p.activePairs = std::make_unique<Pass>(device, r.activePairs);
    p.rays = makeRayPassPipeline(device, r.rays, accel);
    return p;
}

namespace {
// Tiles (gpu_layout.h, FacingListHeader) one launch of at most `pairsPerLaunch` pairs of n
// triangles may have.
std::uint32_t visibilityTileCapacity(std::uint64_t pairsPerLaunch, std::uint32_t n) {
    // A launch of w columns and r rows, w r <= min(pairsPerLaunch, n^2) and w, r <= n, has
    // ceil(w / E) ceil(r / E) <= w r / E^2 + (w + r) / E + 1 tiles.
    const std::uint64_t E = shared::RSIM_TILE_EDGE;
    return std::uint32_t(std::min<std::uint64_t>(pairsPerLaunch, std::uint64_t(n) * n) / (E * E) + 2 * n / E + 1);
}

// The near list's longest: 2^17 pairs, whose parts the compute build launches in at most
// 2^21 / 64 workgroups, within every device's limit of 65,535 in x. Near pairs are a few per row; those
// beyond it are finished in the first phase.
constexpr std::uint64_t kMaxNearPairs = std::uint64_t(1) << 17;

// The most pairs a launch lists.
std::uint32_t launchPairCapacity(std::uint64_t pairsPerLaunch, std::uint32_t n) {
    return std::uint32_t(std::min<std::uint64_t>(pairsPerLaunch, std::uint64_t(n) * n));
}

std::uint64_t facingListBytes(std::uint64_t pairsPerLaunch, std::uint32_t n) {
    return shared::rsimFacingListBytes(launchPairCapacity(pairsPerLaunch, n));
}
} // namespace

std::uint64_t visibilityListBytes(vk::Device& device, std::uint32_t n, std::uint32_t tileListMax, bool rounds) {
    const std::uint64_t pairsPerLaunch = visibilityPairsPerLaunch(device, n);
    std::uint64_t bytes = rounds ? shared::rsimBlockerRoundsBytes(launchPairCapacity(pairsPerLaunch, n)) : 0;
    if (tileListMax > 0)
        bytes += std::uint64_t(visibilityTileCapacity(pairsPerLaunch, n)) * (1 + tileListMax) * 4 +
                 facingListBytes(pairsPerLaunch, n); // and the pairs left to the rays
    return bytes;
}

VisibilityLists::VisibilityLists(vk::Device& device, std::uint32_t n, std::uint32_t listMax, bool withRounds,
                                 const char* name)
    : VisibilityLists(device, visibilityPairsPerLaunch(device, n), visibilityPairsPerLaunch(device, n),
                      visibilityPairsPerLaunch(device, n), n, listMax, withRounds, name) {}

std::shared_ptr<VisibilityLists> VisibilityLists::forLaunch(vk::Device& device, std::uint64_t pairs,
                                                            std::uint64_t cells, std::uint32_t n,
                                                            std::uint32_t listMax, bool withRounds, const char* name) {
    return std::shared_ptr<VisibilityLists>(
        new VisibilityLists(device, pairs, cells, visibilityPairsPerLaunch(device, n), n, listMax, withRounds, name));
}

VisibilityLists::VisibilityLists(vk::Device& device, std::uint64_t pairsPerLaunch, std::uint64_t cellsPerLaunch,
                                 std::uint64_t nearListPairs, std::uint32_t n, std::uint32_t listMax, bool withRounds,
                                 const char* name)
    : capacity(std::uint32_t(std::clamp<std::uint64_t>(nearListPairs / 64, 4096, kMaxNearPairs))),
      facingCapacity(launchPairCapacity(pairsPerLaunch, n)),
      tileListMax(listMax), tileCapacity(listMax ? visibilityTileCapacity(cellsPerLaunch, n) : 0),
      buffer(device, shared::rsimNearListBytes(capacity), vk::kStorageUsage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
             vk::MemoryKind::Device, name),
      facing(device, facingListBytes(pairsPerLaunch, n), vk::kStorageUsage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
             vk::MemoryKind::Device, std::string(name) + " (facing pairs)") {
    if (withRounds)
        rounds = vk::Buffer(device, shared::rsimBlockerRoundsBytes(launchPairCapacity(pairsPerLaunch, n)),
                            vk::kStorageUsage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, vk::MemoryKind::Device,
                            std::string(name) + " (blocker rounds)");
    if (listMax == 0) return;
    tiles = vk::Buffer(device, std::uint64_t(tileCapacity) * (1 + listMax) * 4, vk::kStorageUsage,
                       vk::MemoryKind::Device, std::string(name) + " (tiles' occluder lists)");
    traced = vk::Buffer(device, facingListBytes(pairsPerLaunch, n), vk::kStorageUsage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                        vk::MemoryKind::Device, std::string(name) + " (pairs left to the rays)");
}

VisibilityStats visibilityCounts(const GpuCounters& counters) { return visibilityCounts(counters.read()); }

VisibilityStats visibilityCounts(const std::vector<std::uint64_t>& sums) {
    VisibilityStats stats;
    stats.candidatePairs = sums[0];
    stats.nonzeroPairs = sums[1];
    stats.raysCast = sums[2];
    stats.clearPairs = sums[3];
    stats.raysListed = sums[4];
    stats.tilesListed = sums[5];
    stats.tilesLong = sums[6];
    stats.tileListEntries = sums[7];
    stats.raysByBlockers = sums[8];
    return stats;
}

} // namespace rsim
