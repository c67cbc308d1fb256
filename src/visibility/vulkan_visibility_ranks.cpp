// SPDX-License-Identifier: MIT
// The entry point of the assembly of one part's rows of K (vulkan_visibility_ranks.h; the work is
// RankAssembly's, vulkan_rank_assembly.h), the bytes it takes on the device, and the mail
// through which the devices of one process hand each other their halves.
#include "visibility/vulkan_visibility_ranks.h"

#include <atomic>
#include <utility>

#include "visibility/vulkan_rank_assembly.h"

namespace rsim {
namespace {

std::atomic<std::uint64_t> readPiecesCap{0};

} // namespace

void capHalfBlockReadPieces(std::uint64_t bytes) { readPiecesCap = bytes; }

std::uint64_t halfBlockReadPiecesCap() { return readPiecesCap; }

std::uint64_t rankAssemblyDeviceBytes(const RowShare& share) {
    const KChunking& ch = share.chunking();
    const std::uint64_t rows = share.rowEnd() - share.rowBegin();
    const std::uint64_t scratches = RankAssembly::kSlots * RankAssembly::kGroup * std::uint64_t(ch.rowsPerChunk) * ch.n;
    return (rows * ch.n + scratches) * 4; // its rows, the scratches (a bound)
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
    return RankAssembly(vd, prepared, settings, plan, share, devices, sharedProgress).run();
}

} // namespace rsim
