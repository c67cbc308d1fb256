// SPDX-License-Identifier: MIT
#include "visibility/vulkan_visibility.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <spdlog/spdlog.h>

#include "accel/shaft_bvh.h"
#include "k/vulkan_log_encode.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timer.h"
#include "vulkan/ray_pass.h"
#include "vulkan/shaders.h"
#include "vulkan/timeline.h"
#include "vulkan/timestamps.h"

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
    const std::uint64_t maxItems = visibilityPairsPerLaunch(device, push.n);
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

namespace {
std::atomic<std::uint64_t> launchPairsCap{0};
} // namespace

void capVisibilityLaunchPairs(std::uint64_t pairs) { launchPairsCap = pairs; }

std::uint64_t visibilityPairsPerLaunch(vk::Device& device, std::uint32_t n) {
    const double pairs = 0.5 * double(n) * double(n > 0 ? n - 1 : 0);
    std::uint64_t maxItems = std::clamp<std::uint64_t>(std::uint64_t(std::sqrt(pairs * double(1 << 21))),
                                                       std::uint64_t(1) << 20, std::uint64_t(1) << 24);
    if (const std::uint64_t cap = launchPairsCap; cap > 0) maxItems = std::min(maxItems, cap);
    if (device.rayPath() == vk::RayPath::Pipeline)
        maxItems = std::min<std::uint64_t>(maxItems, device.rtProperties().maxRayDispatchInvocationCount);
    return maxItems;
}

