// SPDX-License-Identifier: MIT
#include "visibility/vulkan_visibility_ranks.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <optional>

#include <spdlog/spdlog.h>

#include "k/k_diagnostics.h"
#include "k/vulkan_log_encode.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"
#include "visibility/vulkan_visibility.h"
#include "vulkan/piece_reader.h"
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

// Casts whose results are on the device at once: the host reads cast k's regions out of its
// scratch while cast k + 1 writes the other slot's.
constexpr std::uint32_t kSlots = 2;
// Foreign chunks per cast: a cast of one chunk's rows against half a part's rows (or the
// reverse) has a few million pairs, and every cast pays its launch's phases and their tails; four
// make launches of about the most pairs a launch covers in the large scenes that several devices
// share (2^24, visibilityPairsPerLaunch).
constexpr std::uint32_t kGroup = 4;
// The pieces in which a cast's regions come to the host (vk::PieceReader): two pinned buffers
// of this size a device, instead of two as large as a cast's regions (0.04-0.11 s of the two
// H200s' setup before the first cast, the driver pinning one allocation at a time).
constexpr std::uint64_t kReadPieceBytes = std::uint64_t(32) << 20;
std::atomic<std::uint64_t> readPiecesCap{0};
// Each of the two staging buffers through which the devices of one process upload each other's
// halves (kHalfSwapStagingBytes in all).
constexpr std::uint64_t kStageBytes = kHalfSwapStagingBytes / 2;

} // namespace

void capHalfBlockReadPieces(std::uint64_t bytes) { readPiecesCap = bytes; }

