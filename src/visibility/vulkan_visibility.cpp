// SPDX-License-Identifier: MIT
// The visibility pass's launches (vulkan_visibility.h): rows split into launches the device's
// limits allow, their size, the launch loop that casts them one submission at a time (with what
// is prepared before each and done on the host between them), the same launches recorded into
// one command buffer, their passes' device time, and K in place on one device. The pipelines and
// lists are in vulkan_visibility_pipelines.cpp, one launch's record in vulkan_visibility_record.cpp.
#include "visibility/vulkan_visibility.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <spdlog/spdlog.h>

#include "k/vulkan_log_encode.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timer.h"
#include "visibility/vulkan_visibility_record.h"
#include "vulkan/ray_pass.h"
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
            recordVisibilityLaunch(device, pipelines, l.push, lists(k), cmd, ts ? &*ts : nullptr);
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
        if (trace) // where a phase's time goes between the launches: waits for K chunks, device time
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
                                recordVisibilityLaunch(device, pipelines, p, lists, cmd, ts,
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
    // lists exist (a submission waits behind an allocation: docs/benchmarks.md, "NVIDIA driver
    // costs").
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
        // 0.09 s of the driver's time for industry's 2.7 GB of lut8-log; docs/benchmarks.md at
        // c8397db, "Two GPUs: buffers allocated between the own block's launches; one GPU's
        // encoded K ahead").
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
    // kept until its release, where freeing them costs the run nothing (the driver's frees take
    // time on the run's path: docs/benchmarks.md, "NVIDIA driver costs").
    if (device.useCap() == 0 && lists->bytes() * 32 <= device.deviceLocalBudget())
        device.holdUntilRelease("visibility lists", lists);

    return visibilityCounts(counters);
}



} // namespace rsim
