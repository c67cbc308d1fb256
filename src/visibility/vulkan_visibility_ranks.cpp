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

using Region = HalfRegion;

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
    std::uint64_t sendOffset = 0; // MPI: where its first region goes in the message to `receiver`
};

// Casts whose results are on the device at once: the host reads cast k's regions out of its
// scratch while cast k + 1 writes the other slot's.
constexpr std::uint32_t kSlots = 2;
constexpr std::uint32_t kGroup = kHalfCastChunks;
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

void DeviceHalfMail::post(int to, Piece piece) {
    std::lock_guard lock(mutex_);
    boxes_[std::size_t(to)].push_back(std::move(piece));
    cv_.notify_all();
}

void DeviceHalfMail::finish(int) {
    std::lock_guard lock(mutex_);
    ++finished_;
    cv_.notify_all();
}

void DeviceHalfMail::fail() {
    std::lock_guard lock(mutex_);
    failed_ = true;
    cv_.notify_all();
}

std::vector<DeviceHalfMail::Piece> DeviceHalfMail::take(int to, bool wait) {
    std::unique_lock lock(mutex_);
    std::vector<Piece>& box = boxes_[std::size_t(to)];
    if (wait) cv_.wait(lock, [&] { return failed_ || !box.empty() || finished_ == boxes_.size(); });
    if (failed_) throw Abandoned();
    return std::exchange(box, {});
}

