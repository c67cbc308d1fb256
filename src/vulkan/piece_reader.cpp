// SPDX-License-Identifier: MIT
#include "vulkan/piece_reader.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "util/error.h"

namespace rsim::vk {

PieceReader::PieceReader(Device& device, std::uint64_t pieceBytes, bool transferQueue, std::string name)
    : device_(device), step_(std::max<std::uint64_t>(4, pieceBytes)), transfer_(transferQueue),
      name_(std::move(name)), copied_(device, name_ + " copies") {}

void PieceReader::read(const Buffer& src, std::span<const Region> regions, const OnPiece& onPiece,
                       const TimelineSemaphore* after, std::uint64_t afterValue) {
    std::uint64_t total = 0;
    for (const Region& r : regions) {
        if (r.offset + r.bytes > src.size()) throw Error("internal: " + name_ + ": a region beyond its buffer");
        total += r.bytes;
    }
    if (total == 0) return;
    const std::uint64_t pieces = (total + step_ - 1) / step_;
    std::uint64_t signals[2] = {0, 0};
    // Piece p: the parts of the regions between p * step_ and the piece's end, in one submission.
    const auto copy = [&](std::uint64_t p) {
        Buffer& to = staging_[p % 2];
        if (!to) to = Buffer(device_, step_, 0, MemoryKind::Readback, name_, true);
        const std::uint64_t begin = p * step_, end = std::min(total, begin + step_);
        std::vector<VkBufferCopy> copies;
        std::uint64_t at = 0; // where the region begins in the sequence
        for (const Region& r : regions) {
            const std::uint64_t b = std::max(begin, at), e = std::min(end, at + r.bytes);
            if (b < e) copies.push_back({r.offset + (b - at), b - begin, e - b});
            at += r.bytes;
            if (at >= end) break;
        }
        signals[p % 2] = copied_.submit(
            transfer_,
            [&](VkCommandBuffer cmd) {
                device_.vk().vkCmdCopyBuffer(cmd, src.handle(), to.handle(), std::uint32_t(copies.size()),
                                             copies.data());
                hostReadBarrier(device_, cmd);
            },
            after, afterValue);
    };
    copy(0);
    if (pieces > 1) copy(1);
    for (std::uint64_t p = 0; p < pieces; ++p) {
        copied_.wait(signals[p % 2]);
        const std::uint64_t begin = p * step_;
        onPiece(begin, staging_[p % 2].mapped(), std::min(step_, total - begin));
        if (p + 2 < pieces) copy(p + 2);
    }
    device_.reclaim();
}

void downloadPieces(Device& device, const Buffer& src, std::uint64_t bytes, const PieceReader::OnPiece& onPiece,
                    std::uint64_t pieceBytes) {
    if (bytes == 0) return;
    PieceReader reader(device, std::min(bytes, std::max<std::uint64_t>(pieceBytes, 4)), false, "download piece");
    const PieceReader::Region all{0, bytes};
    reader.read(src, {&all, 1}, onPiece);
}

} // namespace rsim::vk
