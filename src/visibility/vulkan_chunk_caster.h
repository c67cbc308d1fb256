// SPDX-License-Identifier: MIT
// The two halves of casting K chunk by chunk on a Vulkan device, shared by K assembled in host
// memory and K where it lives (visibility/vulkan_visibility_chunked.h): ChunkCaster casts a
// device's chunks into fp32, two slots so that the host copies one out while the next is cast;
// ChunkUploader places encoded chunks on the device through the transfer queue.
#pragma once
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "k/k_plan.h"
#include "visibility/vulkan_visibility.h"
#include "visibility/vulkan_visibility_chunked.h"
#include "vulkan/buffer.h"
#include "vulkan/ray_pass.h"
#include "vulkan/timeline.h"

namespace rsim {

// One device's share: two slots, so that it casts chunk k + 1 while the host copies chunk k out
// of the other slot's readback buffer. One submission per chunk (zero, cast, copy to the
// readback buffer) signals k + 1 on chunkDone_.
class ChunkCaster {
public:
    // `fullRows`: every column of the chunk's rows (RSIM_K_FULL_ROWS), else the upper part only.
    ChunkCaster(const VisibilityDevice& d, const PreparedScene& prepared, const KSettings& settings,
                const KPlan& plan, std::vector<std::uint32_t> chunks, bool fullRows = false)
        : dev_(*d.device), plan_(plan), chunks_(std::move(chunks)), fullRows_(fullRows),
          pipelines_(makeVisibilityPipelines(dev_, settings, *d.accel)),
          counters_(dev_, kVisibilityCounters, "visibility counters"), chunkDone_(dev_, "visibility chunks") {
        std::uint64_t largest = 0;
        for (std::uint32_t c : chunks_) largest = std::max(largest, plan.chunking.elements(c));
        // A device with no chunk (more devices than chunks) casts nothing and needs no slots.
        for (std::size_t s = 0; s < (chunks_.empty() ? 0 : slots_.size()); ++s) {
            const std::string tag = std::to_string(s);
            Slot& slot = slots_[s];
            slot.scratch = vk::Buffer(dev_, largest * 4, vk::kStorageUsage, vk::MemoryKind::Device,
                                      "K chunk (fp32), slot " + tag);
            slot.readback = vk::Buffer(dev_, largest * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryKind::Readback,
                                       "K chunk readback, slot " + tag);
            slot.counts = vk::Buffer(dev_, counters_.bytes(), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                     vk::MemoryKind::Readback, "visibility counters readback, slot " + tag);
            // Every chunk index points at the slot's scratch: only the current chunk's rows are written.
            slot.table = vk::makeStorage(dev_, std::vector<std::uint64_t>(plan.chunking.chunks(), slot.scratch.address()),
                                         "K chunk addresses, slot " + tag);
            slot.lists = std::make_unique<VisibilityLists>(dev_, std::uint32_t(prepared.size()), tileListMax(settings),
                                                           blockerRounds(settings), "visibility lists");
        }
        push_ = visibilityPush(*d.geometry, prepared, settings);
        push_.stats = counters_.address();
        push_.rowsPerChunk = plan.chunking.rowsPerChunk;
        push_.kStorage = shared::RSIM_K_FP32;
        push_.mirror = fullRows ? shared::RSIM_K_FULL_ROWS : shared::RSIM_K_UPPER;
        pairs_.assign(chunks_.size(), 0);
        lastSlots_.assign(counters_.bytes() / 4, 0);
    }

    std::size_t size() const { return chunks_.size(); }
    std::uint32_t chunk(std::size_t k) const { return chunks_[k]; }

    // Chunk k of this device. The first barrier orders the fill after the copy that last read
    // this slot (two submissions earlier).
    void submit(std::size_t k) {
        const std::uint32_t c = chunks_[k];
        const Slot& s = slots_[k % 2];
        push_.kChunks = s.table.address();
        chunkDone_.submit(
            false,
            [&](VkCommandBuffer cmd) {
                vk::computeBarrier(dev_, cmd);
                dev_.vk().vkCmdFillBuffer(cmd, s.scratch.handle(), 0, VK_WHOLE_SIZE, 0);
                vk::computeBarrier(dev_, cmd);
                pairs_[k] = recordVisibilityRows(dev_, pipelines_, push_, plan_.chunking.rowBegin(c),
                                                 plan_.chunking.rowEnd(c), *s.lists, cmd);
                vk::computeBarrier(dev_, cmd);
                const VkBufferCopy region{0, 0, plan_.chunking.elements(c) * 4};
                dev_.vk().vkCmdCopyBuffer(cmd, s.scratch.handle(), s.readback.handle(), 1, &region);
                // The counters as this chunk leaves them (the next chunk's launches wait
                // behind its first barrier): collect() takes the difference.
                const VkBufferCopy counts{0, 0, counters_.bytes()};
                dev_.vk().vkCmdCopyBuffer(cmd, counters_.buffer().handle(), s.counts.handle(), 1, &counts);
                vk::hostReadBarrier(dev_, cmd);
            });
    }

