// SPDX-License-Identifier: MIT
#include "visibility/vulkan_visibility_ranks.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "k/k_diagnostics.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"
#include "visibility/vulkan_visibility.h"
#include "vulkan/ray_pass.h"
#include "vulkan/timeline.h"

namespace rsim {
namespace {

// A piece of what rank `tracer` sends rank `receiver`: columns [col0, col1) of the receiver's
// chunk `chunk`, all its rows, as the chunk stores them ([j][i - rowBegin]), so that the
// receiver copies it into place as it is.
struct Region {
    std::uint32_t chunk, col0, col1;
    std::uint64_t elements(const KChunking& ch) const { return std::uint64_t(col1 - col0) * ch.rows(chunk); }
};

// The block `tracer` casts with `receiver` (RowShare::pairBlock), seen from the receiver's
// chunks: the lower rank's rows against the higher's, so the receiver's chunks are the block's
// columns when it is the higher rank, and its rows when it is the lower.
std::vector<Region> regions(const RowShare& share, int tracer, int receiver) {
    const RowShare::PairBlock b = share.pairBlock(tracer, receiver, true);
    const KChunking& ch = share.chunking();
    std::vector<Region> out;
    const bool receiverHigh = receiver > tracer;
    const std::uint32_t r0 = receiverHigh ? b.j0 : b.i0, r1 = receiverHigh ? b.j1 : b.i1;
    const std::uint32_t c0 = receiverHigh ? b.i0 : b.j0, c1 = receiverHigh ? b.i1 : b.j1;
    if (r0 >= r1 || c0 >= c1) return out;
    for (std::uint32_t c = ch.chunkOf(r0); c < ch.chunks() && ch.rowBegin(c) < r1; ++c) out.push_back({c, c0, c1});
    return out;
}

// One cast: rows [rowBegin, rowEnd) against columns [colBegin, colEnd), pairs i < j, both K_ij
// and K_ji stored; the side in the chunks `foreign` (consecutive chunks of another part) goes to
// a scratch chunk each, whose region [col0, col1) comes back to the host.
struct Cast {
    std::uint32_t rowBegin, rowEnd, colBegin, colEnd;
    std::vector<Region> foreign; // empty: this part's own block
    int receiver = -1;
    std::uint64_t sendOffset = 0; // where its first region goes in the message to `receiver`
};

constexpr std::uint32_t kSlots = 2;
// Foreign chunks per cast: a cast of one chunk's rows against half a part's rows (or the
// reverse) has a few million pairs, and every cast pays its launch's phases and their tails; four
// make launches of about the most pairs a launch covers in the large scenes that several devices
// share (2^24, visibilityPairsPerLaunch).
constexpr std::uint32_t kGroup = 4;
// Each of the two staging buffers through which the devices of one process upload each other's
// halves (kHalfSwapStagingBytes in all).
constexpr std::uint64_t kStageBytes = kHalfSwapStagingBytes / 2;

} // namespace

std::uint64_t rankAssemblyDeviceBytes(const RowShare& share) {
    const KChunking& ch = share.chunking();
    const std::uint64_t rows = share.rowEnd() - share.rowBegin();
    return (rows * ch.n + kGroup * std::uint64_t(ch.rowsPerChunk) * ch.n) * 4; // its rows, the scratch chunks
}

HalfSwap DeviceHalfSwap::forPart(int part) {
    return [this, part](const std::vector<std::span<const float>>& sendTo,
                        const std::function<void(int, std::span<const float>)>& receive) {
        swap(part, sendTo, receive);
    };
}

void DeviceHalfSwap::fail() {
    std::lock_guard lock(mutex_);
    failed_ = true;
    cv_.notify_all();
}

void DeviceHalfSwap::waitFor(std::size_t& counter, std::unique_lock<std::mutex>& lock) {
    ++counter;
    cv_.notify_all();
    cv_.wait(lock, [&] { return failed_ || counter == posted_.size(); });
    if (!failed_) return;
    // No part's halves go while another part still reads them.
    cv_.wait(lock, [&] { return reading_ == 0; });
    throw Abandoned();
}

void DeviceHalfSwap::swap(int part, const std::vector<std::span<const float>>& sendTo,
                          const std::function<void(int, std::span<const float>)>& receive) {
    std::unique_lock lock(mutex_);
    posted_[std::size_t(part)] = &sendTo;
    waitFor(postedCount_, lock);
    ++reading_;
    lock.unlock();
    const auto doneReading = [&] {
        lock.lock();
        --reading_;
        cv_.notify_all();
    };
    try {
        for (std::size_t r = 0; r < posted_.size(); ++r) {
            if (int(r) == part) continue;
            const std::span<const float> piece = (*posted_[r])[std::size_t(part)];
            if (!piece.empty()) receive(int(r), piece);
        }
    } catch (...) {
        // This part leaves, and its own halves go with it: the others stop waiting, and it waits
        // until none of them is still reading (they finish what they are receiving).
        doneReading();
        failed_ = true;
        cv_.notify_all();
        cv_.wait(lock, [&] { return reading_ == 0; });
        throw;
    }
    doneReading();
    waitFor(copiedCount_, lock);
}

RankAssembledK computeKRankAssembled(const VisibilityDevice& vd, const PreparedScene& prepared,
                                    const KSettings& settings, const KPlan& plan, const RowShare& share,
                                    const HalfSwap& swapHalves, Progress* sharedProgress) {
    vk::Device& dev = *vd.device;
    const KChunking ch = plan.chunking.as(KFormat::Fp32);
    const int me = share.rank(), R = share.count();
    const std::uint32_t R0 = share.rowBegin(), R1 = share.rowEnd();
    RankAssembledK out;
    out.K.chunking = ch; // its chunks allocated beside the own block's first launches
    const std::string who = share.name(me);

    // The casts: first the launches of this part's own block from its last rows, one at a time,
    // while its fp32 chunks are allocated (from the last; the driver allocates slowly, about 25 ms
    // a GiB), then the halves that go to other parts (their regions come back cast by cast), then
    // the rest of the own block, in one cast, which the device casts while the parts swap the
    // halves.
    std::vector<Cast> casts;
    // What goes to each other part, left uninitialised: the copies out of the readback buffers
    // touch its pages first, beside the casting, instead of a fill before the first cast.
    std::vector<std::unique_ptr<float[]>> sendStore(static_cast<std::size_t>(R));
    std::vector<std::span<const float>> sendTo(static_cast<std::size_t>(R));
    std::uint64_t pairs = std::uint64_t(R1 - R0) * (R1 > R0 ? R1 - R0 - 1 : 0) / 2;
    for (int r = 0; r < R; ++r) {
        if (r == me) continue;
        std::uint64_t offset = 0;
        const std::vector<Region> all = regions(share, me, r);
        for (std::size_t g0 = 0; g0 < all.size(); g0 += kGroup) {
            const std::size_t g1 = std::min<std::size_t>(all.size(), g0 + kGroup);
            const Region& g = all[g0]; // the regions of one receiver share their columns
            const std::uint32_t f0 = ch.rowBegin(all[g0].chunk), f1 = ch.rowEnd(all[g1 - 1].chunk);
            Cast c{};
            if (r > me) c = {g.col0, g.col1, f0, f1, {}}; // this part's rows, then r's chunks
            else c = {f0, f1, g.col0, g.col1, {}};        // r's chunks, then this part's rows
            c.foreign.assign(all.begin() + std::ptrdiff_t(g0), all.begin() + std::ptrdiff_t(g1));
            c.receiver = r;
            c.sendOffset = offset;
            for (const Region& x : c.foreign) offset += x.elements(ch);
            pairs += std::uint64_t(c.rowEnd - c.rowBegin) * (c.colEnd - c.colBegin);
            casts.push_back(std::move(c));
        }
        sendStore[std::size_t(r)].reset(new float[offset]);
        sendTo[std::size_t(r)] = {sendStore[std::size_t(r)].get(), offset};
    }
    if (R1 > R0) casts.push_back({R0, R1, R0, R1, {}});

    // kGroup scratch chunks, a table of chunk addresses (this part's chunks, and a scratch chunk at
    // the index of each foreign chunk of the cast), and per slot the readback of the regions a
    // cast reads from the scratch. The readback holds a cast's regions one after
    // the other, not whole chunks: it is pinned host memory, slow to allocate (0.3 s of two
    // H100s' setup for whole chunks), and a region is a fraction of its chunk.
    const std::uint64_t scratchBytes = ch.largestChunkBytes();
    const auto regionsBytes = [&](const Cast& c) {
        std::uint64_t bytes = 0;
        for (const Region& g : c.foreign) bytes += g.elements(ch) * 4;
        return bytes;
    };
    std::array<std::uint64_t, kSlots> readbackBytes{};
    for (std::size_t k = 0; k < casts.size(); ++k)
        readbackBytes[k % kSlots] = std::max(readbackBytes[k % kSlots], regionsBytes(casts[k]));
    // The casts run one after the other on the compute queue, each behind a barrier, so they
    // share the scratch chunks, the table and the lists; the host reads cast k's readback while
    // cast k + 1 runs, so each slot has its own (and its timestamps).
    struct Slot {
        vk::Buffer readback;
        std::unique_ptr<vk::Timestamps> stamps; // kLaunchStamps for each launch of its largest cast
    };
    std::array<Slot, kSlots> slots;
    shared::VisibilityPush push = visibilityPush(*vd.geometry, prepared, settings);
    std::vector<std::uint32_t> launches(casts.size());
    std::array<std::uint32_t, kSlots> mostLaunches{};
    for (std::size_t k = 0; k < casts.size(); ++k) {
        shared::VisibilityPush p = push;
        p.colBegin = casts[k].colBegin;
        p.colEnd = casts[k].colEnd;
        launches[k] = visibilityLaunchCount(dev, p, casts[k].rowBegin, casts[k].rowEnd);
        mostLaunches[k % kSlots] = std::max(mostLaunches[k % kSlots], launches[k]);
    }
    Stopwatch setup;
    const bool anyForeign = std::any_of(casts.begin(), casts.end(), [](const Cast& c) { return !c.foreign.empty(); });
    const vk::Buffer scratch(dev, anyForeign ? kGroup * scratchBytes : 4, vk::kStorageUsage, vk::MemoryKind::Device,
                             "K scratch chunks (fp32)");
    // This part's entries are written as its chunks arrive (ChunksForLaunches::need).
    const vk::Buffer table = vk::makeStorage(dev, std::vector<std::uint64_t>(ch.chunks(), 0), "K chunk addresses");
    const VisibilityLists lists(dev, ch.n, tileListMax(settings), blockerRounds(settings), "visibility lists");
    const double deviceBuffers = setup.seconds();
    for (std::uint32_t s = 0; s < kSlots; ++s) {
        const std::string tag = std::to_string(s);
        slots[s].readback = vk::Buffer(dev, std::max<std::uint64_t>(readbackBytes[s], 4),
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryKind::Readback,
                                       "K scratch readback, slot " + tag);
        slots[s].stamps = std::make_unique<vk::Timestamps>(dev, std::max(mostLaunches[s], 1u) * kLaunchStamps,
                                                           "visibility pass timestamps, slot " + tag);
    }
    const double readbacks = setup.seconds() - deviceBuffers;
    const VisibilityPipelines pipelines = makeVisibilityPipelines(dev, settings, *vd.accel);
    GpuCounters counters(dev, kVisibilityCounters, "visibility counters");
    spdlog::debug("{}: the casts' buffers in {:.3f} s (scratch, table and lists {:.3f} s, readbacks {:.3f} s), "
                  "pipelines and counters {:.3f} s",
                  who, setup.seconds(), deviceBuffers, readbacks, setup.seconds() - deviceBuffers - readbacks);
    push.stats = counters.address();
    push.rowsPerChunk = ch.rowsPerChunk;
    push.kStorage = shared::RSIM_K_FP32;
    push.mirror = shared::RSIM_K_MIRRORED;
    // The other parts' halves on their way to the device (`halves` from MPI ranks, `stage` from
    // the devices of one process); declared before the semaphores, so destroyed after they waited.
    vk::Buffer halves;
    std::array<vk::Buffer, 2> stage;
    vk::TimelineSemaphore done(dev, "rank casts");
    vk::TimelineSemaphore uploads(dev, "K halves from other parts");

    // Where region g of cast c lies in its slot's scratch buffer: columns [col0, col1) of the
    // g-th scratch chunk.
    const auto scratchAt = [&](const Cast& c, std::size_t g) {
        return g * scratchBytes + std::uint64_t(c.foreign[g].col0) * ch.rows(c.foreign[g].chunk) * 4;
    };
    auto submit = [&](std::size_t k) {
        const Cast& c = casts[k];
        const Slot& s = slots[k % kSlots];
        shared::VisibilityPush p = push;
        p.kChunks = table.address();
        p.colBegin = c.colBegin;
        p.colEnd = c.colEnd;
        done.submit(false, [&](VkCommandBuffer cmd) {
            vk::computeBarrier(dev, cmd); // after the last cast's copies out of the scratch and into the table
            if (!c.foreign.empty()) {
                dev.vk().vkCmdFillBuffer(cmd, scratch.handle(), 0, VK_WHOLE_SIZE, 0);
                for (std::size_t g = 0; g < c.foreign.size(); ++g) {
                    const std::uint64_t address = scratch.address() + g * scratchBytes;
                    dev.vk().vkCmdUpdateBuffer(cmd, table.handle(), std::uint64_t(c.foreign[g].chunk) * 8, 8, &address);
                }
                vk::computeBarrier(dev, cmd);
            }
            recordVisibilityRows(dev, pipelines, p, c.rowBegin, c.rowEnd, lists, cmd, s.stamps.get());
            vk::computeBarrier(dev, cmd);
            if (!c.foreign.empty()) {
                std::vector<VkBufferCopy> copies;
                std::uint64_t at = 0;
                for (std::size_t g = 0; g < c.foreign.size(); ++g) {
                    copies.push_back({scratchAt(c, g), at, c.foreign[g].elements(ch) * 4});
                    at += c.foreign[g].elements(ch) * 4;
                }
                dev.vk().vkCmdCopyBuffer(cmd, scratch.handle(), s.readback.handle(), std::uint32_t(copies.size()),
                                         copies.data());
                // No foreign chunk's entry left pointing into the scratch (no cast reads one it
                // did not set).
                const std::uint64_t none = 0;
                for (const Region& g : c.foreign)
                    dev.vk().vkCmdUpdateBuffer(cmd, table.handle(), std::uint64_t(g.chunk) * 8, 8, &none);
                vk::hostReadBarrier(dev, cmd);
            }
        });
    };

    // What the other ranks cast for this rank's chunks: where each rank's part begins.
    std::vector<std::vector<Region>> from(static_cast<std::size_t>(R));
    std::vector<std::uint64_t> fromAt(static_cast<std::size_t>(R) + 1, 0);
    for (int r = 0; r < R; ++r) {
        std::uint64_t elements = 0;
        if (r != me) from[std::size_t(r)] = regions(share, r, me);
        for (const Region& g : from[std::size_t(r)]) elements += g.elements(ch);
        fromAt[std::size_t(r) + 1] = fromAt[std::size_t(r)] + elements;
    }
    const std::uint64_t total = fromAt[std::size_t(R)];
    spdlog::debug("{}: rows {} to {}: its own block's last launches, {} casts of half blocks for {} other part(s), "
                  "then the rest of its own block",
                  who, R0, R1,
                  std::count_if(casts.begin(), casts.end(), [](const Cast& c) { return !c.foreign.empty(); }), R - 1);
    std::optional<Progress> ownProgress;
    if (!sharedProgress) ownProgress.emplace("visibility", pairs, "pairs");
    Progress& progress = sharedProgress ? *sharedProgress : *ownProgress;
    Stopwatch sw;
    std::size_t foreignCasts = 0;
    while (foreignCasts < casts.size() && !casts[foreignCasts].foreign.empty()) ++foreignCasts;
    // The own block's launches from its last rows, one submission each, while this part's fp32
    // chunks are allocated (each launch of rows [a, b) writes (i, j) and (j, i) for a <= i < j:
    // chunks from a's on); then every chunk is in the table, zeroed, for the halves.
    {
        ChunksForLaunches chunks(dev, out.K, share.firstChunk(), share.endChunk());
        if (foreignCasts < casts.size()) {
            Cast& own = casts.back();
            shared::VisibilityPush p = push;
            p.kChunks = table.address();
            p.colBegin = own.colBegin;
            p.colEnd = own.colEnd;
            const std::vector<std::uint32_t> rows = visibilityLaunchRows(dev, p, own.rowBegin, own.rowEnd);
            const LaunchPreparation prepare = [&](VkCommandBuffer cmd, const shared::VisibilityPush& l) {
                chunks.need(ch.chunkOf(l.rowBegin), cmd, table);
            };
            std::size_t early = 0;
            for (std::size_t k = rows.size(); k-- > 1 && (early == 0 || !chunks.allocated()); ++early) {
                castVisibilityRows(
                    dev, pipelines, p, rows[k - 1], rows[k],
                    [&](std::size_t) -> const VisibilityLists& { return lists; }, progress, &out.ownPasses, prepare);
                own.rowEnd = rows[k - 1];
            }
            spdlog::debug("{}: {} of its own block's {} launch(es) cast while its fp32 chunks were allocated", who,
                          early, rows.empty() ? 0 : rows.size() - 1);
            launches.back() = visibilityLaunchCount(dev, p, own.rowBegin, own.rowEnd);
            if (launches.back() == 0) {
                casts.pop_back();
                launches.pop_back();
            }
        }
        dev.submitAndWait([&](VkCommandBuffer cmd) { chunks.need(share.firstChunk(), cmd, table); });
        chunks.finish();
    }
    // The halves: cast k + 1 runs while the host copies cast k's region out.
    Stopwatch halvesTime;
    if (foreignCasts > 0) submit(0);
    for (std::size_t k = 0; k < foreignCasts; ++k) {
        if (k + 1 < foreignCasts) submit(k + 1);
        done.wait(k + 1);
        dev.reclaim();
        out.halvesPasses.add(slots[k % kSlots].stamps->intervals(launches[k] * kLaunchStamps), launches[k]);
        const Cast& c = casts[k];
        // The regions lie one after the other in the readback, as in what goes to the receiver.
        // On all cores: the first touch of each page of what is sent costs the kernel's fault, and
        // on one thread the copy took longer than the next cast (two H200s: industry's half blocks
        // 1.05-1.25 s with 0.62-0.71 s of device time).
        float* to = sendStore[std::size_t(c.receiver)].get() + c.sendOffset;
        const float* read = static_cast<const float*>(slots[k % kSlots].readback.mapped());
        parallelFor(regionsBytes(c) / 4, std::size_t(1) << 18, [&](std::size_t b, std::size_t e, unsigned) {
            std::memcpy(to + b, read + b, (e - b) * 4);
        });
        progress.add(std::uint64_t(c.rowEnd - c.rowBegin) * (c.colEnd - c.colBegin));
    }
    spdlog::debug("{}: half blocks cast and read back in {:.3f} s", who, halvesTime.seconds());
    // This rank's block on the device; meanwhile the swap, and what the other ranks cast for this
    // rank's chunks copied into place (other elements than the block's).
    for (std::size_t k = foreignCasts; k < casts.size(); ++k) submit(k);
    const auto checkSize = [&](int r, std::size_t count) {
        if (count != fromAt[std::size_t(r) + 1] - fromAt[std::size_t(r)])
            throw Error("internal: " + share.name(r) + " sent a block of K of another size");
    };
    Stopwatch swap;
    if (swapHalves) {
        // Devices of one process: each other part's halves go from its memory through a ring of
        // two pinned buffers to this device, on the transfer queue while the device casts its
        // own block (one pinned buffer for all of them took 0.4-0.5 s to allocate on two H100s).
        std::array<std::uint64_t, 2> stageFree{0, 0}; // the uploads' value after which a buffer is free
        for (vk::Buffer& b : stage)
            b = vk::Buffer(dev, kStageBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryKind::Upload,
                           "K halves from other parts, staging");
        std::size_t next = 0;
        swapHalves(sendTo, [&](int r, std::span<const float> piece) {
            checkSize(r, piece.size());
            std::size_t at = 0;
            for (const Region& g : from[std::size_t(r)]) {
                const vk::Buffer& dst = out.K.buffers[g.chunk - share.firstChunk()];
                const std::uint64_t first = std::uint64_t(g.col0) * ch.rows(g.chunk), count = g.elements(ch);
                for (std::uint64_t e = 0; e < count;) {
                    const std::uint64_t n = std::min<std::uint64_t>(count - e, kStageBytes / 4);
                    const std::size_t s = next++ % stage.size();
                    uploads.wait(stageFree[s]);
                    float* to = static_cast<float*>(stage[s].mapped());
                    const float* src = piece.data() + at + e;
                    parallelFor(n, std::size_t(1) << 20, [&](std::size_t b, std::size_t end, unsigned) {
                        std::memcpy(to + b, src + b, (end - b) * 4);
                    });
                    const VkBufferCopy region{0, (first + e) * 4, n * 4};
                    stageFree[s] = uploads.submit(true, [&](VkCommandBuffer cmd) {
                        dev.vk().vkCmdCopyBuffer(cmd, stage[s].handle(), dst.handle(), 1, &region);
                    });
                    e += n;
                }
                at += count;
            }
        });
        uploads.waitAll();
    } else {
        // MPI ranks: the other ranks' halves arrive in pinned memory the device copies from.
        // (Allocated on another thread during the half blocks' casts instead, it slowed them by
        // more than it took.)
        if (total > 0)
            halves = vk::Buffer(dev, total * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryKind::Upload,
                                "K halves from other ranks");
        share.ranks().alltoallInto(sendTo, [&](int r, std::size_t count) {
            checkSize(r, count);
            return static_cast<float*>(halves.mapped()) + fromAt[std::size_t(r)];
        });
    }
    out.exchangeSeconds = swap.seconds();
    spdlog::debug("{}: half blocks swapped in {:.3f} s", who, out.exchangeSeconds);
    sendTo.clear();
    sendStore.clear();
    if (total > 0 && !swapHalves)
        done.submit(false, [&](VkCommandBuffer cmd) {
            for (int r = 0; r < R; ++r) {
                std::uint64_t at = fromAt[std::size_t(r)];
                for (const Region& g : from[std::size_t(r)]) {
                    const VkBufferCopy region{at * 4, std::uint64_t(g.col0) * ch.rows(g.chunk) * 4, g.elements(ch) * 4};
                    dev.vk().vkCmdCopyBuffer(cmd, halves.handle(), out.K.buffers[g.chunk - share.firstChunk()].handle(),
                                             1, &region);
                    at += g.elements(ch);
                }
            }
        });
    spdlog::debug("{}: {:.1f} MiB of the other parts' halves on their way to the device", who,
                  double(total) * 4 / 1048576.0);
    done.waitAll();
    dev.reclaim();
    out.raySeconds = sw.seconds();
    for (std::size_t k = foreignCasts; k < casts.size(); ++k)
        out.ownPasses.add(slots[k % kSlots].stamps->intervals(launches[k] * kLaunchStamps), launches[k]);
    spdlog::debug("{}: own block cast, halves in place, {:.3f} s after its first launch", who, out.raySeconds);
    const auto passes = [](const VisibilityPassTimes& t) {
        return fmt::format("{:.3f} s (facing {:.3f}, tile queries {:.3f}, listed {:.3f}, traced {:.3f}, near {:.3f})",
                           t.total(), t.facing, t.tileQueries, t.listed, t.traced, t.near);
    };
    spdlog::debug("{}: device time in the passes: half blocks {}, own block {}", who, passes(out.halvesPasses),
                  passes(out.ownPasses));
    if (foreignCasts < casts.size()) { // the own block's last cast (its launches from its first rows)
        std::uint64_t ownPairs = 0;
        for (std::uint32_t i = casts.back().rowBegin; i < casts.back().rowEnd; ++i) ownPairs += R1 - 1 - i;
        progress.add(ownPairs);
    }
    if (ownProgress) ownProgress->finish();

    sw = Stopwatch();
    out.errors = compressDeviceK(dev, out.K, plan.chunking.format);
    out.compressSeconds = sw.seconds();
    out.stats = visibilityCounts(counters);
    Stopwatch rowSums;
    setEnergy(out.stats, formFactorDiagnosticsDevice(dev, *vd.geometry, out.K));
    spdlog::debug("{}: the encoded rows' sums in {:.3f} s", who, rowSums.seconds());
    return out;
}

} // namespace rsim
