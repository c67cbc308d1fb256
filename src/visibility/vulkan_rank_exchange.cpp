// SPDX-License-Identifier: MIT
// RankAssembly's casts after the own block's first launches, with the swap of the halves
// (vulkan_rank_assembly.h): MPI ranks cast all their half blocks, then the rest of their own
// block while they swap the halves at once; the devices of one process cast the rest of their
// own block, then their halves, handing each cast's regions over as soon as they are read back
// and uploading what the others hand them between the casts.
#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "util/error.h"
#include "util/parallel.h"
#include "visibility/vulkan_rank_assembly.h"

namespace rsim {

// MPI ranks. The halves: cast k + 1 runs while the host reads cast k's regions out of its slot's
// scratch; then cast k + 2 may overwrite them. The rest of the own block, which writes no
// scratch, follows the last half block's cast on the device while the host reads that one, and
// while the ranks swap the halves.
void RankAssembly::castAndSwapWithRanks() {
    std::vector<Cast> casts = std::move(halves_);
    if (own_) casts.push_back(*own_);
    Stopwatch halvesTime;
    std::size_t submitted = 0;
    for (; submitted < std::min<std::size_t>(kSlots, casts.size()); ++submitted) submit(casts[submitted], submitted);
    std::size_t k = 0;
    for (; k < casts.size() && !casts[k].foreign.empty(); ++k) {
        done_->wait(k + 1);
        out_.halvesPasses.add(slots_[k % kSlots].stamps->intervals(launchesOf(casts[k]) * kLaunchStamps),
                              launchesOf(casts[k]));
        readBack(casts[k], k, sendStore_[std::size_t(casts[k].receiver)].get() + casts[k].sendOffset);
        if (submitted < casts.size()) {
            submit(casts[submitted], submitted);
            ++submitted;
        }
        progress_->add(castPairs(casts[k]));
    }
    spdlog::debug("{}: half blocks cast and read back in {:.3f} s", who_, halvesTime.seconds());
    for (; submitted < casts.size(); ++submitted) submit(casts[submitted], submitted);
    const Stopwatch exchange;
    // The other ranks' halves arrive in pinned memory the device copies from. (Allocated on
    // another thread during the half blocks' casts instead, it slowed them by more than it took.)
    if (total_ > 0)
        halvesIn_ = vk::Buffer(dev_, total_ * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryKind::Upload,
                               "K halves from other ranks");
    share_.ranks().alltoallInto(sendTo_, [&](int r, std::size_t count) {
        if (count != fromAt_[std::size_t(r) + 1] - fromAt_[std::size_t(r)])
            throw Error("internal: " + share_.name(r) + " sent a block of K of another size");
        return static_cast<float*>(halvesIn_.mapped()) + fromAt_[std::size_t(r)];
    });
    out_.exchangeSeconds = exchange.seconds();
    spdlog::debug("{}: half blocks swapped in {:.3f} s", who_, out_.exchangeSeconds);
    sendTo_.clear();
    sendStore_.clear();
    if (total_ > 0) copyRanksHalvesIntoPlace();
    spdlog::debug("{}: {:.1f} MiB of the other ranks' halves on their way to the device", who_,
                  double(total_) * 4 / 1048576.0);
    allocateEncoded();
    done_->waitAll();
    for (; k < casts.size(); ++k)
        out_.ownPasses.add(slots_[k % kSlots].stamps->intervals(launchesOf(casts[k]) * kLaunchStamps),
                           launchesOf(casts[k]));
    progress_->add(ownRestPairs_);
}

// The other ranks' halves, received, copied into place in this part's chunks (a submission
// behind the casts).
void RankAssembly::copyRanksHalvesIntoPlace() {
    done_->submit(false, [&](VkCommandBuffer cmd) {
        for (int r = 0; r < R_; ++r) {
            std::uint64_t at = fromAt_[std::size_t(r)];
            for (const Region& g : from_[std::size_t(r)]) {
                const VkBufferCopy region{at * 4, std::uint64_t(g.col0) * ch_.rows(g.chunk) * 4, g.elements(ch_) * 4};
                dev_.vk().vkCmdCopyBuffer(cmd, halvesIn_.handle(), out_.K.buffers[g.chunk - share_.firstChunk()].handle(),
                                          1, &region);
                at += g.elements(ch_);
            }
        }
    });
}

// The devices of one process: the rest of the own block first, then the halves, each cast's
// regions handed to their receiver as soon as they are read back; between the casts, the pieces
// the others handed this device go up through two pinned staging buffers on its transfer queue,
// into other elements of its chunks than its casts write.
void RankAssembly::castAndHandOverBetweenDevices() {
    if (own_) casts_.push_back(*own_);
    std::size_t submitted = 0;
    for (; submitted < kSlots && nextDeviceCast(submitted); ++submitted) submit(casts_[submitted], submitted);
    // K's encoded chunks now, while the device runs the rest of its own block, not while its last
    // casts run: the driver allocates for the whole process one buffer at a time and holds the
    // other device's submissions meanwhile, which there are frequent (docs/benchmarks.md, "NVIDIA
    // driver costs"; two devices on one GPU: 0.017-0.022 s of allocation as the devices met, its
    // version at c8397db, "Two devices claim their shared block from both ends").
    allocateEncoded();
    for (std::size_t k = 0; k < casts_.size(); ++k) {
        done_->wait(k + 1);
        const Cast c = casts_[k];
        const std::uint32_t l = launchesOf(c);
        (c.foreign.empty() ? out_.ownPasses : out_.halvesPasses)
            .add(slots_[k % kSlots].stamps->intervals(l * kLaunchStamps), l);
        if (c.foreign.empty()) {
            progress_->add(ownRestPairs_);
        } else {
            DeviceHalfMail::Piece piece{me_, c.foreign, nullptr};
            std::uint64_t elements = 0;
            for (const Region& g : c.foreign) elements += g.elements(ch_);
            piece.data.reset(new float[elements]);
            readBack(c, k, piece.data.get());
            devices_->mail.post(c.receiver, std::move(piece));
            progress_->add(castPairs(c));
        }
        if (nextDeviceCast(submitted)) {
            submit(casts_[submitted], submitted);
            ++submitted;
        }
        receive(false);
    }
    const double casting = sw_.seconds();
    devices_->mail.finish(me_);
    Stopwatch last;
    while (receive(true)) {
    }
    uploads_->waitAll();
    out_.exchangeSeconds = uploading_ + last.seconds();
    spdlog::debug("{}: the rest of its own block and {} half cast(s){} in {:.3f} s, {:.3f} s of it uploading the "
                  "others' halves; their last halves in place {:.3f} s later",
                  who_, casts_.size() - (own_ ? 1 : 0),
                  claims_ ? fmt::format(" ({} of the shared block's {} groups)", claimed_, claims_->groups()) : "",
                  casting, uploading_, last.seconds());
}

// Whether there is a cast to submit next: one already listed, or the next half cast (the next
// group this part claims; with three or more devices, the next of `halves_`).
bool RankAssembly::nextDeviceCast(std::size_t submitted) {
    if (submitted < casts_.size()) return true;
    if (exhausted_) return false;
    if (claims_) {
        const std::optional<std::uint32_t> g = claims_->claim(me_);
        if (g) casts_.push_back(groupCast(*g)), ++claimed_;
    } else if (listed_ < halves_.size()) {
        casts_.push_back(halves_[listed_++]);
    }
    exhausted_ = submitted == casts_.size();
    return !exhausted_;
}

// A piece goes up in fills of a staging buffer, each one submission of the copies of its parts of
// the piece's regions (part 0's pieces hold a narrow stripe of each of part 1's chunks: one
// submission per region took two devices on one GPU 0.2-0.46 s; docs/benchmarks.md at c8397db,
// "Two devices claim their shared block from both ends").
void RankAssembly::upload(const DeviceHalfMail::Piece& piece) {
    const Stopwatch t;
    if (!(*stage_)[0])
        for (vk::Buffer& b : *stage_)
            b = vk::Buffer(dev_, kStageBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryKind::Upload,
                           "K halves from other parts, staging", true);
    std::uint64_t elements = 0;
    for (const Region& g : piece.regions) {
        if (g.chunk < share_.firstChunk() || g.chunk >= share_.endChunk() || g.col1 > ch_.n || g.col0 > g.col1)
            throw Error("internal: " + share_.name(piece.from) + " sent a region outside this part's chunks");
        elements += g.elements(ch_);
    }
    std::size_t r = 0;          // the region the next fill begins in
    std::uint64_t inRegion = 0; // and its elements already uploaded
    std::vector<std::pair<VkBuffer, VkBufferCopy>> copies;
    const std::uint64_t cap = halfBlockReadPiecesCap();
    const std::uint64_t fill = std::min<std::uint64_t>(kStageBytes, cap ? cap : kStageBytes) / 4;
    for (std::uint64_t at = 0; at < elements;) {
        const std::uint64_t n = std::min<std::uint64_t>(elements - at, std::max<std::uint64_t>(fill, 1));
        const std::size_t s = nextStage_++ % stage_->size();
        uploads_->wait(stageFree_[s]);
        float* to = static_cast<float*>((*stage_)[s].mapped());
        const float* src = piece.data.get() + at;
        parallelFor(n, std::size_t(1) << 20, [&](std::size_t b, std::size_t end, unsigned) {
            std::memcpy(to + b, src + b, (end - b) * 4);
        });
        copies.clear();
        for (std::uint64_t filled = 0; filled < n;) {
            const Region& g = piece.regions[r];
            const std::uint64_t count = g.elements(ch_), take = std::min(count - inRegion, n - filled);
            if (take > 0)
                copies.push_back({out_.K.buffers[g.chunk - share_.firstChunk()].handle(),
                                  VkBufferCopy{filled * 4, (std::uint64_t(g.col0) * ch_.rows(g.chunk) + inRegion) * 4,
                                               take * 4}});
            filled += take;
            inRegion += take;
            if (inRegion == count) ++r, inRegion = 0;
        }
        stageFree_[s] = uploads_->submit(true, [&](VkCommandBuffer cmd) {
            for (const auto& [dst, region] : copies)
                dev_.vk().vkCmdCopyBuffer(cmd, (*stage_)[s].handle(), dst, 1, &region);
        });
        at += n;
    }
    uploading_ += t.seconds();
}

// The pieces handed to this device so far (with `wait`: at least one, or none once every part has
// finished), uploaded; whether there were any.
bool RankAssembly::receive(bool wait) {
    const std::vector<DeviceHalfMail::Piece> pieces = devices_->mail.take(me_, wait);
    for (const DeviceHalfMail::Piece& p : pieces) upload(p);
    return !pieces.empty();
}

} // namespace rsim