RankAssembledK computeKRankAssembled(const VisibilityDevice& vd, const PreparedScene& prepared,
                                    const KSettings& settings, const KPlan& plan, const RowShare& share,
                                    const DeviceHalves* devices, Progress* sharedProgress) {
    vk::Device& dev = *vd.device;
    const KChunking ch = plan.chunking.as(KFormat::Fp32);
    const int me = share.rank(), R = share.count();
    const std::uint32_t R0 = share.rowBegin(), R1 = share.rowEnd();
    RankAssembledK out;
    out.K.chunking = ch; // its chunks allocated beside the own block's first launches
    const std::string who = share.name(me);
    SharedBlockClaims* const claims = devices ? devices->claims : nullptr;
    if (claims && R != 2) throw Error("internal: a shared block claimed by other than two devices");

    // The casts of half blocks. MPI ranks and three or more devices: all of them now, for each
    // other part the groups of its chunks (their regions come back cast by cast). Two devices:
    // each group of part 0's chunks they claim (groupCast), part 0's rows against part 1's.
    // Then the rest of the own block: MPI ranks cast it after the halves, while they swap them;
    // devices before, and hand each half cast's regions over as soon as they are read back.
    std::vector<Cast> halves;
    // What goes to each other rank (MPI), left uninitialised: the copies out of the pieces read
    // back touch its pages first, beside the casting, instead of a fill before the first cast.
    std::vector<std::unique_ptr<float[]>> sendStore(static_cast<std::size_t>(R));
    std::vector<std::span<const float>> sendTo(static_cast<std::size_t>(R));
    std::uint64_t pairs = std::uint64_t(R1 - R0) * (R1 > R0 ? R1 - R0 - 1 : 0) / 2;
    for (int r = 0; r < R && !claims; ++r) {
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
            halves.push_back(std::move(c));
        }
        if (devices) continue; // each cast's regions go in a piece of their own
        sendStore[std::size_t(r)].reset(new float[offset]);
        sendTo[std::size_t(r)] = {sendStore[std::size_t(r)].get(), offset};
    }
    // Two devices: group g of part 0's chunks against every row of part 1; part 0 casts the
    // group's rows, so its other side lies in a stripe of each of part 1's chunks, and part 1 the
    // group's chunks' rows of part 1's columns.
    const auto groupCast = [&](std::uint32_t g) {
        const std::uint32_t c0 = claims->groupBegin(g), c1 = claims->groupEnd(g);
        Cast c{ch.rowBegin(c0), ch.rowEnd(c1 - 1), share.rowBegin(1), share.rowEnd(1), {}};
        c.receiver = 1 - me;
        if (me == 0)
            for (std::uint32_t x = share.firstChunk(1); x < share.endChunk(1); ++x) c.foreign.push_back({x, c.rowBegin, c.rowEnd});
        else
            for (std::uint32_t x = c0; x < c1; ++x) c.foreign.push_back({x, c.colBegin, c.colEnd});
        return c;
    };
    std::optional<Cast> own;
    if (R1 > R0) own = Cast{R0, R1, R0, R1, {}};

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
    // The casts run one after the other on the compute queue, each behind a barrier, so they
    // share the table and the lists; the host reads cast k's regions while cast k + 1 runs, so
    // each slot has its own scratch (and timestamps).
    struct Slot {
        std::shared_ptr<vk::Buffer> scratch;
        std::unique_ptr<vk::Timestamps> stamps; // kLaunchStamps for each launch of the largest cast
    };
    std::array<Slot, kSlots> slots;
    shared::VisibilityPush push = visibilityPush(*vd.geometry, prepared, settings);
    const auto launchesOf = [&](const Cast& c) {
        shared::VisibilityPush p = push;
        p.colBegin = c.colBegin;
        p.colEnd = c.colEnd;
        return visibilityLaunchCount(dev, p, c.rowBegin, c.rowEnd);
    };
    // The scratches and the timestamps are sized for every cast this part may make (the claims'
    // groups: each of them), since the casts alternate between the slots.
    std::uint64_t scratchBytes = 0;
    std::uint32_t mostLaunches = own ? launchesOf(*own) : 0;
    const auto sizeFor = [&](const Cast& c) {
        scratchBytes = std::max(scratchBytes, stripeAt(c, c.foreign.size()));
        mostLaunches = std::max(mostLaunches, launchesOf(c));
    };
    for (const Cast& c : halves) sizeFor(c);
    for (std::uint32_t g = 0; claims && g < claims->groups(); ++g) sizeFor(groupCast(g));
    Stopwatch setup;
    for (std::uint32_t s = 0; s < kSlots; ++s)
        slots[s].stamps = std::make_unique<vk::Timestamps>(dev, std::max(mostLaunches, 1u) * kLaunchStamps,
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
        slots[s].scratch = std::make_shared<vk::Buffer>(dev, std::max<std::uint64_t>(scratchBytes, 4),
                                                        vk::kStorageUsage, vk::MemoryKind::Device,
                                                        "K scratch stripes (fp32), slot " + std::to_string(s), true);
    };
    push.stats = counters.address();
    push.rowsPerChunk = ch.rowsPerChunk;
    push.kStorage = shared::RSIM_K_FP32;
    push.mirror = shared::RSIM_K_MIRRORED;
    // The other parts' halves on their way to the device (`halvesIn` from MPI ranks, `stage` from
    // the devices of one process); declared before the semaphores, so destroyed after they waited.
    vk::Buffer halvesIn;
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
    // Submits cast c as the k-th (its slot k % kSlots; the semaphore reaches k + 1 when it ends).
    const auto submit = [&](const Cast& c, std::size_t k) {
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
    // Cast k's regions out of its slot's scratch, one after the other, into `to`. On all cores:
    // the first touch of each page of what is sent costs the kernel's fault, and on one thread
    // the copy took longer than the next cast (two H200s: industry's half blocks 1.05-1.25 s with
    // 0.62-0.71 s of device time).
    const auto readBack = [&](const Cast& c, std::size_t k, float* into) {
        char* to = reinterpret_cast<char*>(into);
        const std::vector<vk::PieceReader::Region> at = regionsOf(c);
        reader->read(
            *slots[k % kSlots].scratch, at,
            [&](std::uint64_t where, const void* data, std::uint64_t bytes) {
                parallelFor(bytes, std::size_t(1) << 20, [&](std::size_t b, std::size_t e, unsigned) {
                    std::memcpy(to + where + b, static_cast<const char*>(data) + b, e - b);
                });
            },
            &done, k + 1); // and frees the device's finished command buffers
    };
    const auto castPairs = [](const Cast& c) { return std::uint64_t(c.rowEnd - c.rowBegin) * (c.colEnd - c.colBegin); };
    std::uint64_t ownRestPairs = 0; // the own block's pairs after its first launches

    // What the other parts cast for this part's chunks (MPI ranks, three or more devices): where
    // each part's regions begin in what it sends.
    std::vector<std::vector<Region>> from(static_cast<std::size_t>(R));
    std::vector<std::uint64_t> fromAt(static_cast<std::size_t>(R) + 1, 0);
    for (int r = 0; r < R && !claims; ++r) {
        std::uint64_t elements = 0;
        if (r != me) from[std::size_t(r)] = regions(share, r, me);
        for (const Region& g : from[std::size_t(r)]) elements += g.elements(ch);
        fromAt[std::size_t(r) + 1] = fromAt[std::size_t(r)] + elements;
    }
    const std::uint64_t total = fromAt[std::size_t(R)];
    spdlog::debug("{}: rows {} to {}: its own block's last launches, then {}", who, R0, R1,
                  claims    ? fmt::format("the rest of its own block, then the {} group(s) of the shared block it claims",
                                          claims->groups())
                  : devices ? fmt::format("the rest of its own block, then {} casts of half blocks", halves.size())
                            : fmt::format("{} casts of half blocks for {} other part(s), then the rest of its own block",
                                          halves.size(), R - 1));
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
        if (own) {
            shared::VisibilityPush p = push;
            p.kChunks = table.address();
            p.colBegin = own->colBegin;
            p.colEnd = own->colEnd;
            // The first launch (the last rows, the smallest) with lists of its own size, which
            // the driver allocates sooner.
            std::shared_ptr<VisibilityLists> firstLists;
            const VisibilityLaunchSize first = lastVisibilityLaunchSize(dev, p, own->rowBegin, own->rowEnd);
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
            own->rowEnd = castVisibilityRows(dev, pipelines, p, own->rowBegin, own->rowEnd, listsOf, progress,
                                             &out.ownPasses, prepare, between);
            if (launchesOf(*own) == 0) own.reset();
            for (std::uint32_t i = R0; own && i < own->rowEnd; ++i) ownRestPairs += R1 - 1 - i;
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
    // K's encoded chunks, allocated while the device casts (the host would only wait), not
    // after: 0.02-0.06 s of two H200s' encoding (docs/benchmarks.md).
    std::vector<vk::Buffer> encoded;
    const auto allocateEncoded = [&] {
        Stopwatch ahead;
        encoded = allocateEncodedK(dev, out.K, plan.chunking.format);
        if (!encoded.empty())
            spdlog::debug("{}: K's {} encoded chunk(s) allocated in {:.3f} s while it casts", who, encoded.size(),
                          ahead.seconds());
    };
    if (!devices) {
        // MPI ranks. The halves: cast k + 1 runs while the host reads cast k's regions out of its
        // slot's scratch; then cast k + 2 may overwrite them. The rest of the own block, which
        // writes no scratch, follows the last half block's cast on the device while the host reads
        // that one, and while the ranks swap the halves.
        std::vector<Cast> casts = std::move(halves);
        if (own) casts.push_back(*own);
        Stopwatch halvesTime;
        std::size_t submitted = 0;
        for (; submitted < std::min<std::size_t>(kSlots, casts.size()); ++submitted) submit(casts[submitted], submitted);
        std::size_t k = 0;
        for (; k < casts.size() && !casts[k].foreign.empty(); ++k) {
            done.wait(k + 1);
            out.halvesPasses.add(slots[k % kSlots].stamps->intervals(launchesOf(casts[k]) * kLaunchStamps),
                                 launchesOf(casts[k]));
            readBack(casts[k], k, sendStore[std::size_t(casts[k].receiver)].get() + casts[k].sendOffset);
            if (submitted < casts.size()) {
                submit(casts[submitted], submitted);
                ++submitted;
            }
            progress.add(castPairs(casts[k]));
        }
        spdlog::debug("{}: half blocks cast and read back in {:.3f} s", who, halvesTime.seconds());
        for (; submitted < casts.size(); ++submitted) submit(casts[submitted], submitted);
        const Stopwatch exchange;
        const auto checkSize = [&](int r, std::size_t count) {
            if (count != fromAt[std::size_t(r) + 1] - fromAt[std::size_t(r)])
                throw Error("internal: " + share.name(r) + " sent a block of K of another size");
        };
        // The other ranks' halves arrive in pinned memory the device copies from. (Allocated on
        // another thread during the half blocks' casts instead, it slowed them by more than it
        // took.)
        if (total > 0)
            halvesIn = vk::Buffer(dev, total * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryKind::Upload,
                                  "K halves from other ranks");
        share.ranks().alltoallInto(sendTo, [&](int r, std::size_t count) {
            checkSize(r, count);
            return static_cast<float*>(halvesIn.mapped()) + fromAt[std::size_t(r)];
        });
        out.exchangeSeconds = exchange.seconds();
        spdlog::debug("{}: half blocks swapped in {:.3f} s", who, out.exchangeSeconds);
        sendTo.clear();
        sendStore.clear();
        if (total > 0)
            done.submit(false, [&](VkCommandBuffer cmd) {
                for (int r = 0; r < R; ++r) {
                    std::uint64_t at = fromAt[std::size_t(r)];
                    for (const Region& g : from[std::size_t(r)]) {
                        const VkBufferCopy region{at * 4, std::uint64_t(g.col0) * ch.rows(g.chunk) * 4,
                                                  g.elements(ch) * 4};
                        dev.vk().vkCmdCopyBuffer(cmd, halvesIn.handle(),
                                                 out.K.buffers[g.chunk - share.firstChunk()].handle(), 1, &region);
                        at += g.elements(ch);
                    }
                }
            });
        spdlog::debug("{}: {:.1f} MiB of the other ranks' halves on their way to the device", who,
                      double(total) * 4 / 1048576.0);
        allocateEncoded();
        done.waitAll();
        for (; k < casts.size(); ++k)
            out.ownPasses.add(slots[k % kSlots].stamps->intervals(launchesOf(casts[k]) * kLaunchStamps),
                              launchesOf(casts[k]));
        progress.add(ownRestPairs);
    } else {
        // The devices of one process: the rest of the own block first, then the halves, each
        // cast's regions handed to their receiver as soon as they are read back; between the
        // casts, the pieces the others handed this device go up through two pinned staging
        // buffers on its transfer queue, into other elements of its chunks than its casts write.
        std::vector<Cast> casts;
        if (own) casts.push_back(*own);
        std::size_t listed = 0;
        std::uint32_t claimed = 0;
        bool exhausted = false;
        // Whether there is a cast to submit next: one already listed, or the next half cast
        // (the next group this part claims; with three or more devices, the next of `halves`).
        const auto next = [&](std::size_t submitted) {
            if (submitted < casts.size()) return true;
            if (exhausted) return false;
            if (claims) {
                const std::optional<std::uint32_t> g = claims->claim(me);
                if (g) casts.push_back(groupCast(*g)), ++claimed;
            } else if (listed < halves.size()) {
                casts.push_back(halves[listed++]);
            }
            exhausted = submitted == casts.size();
            return !exhausted;
        };
        std::array<std::uint64_t, 2> stageFree{0, 0}; // the uploads' value after which a buffer is free
        std::size_t nextStage = 0;
        double uploading = 0.0;
        // A piece goes up in fills of a staging buffer, each one submission of the copies of its
        // parts of the piece's regions (part 0's pieces hold a narrow stripe of each of part 1's
        // chunks: one submission per region took two H200 slots 0.2-0.46 s).
        const auto upload = [&](const DeviceHalfMail::Piece& piece) {
            const Stopwatch t;
            if (!(*stage)[0])
                for (vk::Buffer& b : *stage)
                    b = vk::Buffer(dev, kStageBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryKind::Upload,
                                   "K halves from other parts, staging", true);
            std::uint64_t elements = 0;
            for (const Region& g : piece.regions) {
                if (g.chunk < share.firstChunk() || g.chunk >= share.endChunk() || g.col1 > ch.n || g.col0 > g.col1)
                    throw Error("internal: " + share.name(piece.from) + " sent a region outside this part's chunks");
                elements += g.elements(ch);
            }
            std::size_t r = 0;         // the region the next fill begins in
            std::uint64_t inRegion = 0; // and its elements already uploaded
            std::vector<std::pair<VkBuffer, VkBufferCopy>> copies;
            const std::uint64_t fill = std::min<std::uint64_t>(kStageBytes, readPiecesCap ? readPiecesCap.load() : kStageBytes) / 4;
            for (std::uint64_t at = 0; at < elements;) {
                const std::uint64_t n = std::min<std::uint64_t>(elements - at, std::max<std::uint64_t>(fill, 1));
                const std::size_t s = nextStage++ % stage->size();
                uploads.wait(stageFree[s]);
                float* to = static_cast<float*>((*stage)[s].mapped());
                const float* src = piece.data.get() + at;
                parallelFor(n, std::size_t(1) << 20, [&](std::size_t b, std::size_t end, unsigned) {
                    std::memcpy(to + b, src + b, (end - b) * 4);
                });
                copies.clear();
                for (std::uint64_t filled = 0; filled < n;) {
                    const Region& g = piece.regions[r];
                    const std::uint64_t count = g.elements(ch), take = std::min(count - inRegion, n - filled);
                    if (take > 0)
                        copies.push_back({out.K.buffers[g.chunk - share.firstChunk()].handle(),
                                          VkBufferCopy{filled * 4, (std::uint64_t(g.col0) * ch.rows(g.chunk) + inRegion) * 4,
                                                       take * 4}});
                    filled += take;
                    inRegion += take;
                    if (inRegion == count) ++r, inRegion = 0;
                }
                stageFree[s] = uploads.submit(true, [&](VkCommandBuffer cmd) {
                    for (const auto& [dst, region] : copies)
                        dev.vk().vkCmdCopyBuffer(cmd, (*stage)[s].handle(), dst, 1, &region);
                });
                at += n;
            }
            uploading += t.seconds();
        };
        // The pieces handed to this device so far (with `wait`: at least one, or none once every
        // part has finished), uploaded; whether there were any.
        const auto receive = [&](bool wait) {
            const std::vector<DeviceHalfMail::Piece> pieces = devices->mail.take(me, wait);
            for (const DeviceHalfMail::Piece& p : pieces) upload(p);
            return !pieces.empty();
        };
        std::size_t submitted = 0;
        for (; submitted < kSlots && next(submitted); ++submitted) submit(casts[submitted], submitted);
        // K's encoded chunks now, while the device runs the rest of its own block, not while its
        // last casts run: the driver allocates for the whole process one buffer at a time and
        // holds the other device's submissions meanwhile, which there are frequent (two slots of
        // one H200: 0.017-0.022 s of allocation as the devices met, docs/benchmarks.md).
        allocateEncoded();
        for (std::size_t k = 0; k < casts.size(); ++k) {
            done.wait(k + 1);
            const Cast c = casts[k];
            const std::uint32_t l = launchesOf(c);
            (c.foreign.empty() ? out.ownPasses : out.halvesPasses)
                .add(slots[k % kSlots].stamps->intervals(l * kLaunchStamps), l);
            if (c.foreign.empty()) {
                progress.add(ownRestPairs);
            } else {
                DeviceHalfMail::Piece piece{me, c.foreign, nullptr};
                std::uint64_t elements = 0;
                for (const Region& g : c.foreign) elements += g.elements(ch);
                piece.data.reset(new float[elements]);
                readBack(c, k, piece.data.get());
                devices->mail.post(c.receiver, std::move(piece));
                progress.add(castPairs(c));
            }
            if (next(submitted)) {
                submit(casts[submitted], submitted);
                ++submitted;
            }
            receive(false);
        }
        const double casting = sw.seconds();
        devices->mail.finish(me);
        Stopwatch last;
        while (receive(true)) {
        }
        uploads.waitAll();
        out.exchangeSeconds = uploading + last.seconds();
        spdlog::debug("{}: the rest of its own block and {} half cast(s){} in {:.3f} s, {:.3f} s of it uploading the "
                      "others' halves; their last halves in place {:.3f} s later",
                      who, casts.size() - (own ? 1 : 0),
                      claims ? fmt::format(" ({} of the shared block's {} groups)", claimed, claims->groups()) : "",
                      casting, uploading, last.seconds());
    }
    dev.reclaim();
    out.raySeconds = sw.seconds();
    spdlog::debug("{}: own block cast, halves in place, {:.3f} s after its first launch", who, out.raySeconds);
    const auto passes = [](const VisibilityPassTimes& t) {
        return fmt::format("{:.3f} s (facing {:.3f}, tile queries {:.3f}, listed {:.3f}, traced {:.3f}, near {:.3f})",
                           t.total(), t.facing, t.tileQueries, t.listed, t.traced, t.near);
    };
    spdlog::debug("{}: device time in the passes: half blocks {}, own block {}", who, passes(out.halvesPasses),
                  passes(out.ownPasses));
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
    if (lists && dev.useCap() == 0 && lists->bytes() * 32 <= dev.deviceLocalBudget())
        dev.holdUntilRelease("visibility lists", lists);
    for (std::uint32_t s = 0; s < kSlots; ++s)
        if (slots[s].scratch && dev.useCap() == 0 && slots[s].scratch->size() * 32 <= dev.deviceLocalBudget())
            dev.holdUntilRelease("K scratch stripes, slot " + std::to_string(s), slots[s].scratch);
    return out;
}

} // namespace rsim