std::uint64_t rankAssemblyDeviceBytes(const RowShare& share) {
    const KChunking& ch = share.chunking();
    const std::uint64_t rows = share.rowEnd() - share.rowBegin();
    return (rows * ch.n + kSlots * kGroup * std::uint64_t(ch.rowsPerChunk) * ch.n) * 4; // its rows, the scratches (a bound)
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
    // What goes to each other part, left uninitialised: the copies out of the pieces read back
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

    // Per slot a scratch buffer for the foreign chunks of a cast; a table of chunk addresses
    // (this part's chunks, and one into the scratch at the index of each foreign chunk of the
    // cast); the reader through which a cast's regions come to the host, on the transfer queue
    // (the scratch is shared with its family) while the next cast runs.
    // A cast writes only columns [col0, col1) of its foreign chunks: its scratch holds those
    // stripes one after the other, each chunk's table entry set so that the stripe lands where
    // the chunk's columns [col0, col1) would lie (the address of a chunk beginning before the
    // stripe, whose other columns the cast never touches).
    const auto stripeAt = [&](const Cast& c, std::size_t g) {
        std::uint64_t at = 0;
        for (std::size_t x = 0; x < g; ++x) at += (c.foreign[x].elements(ch) * 4 + 255) / 256 * 256;
        return at;
    };
    std::array<std::uint64_t, kSlots> scratchBytes{};
    for (std::size_t k = 0; k < casts.size(); ++k)
        if (!casts[k].foreign.empty())
            scratchBytes[k % kSlots] = std::max(scratchBytes[k % kSlots], stripeAt(casts[k], casts[k].foreign.size()));
    // The casts run one after the other on the compute queue, each behind a barrier, so they
    // share the table and the lists; the host reads cast k's regions while cast k + 1 runs, so
    // each slot has its own scratch (and timestamps).
    struct Slot {
        std::shared_ptr<vk::Buffer> scratch;
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
    const std::size_t foreignCasts =
        std::size_t(std::count_if(casts.begin(), casts.end(), [](const Cast& c) { return !c.foreign.empty(); }));
    for (std::uint32_t s = 0; s < kSlots; ++s)
        slots[s].stamps = std::make_unique<vk::Timestamps>(dev, std::max(mostLaunches[s], 1u) * kLaunchStamps,
                                                           "visibility pass timestamps, slot " + std::to_string(s));
    // This part's entries are written as its chunks arrive (ChunksForLaunches::need).
    const vk::Buffer table = vk::makeStorage(dev, std::vector<std::uint64_t>(ch.chunks(), 0), "K chunk addresses");
    const auto reader = std::make_shared<vk::PieceReader>(dev, readPiecesCap ? readPiecesCap.load() : kReadPieceBytes,
                                                          true, "K halves read back");
    const VisibilityPipelines pipelines = makeVisibilityPipelines(dev, settings, *vd.accel);
    GpuCounters counters(dev, kVisibilityCounters, "visibility counters");
    spdlog::debug("{}: table, timestamps, pipelines and counters in {:.3f} s", who, setup.seconds());
    // The casts' lists and scratches, and this part's fp32 chunks, are allocated between the own
    // block's first launches (below).
    std::shared_ptr<VisibilityLists> lists;
    const auto makeLists = [&] {
        if (!lists)
            lists = std::make_shared<VisibilityLists>(dev, ch.n, tileListMax(settings), blockerRounds(settings),
                                                      "visibility lists");
        return lists;
    };
    const auto makeScratch = [&](std::uint32_t s) {
        slots[s].scratch = std::make_shared<vk::Buffer>(dev, std::max<std::uint64_t>(scratchBytes[s], 4),
                                                        vk::kStorageUsage, vk::MemoryKind::Device,
                                                        "K scratch stripes (fp32), slot " + std::to_string(s), true);
    };
    push.stats = counters.address();
    push.rowsPerChunk = ch.rowsPerChunk;
    push.kStorage = shared::RSIM_K_FP32;
    push.mirror = shared::RSIM_K_MIRRORED;
    // The other parts' halves on their way to the device (`halves` from MPI ranks, `stage` from
    // the devices of one process); declared before the semaphores, so destroyed after they waited.
    vk::Buffer halves;
    const auto stage = std::make_shared<std::array<vk::Buffer, 2>>();
    vk::TimelineSemaphore done(dev, "rank casts");
    vk::TimelineSemaphore uploads(dev, "K halves from other parts");

    // Where the regions of cast c lie in its slot's scratch: the stripes.
    const auto regionsOf = [&](const Cast& c) {
        std::vector<vk::PieceReader::Region> at;
        for (std::size_t g = 0; g < c.foreign.size(); ++g)
            at.push_back({stripeAt(c, g), c.foreign[g].elements(ch) * 4});
        return at;
    };
    auto submit = [&](std::size_t k) {
        const Cast& c = casts[k];
        const Slot& s = slots[k % kSlots];
        shared::VisibilityPush p = push;
        p.kChunks = table.address();
        p.colBegin = c.colBegin;
        p.colEnd = c.colEnd;
        // Cast k + 2 overwrites the scratch of cast k: it is submitted once the host has read
        // that (PieceReader::read returned, its copies done).
        done.submit(false, [&](VkCommandBuffer cmd) {
            vk::computeBarrier(dev, cmd); // after the last cast's updates of the table
            if (!c.foreign.empty()) {
                dev.vk().vkCmdFillBuffer(cmd, s.scratch->handle(), 0, VK_WHOLE_SIZE, 0);
                for (std::size_t g = 0; g < c.foreign.size(); ++g) {
                    const std::uint64_t address = s.scratch->address() + stripeAt(c, g) -
                                                  std::uint64_t(c.foreign[g].col0) * ch.rows(c.foreign[g].chunk) * 4;
                    dev.vk().vkCmdUpdateBuffer(cmd, table.handle(), std::uint64_t(c.foreign[g].chunk) * 8, 8, &address);
                }
                vk::computeBarrier(dev, cmd);
            }
            recordVisibilityRows(dev, pipelines, p, c.rowBegin, c.rowEnd, *lists, cmd, s.stamps.get());
            vk::computeBarrier(dev, cmd);
            if (!c.foreign.empty()) {
                // No foreign chunk's entry left pointing into the scratch (no cast reads one it
                // did not set).
                const std::uint64_t none = 0;
                for (const Region& g : c.foreign)
                    dev.vk().vkCmdUpdateBuffer(cmd, table.handle(), std::uint64_t(g.chunk) * 8, 8, &none);
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
                  who, R0, R1, foreignCasts, R - 1);
    std::optional<Progress> ownProgress;
    if (!sharedProgress) ownProgress.emplace("visibility", pairs, "pairs");
    Progress& progress = sharedProgress ? *sharedProgress : *ownProgress;
    Stopwatch sw;
    // The own block's launches from its last rows, one submission each, while this part's fp32
    // chunks, the lists and the scratches are allocated (each launch of rows [a, b) writes (i, j)
    // and (j, i) for a <= i < j: chunks from a's on). The driver allocates one buffer at a time for
    // the whole process, and a submission waits behind an allocation (the devices' threads
    // allocating beside their launches slowed both: docs/benchmarks.md), so each launch is
    // submitted first and the host allocates one buffer after another while it runs, those the
    // next launch needs first. Once all are allocated, every chunk is in the table, zeroed, for
    // the halves.
    {
        ChunksForLaunches chunks(dev, out.K, share.firstChunk(), share.endChunk());
        // One allocation ahead, the next launch's first (the lists, then its chunks from the
        // last); false once there is nothing left to allocate.
        const auto allocateAhead = [&] {
            if (!lists) return makeLists(), true;
            if (chunks.allocateNext()) return true;
            for (std::uint32_t s = 0; s < kSlots; ++s)
                if (!slots[s].scratch) return makeScratch(s), true;
            return false;
        };
        std::size_t early = 0, ahead = 0;
        if (foreignCasts < casts.size()) {
            Cast& own = casts.back();
            shared::VisibilityPush p = push;
            p.kChunks = table.address();
            p.colBegin = own.colBegin;
            p.colEnd = own.colEnd;
            // The first launch (the last rows, the smallest) with lists of its own size, which
            // the driver allocates sooner.
            std::shared_ptr<VisibilityLists> firstLists;
            const VisibilityLaunchSize first = lastVisibilityLaunchSize(dev, p, own.rowBegin, own.rowEnd);
            if (first.cells > 0 && 2 * first.cells <= visibilityPairsPerLaunch(dev, ch.n))
                firstLists = VisibilityLists::forLaunch(dev, first.pairs, first.cells, ch.n, tileListMax(settings),
                                                        blockerRounds(settings), "visibility lists (first launch)");
            const LaunchLists listsOf = [&](std::size_t k) -> const VisibilityLists& {
                return k == 0 && firstLists ? *firstLists : *makeLists();
            };
            const LaunchPreparation prepare = [&](VkCommandBuffer cmd, const shared::VisibilityPush& l) {
                chunks.need(ch.chunkOf(l.rowBegin), cmd, table);
                ++early;
            };
            // While a launch runs, one allocation after another; the launches stop once all exist.
            const BetweenLaunches between = [&](const shared::VisibilityPush&, const std::function<bool()>& running) {
                while (running() && allocateAhead()) ++ahead;
                return !(lists && chunks.allocated() && slots[kSlots - 1].scratch);
            };
            own.rowEnd = castVisibilityRows(dev, pipelines, p, own.rowBegin, own.rowEnd, listsOf, progress,
                                            &out.ownPasses, prepare, between);
            launches.back() = visibilityLaunchCount(dev, p, own.rowBegin, own.rowEnd);
            if (launches.back() == 0) {
                casts.pop_back();
                launches.pop_back();
            }
        }
        Stopwatch rest;
        std::size_t after = 0;
        while (allocateAhead()) ++after;
        dev.submitAndWait([&](VkCommandBuffer cmd) { chunks.need(share.firstChunk(), cmd, table); });
        chunks.finish();
        spdlog::debug("{}: {} of its own block's launch(es) cast while its buffers were allocated ({} allocation(s) "
                      "while they ran), {} after them in {:.3f} s",
                      who, early, ahead, after, rest.seconds());
    }
    // The halves: cast k + 1 runs while the host reads cast k's regions out of its slot's
    // scratch; then cast k + 2 may overwrite them. The rest of the own block, which writes no
    // scratch, follows the last half block's cast on the device while the host reads that one.
    Stopwatch halvesTime;
    std::size_t submitted = 0;
    while (submitted < std::min<std::size_t>(kSlots, casts.size())) submit(submitted++);
    for (std::size_t k = 0; k < foreignCasts; ++k) {
        done.wait(k + 1);
        out.halvesPasses.add(slots[k % kSlots].stamps->intervals(launches[k] * kLaunchStamps), launches[k]);
        const Cast& c = casts[k];
        // The regions come one after the other, as in what goes to the receiver. On all cores:
        // the first touch of each page of what is sent costs the kernel's fault, and on one
        // thread the copy took longer than the next cast (two H200s: industry's half blocks
        // 1.05-1.25 s with 0.62-0.71 s of device time).
        char* to = reinterpret_cast<char*>(sendStore[std::size_t(c.receiver)].get() + c.sendOffset);
        const std::vector<vk::PieceReader::Region> regions = regionsOf(c);
        reader->read(
            *slots[k % kSlots].scratch, regions,
            [&](std::uint64_t where, const void* data, std::uint64_t bytes) {
                parallelFor(bytes, std::size_t(1) << 20, [&](std::size_t b, std::size_t e, unsigned) {
                    std::memcpy(to + where + b, static_cast<const char*>(data) + b, e - b);
                });
            },
            &done, k + 1); // and frees the device's finished command buffers
        if (submitted < casts.size()) submit(submitted++);
        progress.add(std::uint64_t(c.rowEnd - c.rowBegin) * (c.colEnd - c.colBegin));
    }
    spdlog::debug("{}: half blocks cast and read back in {:.3f} s", who, halvesTime.seconds());
    // This rank's block on the device; meanwhile the swap, and what the other ranks cast for this
    // rank's chunks copied into place (other elements than the block's).
    while (submitted < casts.size()) submit(submitted++);
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
        for (vk::Buffer& b : *stage)
            b = vk::Buffer(dev, kStageBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryKind::Upload,
                           "K halves from other parts, staging", true);
        std::size_t next = 0;
        swapHalves(sendTo, [&](int r, std::span<const float> piece) {
            checkSize(r, piece.size());
            std::size_t at = 0;
            for (const Region& g : from[std::size_t(r)]) {
                const vk::Buffer& dst = out.K.buffers[g.chunk - share.firstChunk()];
                const std::uint64_t first = std::uint64_t(g.col0) * ch.rows(g.chunk), count = g.elements(ch);
                for (std::uint64_t e = 0; e < count;) {
                    const std::uint64_t n = std::min<std::uint64_t>(count - e, kStageBytes / 4);
                    const std::size_t s = next++ % stage->size();
                    uploads.wait(stageFree[s]);
                    float* to = static_cast<float*>((*stage)[s].mapped());
                    const float* src = piece.data() + at + e;
                    parallelFor(n, std::size_t(1) << 20, [&](std::size_t b, std::size_t end, unsigned) {
                        std::memcpy(to + b, src + b, (end - b) * 4);
                    });
                    const VkBufferCopy region{0, (first + e) * 4, n * 4};
                    stageFree[s] = uploads.submit(true, [&](VkCommandBuffer cmd) {
                        dev.vk().vkCmdCopyBuffer(cmd, (*stage)[s].handle(), dst.handle(), 1, &region);
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
    // K's encoded chunks allocated while the device casts (the host would only wait), not
    // after: 0.02-0.06 s of two H200s' encoding (docs/benchmarks.md).
    Stopwatch ahead;
    std::vector<vk::Buffer> encoded = allocateEncodedK(dev, out.K, plan.chunking.format);
    if (!encoded.empty())
        spdlog::debug("{}: K's {} encoded chunk(s) allocated in {:.3f} s while it casts", who, encoded.size(),
                      ahead.seconds());
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
    out.errors = compressDeviceK(dev, out.K, plan.chunking.format, std::move(encoded));
    out.compressSeconds = sw.seconds();
    out.stats = visibilityCounts(counters);
    spdlog::debug("{}: {} candidate pairs, {} rays, {} of them tested against the tiles' lists", who,
                  out.stats.candidatePairs, out.stats.raysCast, out.stats.raysListed);
    Stopwatch rowSums;
    setEnergy(out.stats, formFactorDiagnosticsDevice(dev, *vd.geometry, out.K));
    spdlog::debug("{}: the encoded rows' sums in {:.3f} s", who, rowSums.seconds());
    // One pinned buffer of the halves' pieces and one of their uploads serve as the device's
    // staging from here (the near lists and the transport upload and read back tens of MB:
    // allocating that pinned memory there took 0.03-0.04 s a device on two H200s, industry).
    // The other pinned buffers are kept until the device's release, and the lists and the
    // scratches where small beside its memory (a 32nd of what is free each; no --max-device-mb),
    // as one device keeps its lists: freed here, the driver's frees held up the other device's
    // row sums (two H200s, the large room: 0.056 s from the last cast to the phase's end,
    // 0.019-0.026 s with them kept). docs/benchmarks.md has both.
    dev.adoptStaging(reader->takeBuffer(0), false);
    dev.adoptStaging(std::move((*stage)[0]), true);
    dev.holdUntilRelease("K halves read back", reader);
    if (*stage->rbegin()) dev.holdUntilRelease("K halves from other parts, staging", stage);
    if (dev.useCap() == 0 && lists->bytes() * 32 <= dev.deviceLocalBudget())
        dev.holdUntilRelease("visibility lists", lists);
    for (std::uint32_t s = 0; s < kSlots; ++s)
        if (dev.useCap() == 0 && slots[s].scratch->size() * 32 <= dev.deviceLocalBudget())
            dev.holdUntilRelease("K scratch stripes, slot " + std::to_string(s), slots[s].scratch);
    return out;
}

} // namespace rsim