    // Waits for chunk k and copies its upper entries (i < j) into `values` (the chunk's fp32
    // elements; all of them with full rows); the lower ones belong to the host's mirror. Returns
    // the elements it computed.
    std::uint64_t collect(std::size_t k, float* values) {
        chunkDone_.wait(k + 1);
        dev_.reclaim();
        const KChunking& ch = plan_.chunking;
        const std::uint32_t c = chunks_[k], r0 = ch.rowBegin(c), rows = ch.rows(c);
        noteCounts(static_cast<const std::uint32_t*>(slots_[k % 2].counts.mapped()));
        const float* src = static_cast<const float*>(slots_[k % 2].readback.mapped());
        if (fullRows_) {
            std::copy_n(src, ch.elements(c), values);
            return pairs_[k];
        }
        for (std::uint32_t j = r0 + 1; j < ch.n; ++j) {
            const std::uint32_t upto = std::min(rows, j - r0);
            std::copy_n(&src[std::size_t(j) * rows], upto, values + std::size_t(j) * rows);
        }
        return pairs_[k];
    }

    VisibilityStats stats() const { return visibilityCounts(counters_); }
    // The pairs, rays and tiles of the chunk collect() last returned.
    const VisibilityStats& lastChunkCounts() const { return lastChunk_; }

private:
    // Each slot's increment since the last chunk (32-bit slots, wrapping), summed per counter.
    void noteCounts(const std::uint32_t* slots) {
        std::vector<std::uint32_t> delta(lastSlots_.size());
        for (std::size_t i = 0; i < delta.size(); ++i) {
            delta[i] = slots[i] - lastSlots_[i];
            lastSlots_[i] = slots[i];
        }
        lastChunk_ = visibilityCounts(counters_.sums(delta.data()));
    }
    struct Slot {
        vk::Buffer scratch, readback, counts, table;
        std::unique_ptr<VisibilityLists> lists;
    };
    vk::Device& dev_;
    const KPlan& plan_;
    std::vector<std::uint32_t> chunks_;
    bool fullRows_;
    VisibilityPipelines pipelines_;
    GpuCounters counters_;
    std::array<Slot, 2> slots_;
    std::vector<std::uint64_t> pairs_;
    std::vector<std::uint32_t> lastSlots_;
    VisibilityStats lastChunk_;
    shared::VisibilityPush push_{};
    // Last: destroyed first, after waiting for every submission that uses the slots.
    vk::TimelineSemaphore chunkDone_;
};

// Copies encoded chunks into device-local buffers on the transfer queue, through a ring of
// staging buffers, so that a chunk's copy runs beside the casting of the next instead of
// queueing behind it on the compute queue (measured: 72 ms a chunk that way, 99d70f7).
class ChunkUploader {
public:
    ChunkUploader(vk::Device& device, std::uint64_t largestBytes) : dev_(device), copies_(device, "K chunk uploads") {
        for (std::size_t s = 0; s < staging_.size(); ++s)
            staging_[s] = vk::Buffer(device, std::max<std::uint64_t>(4, largestBytes), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                     vk::MemoryKind::Upload, "K chunk staging " + std::to_string(s));
    }
    // Chunk c's words in a new device buffer (shared with the compute queue); the copy is in
    // flight until finish().
    vk::Buffer upload(const std::vector<std::uint32_t>& words, std::uint32_t c) {
        const std::uint64_t bytes = words.size() * 4;
        const std::size_t s = next_++ % staging_.size();
        if (usedAt_[s]) copies_.wait(usedAt_[s]); // the copy that last read this staging buffer
        dev_.reclaim();
        if (staging_[s].size() < bytes) // a chunk as segments may take more than a dense one
            staging_[s] = vk::Buffer(dev_, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryKind::Upload,
                                     "K chunk staging " + std::to_string(s));
        std::memcpy(staging_[s].mapped(), words.data(), bytes);
        vk::Buffer dst(dev_, bytes, vk::kStorageUsage, vk::MemoryKind::Device, "K chunk " + std::to_string(c), true);
        usedAt_[s] = copies_.submit(true, [&](VkCommandBuffer cmd) {
            const VkBufferCopy region{0, 0, bytes};
            dev_.vk().vkCmdCopyBuffer(cmd, staging_[s].handle(), dst.handle(), 1, &region);
        });
        return dst;
    }
    void finish() {
        copies_.waitAll();
        dev_.reclaim();
    }

private:
    vk::Device& dev_;
    std::array<vk::Buffer, 3> staging_;
    std::array<std::uint64_t, 3> usedAt_{};
    std::size_t next_ = 0;
    vk::TimelineSemaphore copies_; // last: destroyed first, after its copies
};

} // namespace rsim
