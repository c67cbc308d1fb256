// SPDX-License-Identifier: MIT
// RankAssembly's plan of its casts, its device's setup, the casts' submissions and read-backs,
// the own block's first launches beside its allocations, and the encoding at the end
// (vulkan_rank_assembly.h). The swap of the halves is in vulkan_rank_exchange.cpp.
#include "visibility/vulkan_rank_assembly.h"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "k/k_diagnostics.h"
#include "k/vulkan_log_encode.h"
#include "util/error.h"
#include "util/parallel.h"
#include "vulkan/ray_pass.h"

namespace rsim {
namespace {

// The block `tracer` casts with `receiver` (RowShare::pairBlock), seen from the receiver's
// chunks: the lower rank's rows against the higher's, so the receiver's chunks are the block's
// columns when it is the higher rank, and its rows when it is the lower.
std::vector<HalfRegion> regions(const RowShare& share, int tracer, int receiver) {
    const RowShare::PairBlock b = share.pairBlock(tracer, receiver, true);
    const KChunking& ch = share.chunking();
    std::vector<HalfRegion> out;
    const bool receiverHigh = receiver > tracer;
    const std::uint32_t r0 = receiverHigh ? b.j0 : b.i0, r1 = receiverHigh ? b.j1 : b.i1;
    const std::uint32_t c0 = receiverHigh ? b.i0 : b.j0, c1 = receiverHigh ? b.i1 : b.j1;
    if (r0 >= r1 || c0 >= c1) return out;
    for (std::uint32_t c = ch.chunkOf(r0); c < ch.chunks() && ch.rowBegin(c) < r1; ++c) out.push_back({c, c0, c1});
    return out;
}

// The device time of a set of passes, for the log.
std::string passesLine(const VisibilityPassTimes& t) {
    return fmt::format("{:.3f} s (facing {:.3f}, tile queries {:.3f}, listed {:.3f}, traced {:.3f}, near {:.3f})",
                       t.total(), t.facing, t.tileQueries, t.listed, t.traced, t.near);
}

} // namespace

RankAssembly::RankAssembly(const VisibilityDevice& vd, const PreparedScene& prepared, const KSettings& settings,
                           const KPlan& plan, const RowShare& share, const DeviceHalves* devices,
                           Progress* sharedProgress)
    : vd_(vd), dev_(*vd.device), prepared_(prepared), settings_(settings), plan_(plan), share_(share),
      devices_(devices), sharedProgress_(sharedProgress), ch_(plan.chunking.as(KFormat::Fp32)), me_(share.rank()),
      R_(share.count()), R0_(share.rowBegin()), R1_(share.rowEnd()), who_(share.name(me_)),
      claims_(devices ? devices->claims : nullptr) {
    out_.K.chunking = ch_; // its chunks allocated beside the own block's first launches
    if (claims_ && R_ != 2) throw Error("internal: a shared block claimed by other than two devices");
}

RankAssembledK RankAssembly::run() {
    planHalfCasts();
    planSlots();
    setUpDevice();
    planReceipts();
    if (!sharedProgress_) ownProgress_.emplace("visibility", pairs_, "pairs");
    progress_ = sharedProgress_ ? sharedProgress_ : &*ownProgress_;
    sw_ = Stopwatch();
    castOwnBlockWhileAllocating();
    if (!devices_)
        castAndSwapWithRanks();
    else
        castAndHandOverBetweenDevices();
    return finish();
}

// MPI ranks and three or more devices: the groups of each other part's chunks, each a cast, and
// (MPI) the storage of what goes to each other rank.
void RankAssembly::planHalfCasts() {
    sendStore_.resize(static_cast<std::size_t>(R_));
    sendTo_.resize(static_cast<std::size_t>(R_));
    pairs_ = std::uint64_t(R1_ - R0_) * (R1_ > R0_ ? R1_ - R0_ - 1 : 0) / 2;
    for (int r = 0; r < R_ && !claims_; ++r) {
        if (r == me_) continue;
        std::uint64_t offset = 0;
        const std::vector<Region> all = regions(share_, me_, r);
        for (std::size_t g0 = 0; g0 < all.size(); g0 += kGroup) {
            const std::size_t g1 = std::min<std::size_t>(all.size(), g0 + kGroup);
            const Region& g = all[g0]; // the regions of one receiver share their columns
            const std::uint32_t f0 = ch_.rowBegin(all[g0].chunk), f1 = ch_.rowEnd(all[g1 - 1].chunk);
            Cast c{};
            if (r > me_) c = {g.col0, g.col1, f0, f1, {}}; // this part's rows, then r's chunks
            else c = {f0, f1, g.col0, g.col1, {}};         // r's chunks, then this part's rows
            c.foreign.assign(all.begin() + std::ptrdiff_t(g0), all.begin() + std::ptrdiff_t(g1));
            c.receiver = r;
            c.sendOffset = offset;
            for (const Region& x : c.foreign) offset += x.elements(ch_);
            pairs_ += std::uint64_t(c.rowEnd - c.rowBegin) * (c.colEnd - c.colBegin);
            halves_.push_back(std::move(c));
        }
        if (devices_) continue; // each cast's regions go in a piece of their own
        sendStore_[std::size_t(r)].reset(new float[offset]);
        sendTo_[std::size_t(r)] = {sendStore_[std::size_t(r)].get(), offset};
    }
}

// Two devices: group g of part 0's chunks against every row of part 1; part 0 casts the group's
// rows, so its other side lies in a stripe of each of part 1's chunks, and part 1 the group's
// chunks' rows of part 1's columns.
RankAssembly::Cast RankAssembly::groupCast(std::uint32_t g) const {
    const std::uint32_t c0 = claims_->groupBegin(g), c1 = claims_->groupEnd(g);
    Cast c{ch_.rowBegin(c0), ch_.rowEnd(c1 - 1), share_.rowBegin(1), share_.rowEnd(1), {}};
    c.receiver = 1 - me_;
    if (me_ == 0)
        for (std::uint32_t x = share_.firstChunk(1); x < share_.endChunk(1); ++x) c.foreign.push_back({x, c.rowBegin, c.rowEnd});
    else
        for (std::uint32_t x = c0; x < c1; ++x) c.foreign.push_back({x, c.colBegin, c.colEnd});
    return c;
}

// The own block's cast, and the size of the slots' scratches and timestamps: for every cast
// this part may make (the claims' groups: each of them), since the casts alternate between
// the slots.
void RankAssembly::planSlots() {
    if (R1_ > R0_) own_ = Cast{R0_, R1_, R0_, R1_, {}};
    push_ = visibilityPush(*vd_.geometry, prepared_, settings_);
    mostLaunches_ = own_ ? launchesOf(*own_) : 0;
    for (const Cast& c : halves_) sizeFor(c);
    for (std::uint32_t g = 0; claims_ && g < claims_->groups(); ++g) sizeFor(groupCast(g));
}

// Per slot a scratch buffer for the foreign chunks of a cast; a table of chunk addresses (this
// part's chunks, and one into the scratch at the index of each foreign chunk of the cast); the
// reader through which a cast's regions come to the host, on the transfer queue (the scratch is
// shared with its family) while the next cast runs.
// A cast writes only columns [col0, col1) of its foreign chunks: its scratch holds those stripes
// one after the other, each chunk's table entry set so that the stripe lands where the chunk's
// columns [col0, col1) would lie (the address of a chunk beginning before the stripe, whose
// other columns the cast never touches).
std::uint64_t RankAssembly::stripeAt(const Cast& c, std::size_t g) const {
    std::uint64_t at = 0;
    for (std::size_t x = 0; x < g; ++x) at += (c.foreign[x].elements(ch_) * 4 + 255) / 256 * 256;
    return at;
}

std::uint32_t RankAssembly::launchesOf(const Cast& c) const {
    shared::VisibilityPush p = push_;
    p.colBegin = c.colBegin;
    p.colEnd = c.colEnd;
    return visibilityLaunchCount(dev_, p, c.rowBegin, c.rowEnd);
}

void RankAssembly::sizeFor(const Cast& c) {
    scratchBytes_ = std::max(scratchBytes_, stripeAt(c, c.foreign.size()));
    mostLaunches_ = std::max(mostLaunches_, launchesOf(c));
}

// The slots' timestamps, the table, the reader, the pipelines, the counters and the
// semaphores; the lists and scratches come between the own block's first launches.
void RankAssembly::setUpDevice() {
    Stopwatch setup;
    for (std::uint32_t s = 0; s < kSlots; ++s)
        slots_[s].stamps = std::make_unique<vk::Timestamps>(dev_, std::max(mostLaunches_, 1u) * kLaunchStamps,
                                                            "visibility pass timestamps, slot " + std::to_string(s));
    table_ = vk::makeStorage(dev_, std::vector<std::uint64_t>(ch_.chunks(), 0), "K chunk addresses");
    const std::uint64_t cap = halfBlockReadPiecesCap();
    reader_ = std::make_shared<vk::PieceReader>(dev_, cap ? cap : kReadPieceBytes, true, "K halves read back");
    pipelines_ = makeVisibilityPipelines(dev_, settings_, *vd_.accel);
    counters_.emplace(dev_, kVisibilityCounters, "visibility counters");
    spdlog::debug("{}: table, timestamps, pipelines and counters in {:.3f} s", who_, setup.seconds());
    push_.stats = counters_->address();
    push_.rowsPerChunk = ch_.rowsPerChunk;
    push_.kStorage = shared::RSIM_K_FP32;
    push_.mirror = shared::RSIM_K_MIRRORED;
    stage_ = std::make_shared<std::array<vk::Buffer, 2>>();
    done_.emplace(dev_, "rank casts");
    uploads_.emplace(dev_, "K halves from other parts");
}

const std::shared_ptr<VisibilityLists>& RankAssembly::makeLists() {
    if (!lists_)
        lists_ = std::make_shared<VisibilityLists>(dev_, ch_.n, tileListMax(settings_), blockerRounds(settings_),
                                                   "visibility lists");
    return lists_;
}

void RankAssembly::makeScratch(std::uint32_t s) {
    slots_[s].scratch = std::make_shared<vk::Buffer>(dev_, std::max<std::uint64_t>(scratchBytes_, 4), vk::kStorageUsage,
                                                     vk::MemoryKind::Device,
                                                     "K scratch stripes (fp32), slot " + std::to_string(s), true);
}

// What the other parts cast for this part's chunks, and the plan in the log.
void RankAssembly::planReceipts() {
    from_.resize(static_cast<std::size_t>(R_));
    fromAt_.assign(static_cast<std::size_t>(R_) + 1, 0);
    for (int r = 0; r < R_ && !claims_; ++r) {
        std::uint64_t elements = 0;
        if (r != me_) from_[std::size_t(r)] = regions(share_, r, me_);
        for (const Region& g : from_[std::size_t(r)]) elements += g.elements(ch_);
        fromAt_[std::size_t(r) + 1] = fromAt_[std::size_t(r)] + elements;
    }
    total_ = fromAt_[std::size_t(R_)];
    spdlog::debug("{}: rows {} to {}: its own block's last launches, then {}", who_, R0_, R1_,
                  claims_    ? fmt::format("the rest of its own block, then the {} group(s) of the shared block it claims",
                                           claims_->groups())
                  : devices_ ? fmt::format("the rest of its own block, then {} casts of half blocks", halves_.size())
                             : fmt::format("{} casts of half blocks for {} other part(s), then the rest of its own block",
                                           halves_.size(), R_ - 1));
}

// Where the regions of cast c lie in its slot's scratch: the stripes.
std::vector<vk::PieceReader::Region> RankAssembly::regionsOf(const Cast& c) const {
    std::vector<vk::PieceReader::Region> at;
    for (std::size_t g = 0; g < c.foreign.size(); ++g) at.push_back({stripeAt(c, g), c.foreign[g].elements(ch_) * 4});
    return at;
}

// Submits cast c as the k-th (its slot k % kSlots; the semaphore reaches k + 1 when it ends).
void RankAssembly::submit(const Cast& c, std::size_t k) {
    const Slot& s = slots_[k % kSlots];
    shared::VisibilityPush p = push_;
    p.kChunks = table_.address();
    p.colBegin = c.colBegin;
    p.colEnd = c.colEnd;
    // Cast k + 2 overwrites the scratch of cast k: it is submitted once the host has read that
    // (PieceReader::read returned, its copies done).
    done_->submit(false, [&](VkCommandBuffer cmd) {
        vk::computeBarrier(dev_, cmd); // after the last cast's updates of the table
        if (!c.foreign.empty()) {
            dev_.vk().vkCmdFillBuffer(cmd, s.scratch->handle(), 0, VK_WHOLE_SIZE, 0);
            for (std::size_t g = 0; g < c.foreign.size(); ++g) {
                const std::uint64_t address = s.scratch->address() + stripeAt(c, g) -
                                              std::uint64_t(c.foreign[g].col0) * ch_.rows(c.foreign[g].chunk) * 4;
                dev_.vk().vkCmdUpdateBuffer(cmd, table_.handle(), std::uint64_t(c.foreign[g].chunk) * 8, 8, &address);
            }
            vk::computeBarrier(dev_, cmd);
        }
        recordVisibilityRows(dev_, pipelines_, p, c.rowBegin, c.rowEnd, *lists_, cmd, s.stamps.get());
        vk::computeBarrier(dev_, cmd);
        if (!c.foreign.empty()) {
            // No foreign chunk's entry left pointing into the scratch (no cast reads one it did
            // not set).
            const std::uint64_t none = 0;
            for (const Region& g : c.foreign)
                dev_.vk().vkCmdUpdateBuffer(cmd, table_.handle(), std::uint64_t(g.chunk) * 8, 8, &none);
        }
    });
}

// Cast k's regions out of its slot's scratch, one after the other, into `into`. On all cores:
// the first touch of each page of what is sent costs the kernel's fault, and on one thread the
// copy took longer than the next cast, so the device waited (two devices: industry's half
// blocks took 1.05-1.25 s of wall time for 0.62-0.71 s of device time; docs/benchmarks.md at
// c8397db, "Two GPUs: the devices' own time, and the gaps in the half blocks").
void RankAssembly::readBack(const Cast& c, std::size_t k, float* into) {
    char* to = reinterpret_cast<char*>(into);
    const std::vector<vk::PieceReader::Region> at = regionsOf(c);
    reader_->read(
        *slots_[k % kSlots].scratch, at,
        [&](std::uint64_t where, const void* data, std::uint64_t bytes) {
            parallelFor(bytes, std::size_t(1) << 20, [&](std::size_t b, std::size_t e, unsigned) {
                std::memcpy(to + where + b, static_cast<const char*>(data) + b, e - b);
            });
        },
        &*done_, k + 1); // and frees the device's finished command buffers
}

std::uint64_t RankAssembly::castPairs(const Cast& c) {
    return std::uint64_t(c.rowEnd - c.rowBegin) * (c.colEnd - c.colBegin);
}

// The own block's launches from its last rows, one submission each, while this part's fp32
// chunks, the lists and the scratches are allocated (each launch of rows [a, b) writes (i, j)
// and (j, i) for a <= i < j: chunks from a's on). The driver allocates one buffer at a time for
// the whole process, and a submission waits behind an allocation (the devices' threads
// allocating beside their launches slowed both: docs/benchmarks.md, "NVIDIA driver costs"), so
// each launch is submitted first and the host allocates one buffer after another while it runs,
// those the next launch needs first. Once all are allocated, every chunk is in the table,
// zeroed, for the halves.
void RankAssembly::castOwnBlockWhileAllocating() {
    ChunksForLaunches chunks(dev_, out_.K, share_.firstChunk(), share_.endChunk());
    std::size_t early = 0, ahead = 0;
    if (own_) {
        shared::VisibilityPush p = push_;
        p.kChunks = table_.address();
        p.colBegin = own_->colBegin;
        p.colEnd = own_->colEnd;
        // The first launch (the last rows, the smallest) with lists of its own size, which the
        // driver allocates sooner.
        std::shared_ptr<VisibilityLists> firstLists;
        const VisibilityLaunchSize first = lastVisibilityLaunchSize(dev_, p, own_->rowBegin, own_->rowEnd);
        if (first.cells > 0 && 2 * first.cells <= visibilityPairsPerLaunch(dev_, ch_.n))
            firstLists = VisibilityLists::forLaunch(dev_, first.pairs, first.cells, ch_.n, tileListMax(settings_),
                                                    blockerRounds(settings_), "visibility lists (first launch)");
        const LaunchLists listsOf = [&](std::size_t k) -> const VisibilityLists& {
            return k == 0 && firstLists ? *firstLists : *makeLists();
        };
        const LaunchPreparation prepare = [&](VkCommandBuffer cmd, const shared::VisibilityPush& l) {
            chunks.need(ch_.chunkOf(l.rowBegin), cmd, table_);
            ++early;
        };
        // While a launch runs, one allocation after another; the launches stop once all exist.
        const BetweenLaunches between = [&](const shared::VisibilityPush&, const std::function<bool()>& running) {
            while (running() && allocateAhead(chunks)) ++ahead;
            return !(lists_ && chunks.allocated() && slots_[kSlots - 1].scratch);
        };
        own_->rowEnd = castVisibilityRows(dev_, pipelines_, p, own_->rowBegin, own_->rowEnd, listsOf, *progress_,
                                          &out_.ownPasses, prepare, between);
        if (launchesOf(*own_) == 0) own_.reset();
        for (std::uint32_t i = R0_; own_ && i < own_->rowEnd; ++i) ownRestPairs_ += R1_ - 1 - i;
    }
    Stopwatch rest;
    std::size_t after = 0;
    while (allocateAhead(chunks)) ++after;
    dev_.submitAndWait([&](VkCommandBuffer cmd) { chunks.need(share_.firstChunk(), cmd, table_); });
    chunks.finish();
    spdlog::debug("{}: {} of its own block's launch(es) cast while its buffers were allocated ({} allocation(s) "
                  "while they ran), {} after them in {:.3f} s",
                  who_, early, ahead, after, rest.seconds());
}

// One allocation ahead, the next launch's first (the lists, then its chunks from the last);
// false once there is nothing left to allocate.
bool RankAssembly::allocateAhead(ChunksForLaunches& chunks) {
    if (!lists_) return makeLists(), true;
    if (chunks.allocateNext()) return true;
    for (std::uint32_t s = 0; s < kSlots; ++s)
        if (!slots_[s].scratch) return makeScratch(s), true;
    return false;
}

// K's encoded chunks, allocated while the device casts (the host would only wait), not after
// the casts, where their allocation lengthened two devices' encoding by 0.02-0.06 s
// (docs/benchmarks.md at c8397db, "Two GPUs: the halves read back in pieces, the encoded K
// allocated while the devices cast").
void RankAssembly::allocateEncoded() {
    Stopwatch ahead;
    encoded_ = allocateEncodedK(dev_, out_.K, plan_.chunking.format);
    if (!encoded_.empty())
        spdlog::debug("{}: K's {} encoded chunk(s) allocated in {:.3f} s while it casts", who_, encoded_.size(),
                      ahead.seconds());
}

// The halves in place: K encoded on the device, its row sums, and the buffers the device keeps.
RankAssembledK RankAssembly::finish() {
    dev_.reclaim();
    out_.raySeconds = sw_.seconds();
    spdlog::debug("{}: own block cast, halves in place, {:.3f} s after its first launch", who_, out_.raySeconds);
    spdlog::debug("{}: device time in the passes: half blocks {}, own block {}", who_, passesLine(out_.halvesPasses),
                  passesLine(out_.ownPasses));
    if (ownProgress_) ownProgress_->finish();

    sw_ = Stopwatch();
    out_.errors = compressDeviceK(dev_, out_.K, plan_.chunking.format, std::move(encoded_));
    out_.compressSeconds = sw_.seconds();
    out_.stats = visibilityCounts(*counters_);
    spdlog::debug("{}: {} candidate pairs, {} rays, {} of them tested against the tiles' lists", who_,
                  out_.stats.candidatePairs, out_.stats.raysCast, out_.stats.raysListed);
    Stopwatch rowSums;
    setEnergy(out_.stats, formFactorDiagnosticsDevice(dev_, *vd_.geometry, out_.K));
    spdlog::debug("{}: the encoded rows' sums in {:.3f} s", who_, rowSums.seconds());
    // One pinned buffer of the halves' pieces and one of their uploads serve as the device's
    // staging from here (the near lists and the transport upload and read back tens of MB:
    // allocating that pinned memory there took 0.03-0.04 s a device with two devices, industry:
    // docs/benchmarks.md at c8397db, "Two GPUs: far sums through host memory both devices
    // import, staging that is already pinned"). The other pinned buffers are kept until the
    // device's release, and the lists and the scratches where small beside its memory (a 32nd of
    // what is free each; no --max-device-mb), as one device keeps its lists: freed here, the
    // driver's frees held up the other device's row sums (two devices, the large room: 0.056 s
    // from the last cast to the phase's end, 0.019-0.026 s with them kept; there, "Two GPUs: the
    // halves read back in pieces, the encoded K allocated while the devices cast").
    dev_.adoptStaging(reader_->takeBuffer(0), false);
    dev_.adoptStaging(std::move((*stage_)[0]), true);
    dev_.holdUntilRelease("K halves read back", reader_);
    if (*stage_->rbegin()) dev_.holdUntilRelease("K halves from other parts, staging", stage_);
    if (lists_ && dev_.useCap() == 0 && lists_->bytes() * 32 <= dev_.deviceLocalBudget())
        dev_.holdUntilRelease("visibility lists", lists_);
    for (std::uint32_t s = 0; s < kSlots; ++s)
        if (slots_[s].scratch && dev_.useCap() == 0 && slots_[s].scratch->size() * 32 <= dev_.deviceLocalBudget())
            dev_.holdUntilRelease("K scratch stripes, slot " + std::to_string(s), slots_[s].scratch);
    return std::move(out_);
}

} // namespace rsim