namespace {
// The list of the pairs the ray pass takes: those the listed pass left, or every facing pair.
const vk::Buffer& tracedList(const VisibilityLists& lists) { return lists.tileListMax > 0 ? lists.traced : lists.facing; }

// Sizes the indirect launches of the passes over the list of pairs at p.facingList
// (FacingListHeader::launch and computeLaunch), once the passes before have completed it.
void sizeListLaunches(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush p,
                      VkCommandBuffer cmd) {
    p.phase = shared::RSIM_VIS_FACING_LAUNCH;
    pipelines.nearLaunch->bind(cmd);
    pipelines.nearLaunch->dispatch(cmd, p, 1);
    vk::indirectBarrier(device, cmd);
}

// The blocker rounds after the first phase (gpu_layout.h): the pairs with rays left compacted
// into an active list, RSIM_BLOCKER_ROUNDS rounds over it, the rest traced, then every traced
// pair's K. Each round's launches are sized on the device from the list the last one left.
void recordBlockerRounds(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush p,
                         const VisibilityLists& lists, VkCommandBuffer cmd) {
    const vk::Pipeline& rays = *pipelines.rays;
    const vk::Pass<shared::VisibilityPush>& compact = *pipelines.activePairs;
    const vk::Buffer& traced = tracedList(lists);
    compact.bind(cmd);
    compact.dispatchIndirect(cmd, p, traced, offsetof(shared::FacingListHeader, computeLaunch));
    vk::computeBarrier(device, cmd);
    for (std::uint32_t r = 0; r <= shared::RSIM_BLOCKER_ROUNDS; ++r) {
        const bool rest = r == shared::RSIM_BLOCKER_ROUNDS;
        p.phase = (rest ? shared::RSIM_VIS_REST_FROM_0 : shared::RSIM_VIS_ROUND_FROM_0) + r % 2;
        pipelines.nearLaunch->bind(cmd);
        pipelines.nearLaunch->dispatch(cmd, p, 1);
        vk::indirectBarrier(device, cmd);
        rays.bind(cmd, &p);
        rays.dispatchIndirect(cmd, lists.rounds, offsetof(shared::BlockerRoundsHeader, launch));
        vk::computeBarrier(device, cmd);
        if (rest) break;
        compact.bind(cmd);
        compact.dispatchIndirect(cmd, p, lists.rounds, offsetof(shared::BlockerRoundsHeader, compactLaunch));
        vk::computeBarrier(device, cmd);
    }
    p.phase = shared::RSIM_VIS_PAIRS_FINISH;
    rays.bind(cmd, &p);
    rays.dispatchIndirect(cmd, traced, offsetof(shared::FacingListHeader, launch));
    vk::computeBarrier(device, cmd);
}

// One launch of its phases: the facing pairs listed, the tiles' occluder lists (when on), the
// rays, then the near pairs the rays listed (gpu_layout.h). The lists are emptied first; the
// barrier at the end lets the next launch reuse them. With `ts`, the launch writes timestamps
// first to first + kLaunchStamps - 1 (reset by the caller).
void recordLaunch(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush p,
                  const VisibilityLists& lists, VkCommandBuffer cmd, const vk::Timestamps* ts = nullptr, std::uint32_t first = 0) {
    auto stamp = [&](std::uint32_t k) {
        if (ts) ts->write(cmd, first + k);
    };
    stamp(0);
    // The launch covers columns [p.colBegin, min(p.colEnd, p.n)) and rows [p.rowBegin, p.rowEnd).
    const std::uint32_t tilesX = shared::rsimTilesAcross(p), tilesY = shared::rsimTilesDown(p);
    const std::uint64_t tiles = std::uint64_t(tilesX) * tilesY;
    if (tilesX > device.limits().maxComputeWorkGroupCount[0])
        throw Error("a scene of " + std::to_string(p.n) + " triangles needs " + std::to_string(tilesX) +
                    " workgroups in a row of its visibility pass; this device allows " +
                    std::to_string(device.limits().maxComputeWorkGroupCount[0]));
    shared::FacingListHeader header{};
    if (lists.tileListMax > 0) {
        if (tiles > lists.tileCapacity) throw Error("internal: a visibility launch with more tiles than its lists hold");
        header.tileListMax = lists.tileListMax;
        header.tileCapacity = lists.tileCapacity;
        header.tiles = lists.tiles.address();
        header.traced = lists.traced.address();
        device.vk().vkCmdFillBuffer(cmd, lists.tiles.handle(), 0, tiles * 4, shared::RSIM_TILE_NONE);
        device.vk().vkCmdFillBuffer(cmd, lists.traced.handle(), 0, sizeof(shared::FacingListHeader), 0);
    }
    const vk::Pipeline& rays = *pipelines.rays;
    // The rounds are on when the lists have their area (blockerRounds(settings)); the shader
    // follows the near list's header.
    const bool rounds = bool(lists.rounds);
    if (rounds != bool(pipelines.activePairs) || (rounds && !shared::rsimBlockerRounds(p.samples, p.estimator)))
        throw Error("internal: the blocker rounds' lists or pipeline do not match the launch");
    shared::NearVisibilityListHeader nearHeader{};
    nearHeader.groupWidth = rays.isRayTracing() ? 1 : shared::RSIM_WG_PAIRS_X;
    if (rounds) {
        nearHeader.rounds = lists.rounds.address();
        shared::BlockerRoundsHeader roundsHeader{};
        roundsHeader.capacity = lists.facingCapacity;
        device.vk().vkCmdUpdateBuffer(cmd, lists.rounds.handle(), 0, sizeof roundsHeader, &roundsHeader);
    }
    device.vk().vkCmdUpdateBuffer(cmd, lists.buffer.handle(), 0, sizeof nearHeader, &nearHeader);
    device.vk().vkCmdUpdateBuffer(cmd, lists.facing.handle(), 0, sizeof header, &header);
    vk::computeBarrier(device, cmd);
    p.nearList = lists.buffer.address();
    p.nearCapacity = lists.capacity;
    p.facingList = lists.facing.address();
    pipelines.facing->bind(cmd);
    pipelines.facing->dispatch(cmd, p, tilesX, tilesY);
    vk::computeBarrier(device, cmd);
    sizeListLaunches(device, pipelines, p, cmd);
    stamp(1);
    if (lists.tileListMax > 0) {
        // The tiles' lists, then the pairs of listed tiles; the ray pass takes the others.
        pipelines.tiles->bind(cmd);
        pipelines.tiles->dispatch(cmd, p, std::uint32_t((tiles + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR));
        vk::computeBarrier(device, cmd);
        stamp(2);
        pipelines.listed->bind(cmd);
        pipelines.listed->dispatchIndirect(cmd, p, lists.facing, offsetof(shared::FacingListHeader, computeLaunch));
        vk::computeBarrier(device, cmd);
        p.facingList = lists.traced.address();
        sizeListLaunches(device, pipelines, p, cmd);
    } else {
        stamp(2);
    }
    stamp(3);
    // The ray phase, as large as its list: consecutive pairs of the list in a warp.
    p.phase = shared::RSIM_VIS_PAIRS;
    rays.bind(cmd, &p);
    rays.dispatchIndirect(cmd, tracedList(lists), offsetof(shared::FacingListHeader, launch));
    vk::computeBarrier(device, cmd);
    if (rounds) recordBlockerRounds(device, pipelines, p, lists, cmd);
    stamp(4);
    // The near pairs' parts, then their sums (gpu_layout.h), launched as large as the list the
    // ray phase left.
    p.phase = shared::RSIM_VIS_NEAR;
    pipelines.nearLaunch->bind(cmd);
    pipelines.nearLaunch->dispatch(cmd, p, 1);
    vk::indirectBarrier(device, cmd);
    p.phase = shared::RSIM_VIS_NEAR;
    rays.bind(cmd, &p);
    rays.dispatchIndirect(cmd, lists.buffer, offsetof(shared::NearVisibilityListHeader, partsLaunch));
    vk::computeBarrier(device, cmd);
    p.phase = shared::RSIM_VIS_NEAR_FINISH;
    rays.pushConstants(cmd, &p);
    rays.dispatchIndirect(cmd, lists.buffer, offsetof(shared::NearVisibilityListHeader, finishLaunch));
    vk::computeBarrier(device, cmd);
    stamp(5);
}
} // namespace

std::uint32_t castVisibilityRows(vk::Device& device, const VisibilityPipelines& pipelines, shared::VisibilityPush push,
                                 std::uint32_t rowBegin, std::uint32_t rowEnd, const LaunchLists& lists,
                                 Progress& progress, VisibilityPassTimes* times, const LaunchPreparation& prepare,
                                 const BetweenLaunches& between) {
    std::optional<vk::Timestamps> ts;
    if (times) ts.emplace(device, kLaunchStamps, "visibility pass timestamps");
    struct Launch {
        shared::VisibilityPush push;
        std::uint64_t pairs;
    };
    std::vector<Launch> launches;
    forEachVisibilityLaunch(device, push, rowBegin, rowEnd,
                            [&](shared::VisibilityPush p, std::uint32_t, std::uint32_t, std::uint64_t pairs) {
                                launches.push_back({p, pairs});
                            });
    if (prepare) std::reverse(launches.begin(), launches.end());
    const bool trace = spdlog::should_log(spdlog::level::debug);
    const Stopwatch clock;
    std::optional<vk::TimelineSemaphore> done;
    if (between) done.emplace(device, "visibility launches");
    std::uint32_t first = rowEnd; // the lowest row cast so far, whichever way the launches run
    bool goOn = true;
    for (std::size_t k = 0; k < launches.size() && goOn; ++k) {
        const Launch& l = launches[k];
        if (l.pairs > lists(k).facingCapacity)
            throw Error("internal: a visibility launch with more pairs than its lists hold");
        double start = 0.0, prepared = 0.0;
        auto record = [&](VkCommandBuffer cmd) {
            start = clock.seconds();
            if (ts) ts->reset(cmd);
            if (prepare) prepare(cmd, l.push);
            prepared = clock.seconds();
            recordLaunch(device, pipelines, l.push, lists(k), cmd, ts ? &*ts : nullptr);
        };
        if (done) {
            const std::uint64_t v = done->submit(false, record);
            if (k + 1 < launches.size()) goOn = between(launches[k + 1].push, [&] { return !done->waitFor(v, 0); }) || !prepare;
            done->wait(v);
            device.reclaim();
        } else {
            device.submitAndWait(record);
        }
        VisibilityPassTimes passes;
        if (times) {
            passes.add(ts->intervals(), 1);
            *times += passes;
        }
        if (trace) // where a phase's time goes between the launches (docs/benchmarks.md)
            spdlog::debug("{}: visibility launch of rows {} to {} ({} pairs): at +{:.4f} s, {:.4f} s waiting for its "
                          "K chunks, done at +{:.4f} s, {:.4f} s of device time",
                          device.label(), l.push.rowBegin, l.push.rowEnd, l.pairs, start, prepared - start,
                          clock.seconds(), passes.total());
        progress.add(l.pairs);
        first = std::min(first, l.push.rowBegin);
    }
    return first;
}

std::uint64_t recordVisibilityRows(vk::Device& device, const VisibilityPipelines& pipelines,
                                   shared::VisibilityPush push, std::uint32_t rowBegin, std::uint32_t rowEnd,
                                   const VisibilityLists& lists, VkCommandBuffer cmd, const vk::Timestamps* ts) {
    std::uint64_t total = 0;
    std::uint32_t launches = 0;
    if (ts) ts->reset(cmd);
    forEachVisibilityLaunch(device, push, rowBegin, rowEnd,
                            [&](shared::VisibilityPush p, std::uint32_t, std::uint32_t, std::uint64_t pairs) {
                                recordLaunch(device, pipelines, p, lists, cmd, ts,
                                             launches++ * kLaunchStamps);
                                total += pairs;
                            });
    return total;
}

std::vector<std::uint32_t> visibilityLaunchRows(vk::Device& device, shared::VisibilityPush push,
                                                std::uint32_t rowBegin, std::uint32_t rowEnd) {
    std::vector<std::uint32_t> rows;
    std::uint32_t end = rowBegin;
    forEachVisibilityLaunch(device, push, rowBegin, rowEnd,
                            [&](shared::VisibilityPush p, std::uint32_t, std::uint32_t, std::uint64_t) {
                                rows.push_back(p.rowBegin);
                                end = p.rowEnd;
                            });
    if (!rows.empty()) rows.push_back(end);
    return rows;
}

std::uint32_t visibilityLaunchCount(vk::Device& device, shared::VisibilityPush push, std::uint32_t rowBegin,
                                    std::uint32_t rowEnd) {
    const std::size_t rows = visibilityLaunchRows(device, push, rowBegin, rowEnd).size();
    return rows == 0 ? 0 : std::uint32_t(rows - 1);
}

VisibilityLaunchSize lastVisibilityLaunchSize(vk::Device& device, shared::VisibilityPush push, std::uint32_t rowBegin,
                                              std::uint32_t rowEnd) {
    VisibilityLaunchSize last;
    forEachVisibilityLaunch(device, push, rowBegin, rowEnd,
                            [&](shared::VisibilityPush, std::uint32_t width, std::uint32_t rows, std::uint64_t pairs) {
                                last = {pairs, std::uint64_t(width) * rows};
                            });
    return last;
}

void VisibilityPassTimes::add(const std::vector<double>& intervals, std::uint32_t launches) {
    for (std::uint32_t l = 0; l < launches; ++l) {
        const std::size_t at = std::size_t(l) * kLaunchStamps;
        if (at + 5 > intervals.size()) break;
        facing += intervals[at];
        tileQueries += intervals[at + 1];
        listed += intervals[at + 2];
        traced += intervals[at + 3];
        near += intervals[at + 4];
    }
}

VisibilityStats computeVisibilityVulkan(vk::Device& device, const GpuGeometry& geometry,
                                        const vk::SceneAccel& accel, const PreparedScene& prepared,
                                        const KSettings& settings, DeviceK& K, double& raySeconds,
                                        std::uint32_t nearCapacity, VisibilityPassTimes* times,
                                        EncodedAhead* encoded) {
    const std::uint32_t n = geometry.n;
    const VisibilityPipelines pipelines = makeVisibilityPipelines(device, settings, accel);
    GpuCounters counters(device, kVisibilityCounters, "visibility counters");
    // K without chunks: they are allocated between the launches, which then run from the last
    // rows, each launch's before it or while the one before it runs (ChunksForLaunches); the
    // table starts empty.
    std::optional<ChunksForLaunches> chunks;
    const vk::Buffer addresses = K.buffers.empty()
                                     ? vk::makeStorage(device, std::vector<std::uint64_t>(K.chunking.chunks(), 0),
                                                       "K chunk addresses")
                                     : chunkAddressTable(device, K);
    if (K.buffers.empty()) chunks.emplace(device, K);
    shared::VisibilityPush push = visibilityPush(geometry, prepared, settings);
    push.kChunks = addresses.address();
    push.kStorage = K.chunking.storage();
    push.mirror = shared::RSIM_K_MIRRORED;
    push.stats = counters.address();
    push.rowsPerChunk = K.chunking.rowsPerChunk;

    // Rows in batches: each launch covers columns (rowBegin, n) of its rows and must respect
    // the group-count and ray-dispatch limits and visibilityPairsPerLaunch's size; a submission
    // each keeps progress live.
    Progress progress("visibility", std::uint64_t(n) * (n - 1) / 2, "pairs");
    Stopwatch rayTime;
    // The lists: with K's chunks allocated between the launches, which then run from the last
    // rows, the first launch (the last rows', the smallest) gets lists of its own size and the
    // others' lists are allocated while it runs; the driver holds the first launch until its
    // lists exist (docs/benchmarks.md).
    struct Lists {
        std::shared_ptr<VisibilityLists> first, rest;
        std::uint64_t bytes() const { return (first ? first->bytes() : 0) + (rest ? rest->bytes() : 0); }
    };
    const auto lists = std::make_shared<Lists>();
    auto made = [&](const auto& create) {
        const Stopwatch sw;
        std::shared_ptr<VisibilityLists> l = create();
        if (nearCapacity > 0) l->capacity = std::min(l->capacity, nearCapacity);
        spdlog::debug("{}: visibility lists of {:.1f} MiB allocated in {:.4f} s, ready at +{:.4f} s", device.label(),
                      double(l->bytes()) / 1048576.0, sw.seconds(), rayTime.seconds());
        return l;
    };
    const VisibilityLaunchSize first = chunks ? lastVisibilityLaunchSize(device, push, 0, n - 1) : VisibilityLaunchSize{};
    if (first.cells > 0 && 2 * first.cells <= visibilityPairsPerLaunch(device, n))
        lists->first = made([&] {
            return VisibilityLists::forLaunch(device, first.pairs, first.cells, n, tileListMax(settings),
                                              blockerRounds(settings), "visibility lists (first launch)");
        });
    auto rest = [&] {
        if (!lists->rest)
            lists->rest = made([&] {
                return std::make_shared<VisibilityLists>(device, n, tileListMax(settings), blockerRounds(settings),
                                                         "visibility lists");
            });
        return lists->rest;
    };
    if (!lists->first) rest();
    LaunchPreparation prepare;
    BetweenLaunches between;
    if (chunks) {
        // A launch of rows [a, b) writes (i, j), i >= a, and (j, i), j > i: chunks from a's on.
        prepare = [&](VkCommandBuffer cmd, const shared::VisibilityPush& p) {
            chunks->need(K.chunking.chunkOf(p.rowBegin), cmd, addresses);
        };
        // The next launch's chunks, then, while the launch runs, the chunks after them and, once
        // every chunk exists, the encoded ones (which the compression allocated after the phase:
        // 0.09 s of an H200's driver for industry's 2.7 GB of lut8-log, docs/benchmarks.md).
        between = [&](const shared::VisibilityPush& next, const std::function<bool()>& running) {
            rest();
            chunks->allocateFrom(K.chunking.chunkOf(next.rowBegin));
            while (running() && (chunks->allocateNext() || (encoded && encoded->allocateNext(device, K)))) {
            }
            return true;
        };
    }
    const LaunchLists listsOf = [&](std::size_t k) -> const VisibilityLists& {
        return k == 0 && lists->first ? *lists->first : *lists->rest;
    };
    castVisibilityRows(device, pipelines, push, 0, n - 1, listsOf, progress, times, prepare, between);
    if (chunks) chunks->finish();
    if (encoded && encoded->allocated() > 0)
        spdlog::debug("{}: {} of K's {} encoded chunk(s) allocated while the last launches ran", device.label(),
                      encoded->allocated(), K.chunkIds.size());
    progress.finish();
    raySeconds = rayTime.seconds();
    // Lists small beside the device's memory (a 32nd of what is free; no --max-device-mb) are
    // kept until its release, where freeing them costs the run nothing (docs/benchmarks.md).
    if (device.useCap() == 0 && lists->bytes() * 32 <= device.deviceLocalBudget())
        device.holdUntilRelease("visibility lists", lists);

    return visibilityCounts(counters);
}

VisibilityStats visibilityCounts(const GpuCounters& counters) {
    const auto sums = counters.read();
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
