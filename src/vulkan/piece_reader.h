// SPDX-License-Identifier: MIT
// Device memory read by the host in pieces through two small host-visible buffers kept from one
// read to the next: the host takes each piece (copies or rearranges it) while the device copies
// the next. Pinned host memory is slow to allocate (NVIDIA's driver: a few GB/s, one allocation
// at a time in the whole process), so what the host reads once goes through a few MiB of it,
// not through a host buffer as large as itself.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "vulkan/buffer.h"
#include "vulkan/timeline.h"

namespace rsim::vk {

class PieceReader {
public:
    // Pieces of at most `pieceBytes`, copied on the device's transfer queue
    // where `transferQueue` (beside the compute queue's work where the device has a queue family
    // for transfers; a buffer read there that the compute queue wrote must be shared between the
    // families: Buffer's `shared`), else on the compute queue. The two buffers are allocated at
    // the first read that needs them.
    PieceReader(Device& device, std::uint64_t pieceBytes, bool transferQueue, std::string name);

    struct Region {
        std::uint64_t offset, bytes; // in the source buffer
    };
    // where: the piece's first byte in the sequence of the regions; the data is readable until
    // the call returns.
    using OnPiece = std::function<void(std::uint64_t where, const void* data, std::uint64_t bytes)>;

    // The `regions` of `src`, one after the other, handed to onPiece in order. Each copy waits
    // on the device for `after` to reach `afterValue` (when given: the work that wrote `src`,
    // on another queue). Returns once the host has taken every piece, the device done reading
    // `src` (work submitted after it may overwrite `src`), and the device's finished command
    // buffers freed (Device::reclaim).
    void read(const Buffer& src, std::span<const Region> regions, const OnPiece& onPiece,
              const TimelineSemaphore* after = nullptr, std::uint64_t afterValue = 0);

    std::uint64_t pieceBytes() const { return step_; }
    // Its pinned buffers (shared by the queue families; empty before the first read), for the
    // device's staging (Device::adoptStaging); a later read allocates new ones.
    Buffer takeBuffer(std::size_t which) { return std::move(staging_[which % 2]); }

private:
    Device& device_;
    std::uint64_t step_;
    bool transfer_;
    std::string name_;
    Buffer staging_[2];
    TimelineSemaphore copied_;
};

// `bytes` of `src` from its start to the host in pieces of at most `pieceBytes`, on the compute
// queue (a PieceReader for one read): onPiece(offset, data, size) gets each piece in order. For
// large results that the host rearranges anyway: they are read once, into their final place.
void downloadPieces(Device& device, const Buffer& src, std::uint64_t bytes, const PieceReader::OnPiece& onPiece,
                    std::uint64_t pieceBytes = std::uint64_t(16) << 20);

} // namespace rsim::vk
