// SPDX-License-Identifier: MIT
#include "vulkan/bulk_upload.h"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "util/parallel.h"
#include "util/timer.h"

namespace rsim::vk {
namespace {
// Four pieces of 8 MiB at least: a piece's copy (about 0.3 ms over PCIe 5) overlaps the filling
// of the next. A larger staging buffer already held gives larger pieces; a new one is small,
// since pinning host memory is slow: with a new 128 MiB one, the medium room's K (131 MB) took
// about 20 ms longer to place than by the blocking uploads (c115, H100).
constexpr std::uint64_t kPieceBytes = 8ull << 20;
constexpr std::uint64_t kLargestPiece = 32ull << 20;
constexpr std::uint32_t kPieces = 4;
// The filling's share of one worker.
constexpr std::uint64_t kFillGrain = 256ull << 10;
} // namespace

BulkUpload::BulkUpload(Device& device)
    : device_(device), staging_(device.stagingUpload(kPieceBytes * kPieces)),
      pieceBytes_(std::min(kLargestPiece, staging_.size() / kPieces) & ~std::uint64_t(255)),
      copied_(device, "bulk upload") {}

BulkUpload::~BulkUpload() {
    try {
        finish();
    } catch (...) { // a lost device: the semaphore's destructor waits no further
    }
}

void BulkUpload::add(const Buffer& dst, const void* data, std::uint64_t bytes, std::uint64_t dstOffset) {
    for (std::uint64_t done = 0; done < bytes; done += pieceBytes_) {
        const std::uint64_t n = std::min(pieceBytes_, bytes - done);
        const std::uint32_t piece = next_;
        next_ = (next_ + 1) % kPieces;
        const Stopwatch waited;
        copied_.wait(pieceDone_[piece]); // the piece's previous copy has been read by the device
        waitSeconds_ += waited.seconds();
        const Stopwatch filled;
        char* to = static_cast<char*>(staging_.mapped()) + std::uint64_t(piece) * pieceBytes_;
        const char* from = static_cast<const char*>(data) + done;
        parallelFor(std::size_t((n + kFillGrain - 1) / kFillGrain), 1, [&](std::size_t b, std::size_t e, unsigned) {
            const std::uint64_t begin = b * kFillGrain, end = std::min(n, e * kFillGrain);
            std::memcpy(to + begin, from + begin, end - begin);
        });
        fillSeconds_ += filled.seconds();
        bytes_ += n;
        const VkBufferCopy region{std::uint64_t(piece) * pieceBytes_, dstOffset + done, n};
        pieceDone_[piece] = copied_.submit(false, [&](VkCommandBuffer cmd) {
            device_.vk().vkCmdCopyBuffer(cmd, staging_.handle(), dst.handle(), 1, &region);
        });
    }
}

void BulkUpload::finish() {
    const Stopwatch waited;
    copied_.waitAll();
    device_.reclaim();
    if (bytes_)
        spdlog::debug("bulk upload: {:.1f} MiB in pieces of {} MiB, {:.4f} s filling, {:.4f} s waiting for pieces, "
                      "{:.4f} s for the last copies",
                      double(bytes_) / 1048576.0, pieceBytes_ >> 20, fillSeconds_, waitSeconds_, waited.seconds());
    bytes_ = 0;
    fillSeconds_ = waitSeconds_ = 0.0;
}

} // namespace rsim::vk
