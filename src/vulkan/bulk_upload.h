// SPDX-License-Identifier: MIT
// Large host -> device copies, pipelined: the host fills one piece of the device's staging
// buffer (on every core) while the device copies the piece before. uploadBytes fills one piece
// on one thread and waits for its copy before the next: 3.7 GB/s for the large room's K from
// the K cache, against the host's memory and the bus, each several times that.
#pragma once
#include <cstdint>

#include "vulkan/buffer.h"
#include "vulkan/timeline.h"

namespace rsim::vk {

class BulkUpload {
  public:
    // Uses the device's staging upload buffer (Device::stagingUpload) until finish(): no
    // blocking upload of the same device may run meanwhile.
    explicit BulkUpload(Device& device);
    ~BulkUpload();
    BulkUpload(const BulkUpload&) = delete;
    BulkUpload& operator=(const BulkUpload&) = delete;

    // Queues the copy of `bytes` from `data` to `dst` at `dstOffset`. When it returns, `data` has
    // been read (the host may free it); the device may still be copying.
    void add(const Buffer& dst, const void* data, std::uint64_t bytes, std::uint64_t dstOffset = 0);
    // Waits for every copy queued.
    void finish();

  private:
    Device& device_;
    Buffer& staging_;
    std::uint64_t pieceBytes_;
    TimelineSemaphore copied_;
    std::uint64_t pieceDone_[4] = {}; // per piece: the semaphore value that frees it
    std::uint32_t next_ = 0;
    // For the debug log: bytes queued, seconds filling pieces and waiting for free ones.
    std::uint64_t bytes_ = 0;
    double fillSeconds_ = 0.0, waitSeconds_ = 0.0;
};

} // namespace rsim::vk
