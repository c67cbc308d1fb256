// SPDX-License-Identifier: MIT
#include "visibility/vulkan_visibility_chunked.h"

#include "k/k_segments.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "k/k_diagnostics.h"
#include "k/k_segments.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"
#include "visibility/vulkan_visibility.h"
#include "vulkan/device_group.h"
#include "vulkan/ray_pass.h"
#include "vulkan/shaders.h"
#include "vulkan/timeline.h"

namespace rsim {
namespace {

// Which chunks have arrived from the devices; the assembler waits on it. A failure wakes it.
class Arrivals {
public:
    explicit Arrivals(std::uint32_t chunks) : arrived_(chunks, false) {}
    void arrive(std::uint32_t c) {
        std::lock_guard lock(mutex_);
        arrived_[c] = true;
        cv_.notify_all();
    }
    void fail() {
        std::lock_guard lock(mutex_);
        failed_ = true;
        cv_.notify_all();
    }
    // False when a device failed.
    bool waitFor(std::uint32_t c) {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return arrived_[c] || failed_; });
        return !failed_;
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<bool> arrived_;
    bool failed_ = false;
};

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

private:
    struct Slot {
        vk::Buffer scratch, readback, table;
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

// Entry (i, j) of chunk c with j > i goes to (j, i) in j's chunk: every chunk after c, and
// chunk c itself.
void mirrorChunk(HostK& K, std::uint32_t c) {
    const KChunking& ch = K.chunking();
    const std::uint32_t r0 = ch.rowBegin(c), r1 = ch.rowEnd(c), rows = ch.rows(c), n = ch.n;
    const float* src = K.values(c);
    const std::uint32_t tile = 64, firstCol = r0 + 1, tiles = (n - std::min(n, firstCol) + tile - 1) / tile;
    parallelFor(tiles, 1, [&](std::size_t b, std::size_t e, unsigned) {
        for (std::size_t t = b; t < e; ++t) {
            const std::uint32_t j0 = firstCol + std::uint32_t(t) * tile, j1 = std::min(n, j0 + tile);
            for (std::uint32_t i0 = r0; i0 < r1; i0 += tile)
                for (std::uint32_t j = j0; j < j1; ++j) {
                    const std::uint32_t d = ch.chunkOf(j), rd = ch.rowBegin(d), rowsD = ch.rows(d);
                    float* dst = K.values(d);
                    const std::uint32_t iEnd = std::min({r1, i0 + tile, j});
                    for (std::uint32_t i = i0; i < iEnd; ++i)
                        dst[std::size_t(i) * rowsD + (j - rd)] = src[std::size_t(j) * rows + (i - r0)];
                }
        }
    });
}

} // namespace

ChunkedVisibility computeVisibilityChunked(const std::vector<VisibilityDevice>& devices,
                                           const PreparedScene& prepared, const KSettings& settings,
                                           const KPlan& plan, HostK& K) {
    const KChunking& ch = plan.chunking;
    const std::uint32_t C = ch.chunks();
    ChunkedVisibility out;
    // fp32 chunks until each is complete and encoded, zeroed on all cores before the first ray.
    // (Leaving them unzeroed, so that the devices' and the mirror's writes touch the pages
    // first, was measured slower with two devices: the large room's visibility 2.00 -> 2.21 s,
    // reverted in 2bfcaa5.)
    Stopwatch allocation;
    K = HostK(ch);
    out.allocationSeconds = allocation.seconds();

    std::vector<std::unique_ptr<ChunkCaster>> casters;
    for (std::uint32_t d = 0; d < devices.size(); ++d)
        casters.push_back(std::make_unique<ChunkCaster>(devices[d], prepared, settings, plan, plan.chunksOf(d)));
    Arrivals arrivals(C);
    Progress progress("visibility", std::uint64_t(ch.n) * (ch.n - 1) / 2, "pairs");
    Stopwatch busy;
    std::vector<double> busySeconds(devices.size(), 0.0);
    double assembled = 0.0; // when the assembling thread finished
    std::vector<double> rowSum(ch.n, 0.0);
    std::uint64_t clamped = 0;
    // One thread per device, and one more that assembles: chunk c is complete once its own upper
    // part has arrived and every earlier chunk has mirrored into it.
    const std::size_t D = devices.size();
    vk::forEachDevice(D + 1, [&](std::size_t d) {
        if (d == D) {
            for (std::uint32_t c = 0; c < C; ++c) {
                if (!arrivals.waitFor(c)) return;
                Stopwatch sw;
                mirrorChunk(K, c);
                K.encodeChunkAs(c, ch.format);
                // Its row sums too, while the devices cast later chunks (after the last chunk,
                // a pass over all of K took 0.55 s of the large room's 3.4 s with two devices;
                // docs/benchmarks.md at c8397db, "Two GPUs again, at today's estimator").
                clamped += addChunkRowSums(ch, c, K.chunk(c), prepared.area, rowSum);
                out.assemblySeconds += sw.seconds();
            }
            assembled = busy.seconds();
            return;
        }
        ChunkCaster& caster = *casters[d];
        try {
            if (caster.size() > 0) caster.submit(0);
            for (std::size_t k = 0; k < caster.size(); ++k) {
                if (k + 1 < caster.size()) caster.submit(k + 1); // slot (k+1)%2 was emptied at step k-1
                progress.add(caster.collect(k, K.values(caster.chunk(k))));
                arrivals.arrive(caster.chunk(k));
            }
            busySeconds[d] = busy.seconds();
        } catch (...) {
            arrivals.fail();
            throw;
        }
    });
    out.raySeconds = *std::max_element(busySeconds.begin(), busySeconds.end());
    out.compressSeconds = std::max(0.0, assembled - out.raySeconds);
    progress.finish();
    K.finishEncoding(ch.format);
    setEnergy(out.stats, summariseRowSums(rowSum, clamped));
    for (const auto& caster : casters) out.stats.addCounts(caster->stats());
    return out;
}

KWhereItLives computeKWhereItLives(const std::vector<VisibilityDevice>& devices, const PreparedScene& prepared,
                                   const KSettings& settings, const KPlan& plan) {
    const KChunking& ch = plan.chunking;
    const std::uint32_t L = shared::rsimKTableSize(ch.storage());
    const std::size_t D = devices.size();
    KWhereItLives out;
    out.parts.resize(D);
    std::vector<double> rowSum(ch.n, 0.0); // each row is written by its chunk's device only
    std::vector<std::uint64_t> clamped(D, 0);
    std::vector<KErrors> errors(D);
    std::vector<double> busySeconds(D, 0.0);
    // Each device thread's time per step: waiting for its device (the chunk and its readback
    // copy), encoding, row sums, placing the encoded chunk.
    struct HostSteps {
        double wait = 0.0, encode = 0.0, rowSums = 0.0, place = 0.0;
    };
    std::vector<HostSteps> steps(D);
    std::vector<std::unique_ptr<ChunkCaster>> casters;
    for (std::uint32_t d = 0; d < D; ++d)
        casters.push_back(std::make_unique<ChunkCaster>(devices[d], prepared, settings, plan, plan.chunksOf(d), true));
    Progress progress("visibility", std::uint64_t(ch.n) * (ch.n - 1), "elements");
    Stopwatch busy;
    vk::forEachDevice(D, [&](std::size_t d) {
        ChunkCaster& caster = *casters[d];
        DeviceK& K = out.parts[d];
        K.chunking = ch;
        K.chunkIds = plan.chunksOf(std::uint32_t(d));
        K.streamed = plan.streamed[d];
        K.streamGroup = plan.streamGroup[d];
        K.layout = plan.segments ? KLayout::Segments : KLayout::Dense;
        std::uint64_t placedBytes = 0; // as segments, with the tables
        std::vector<float> tables(std::size_t(ch.chunks()) * L, 0.0f);
        std::vector<float> values(caster.size() ? ch.elements(0) : 0); // chunk 0 is the largest
        std::optional<ChunkUploader> uploader;
        if (!K.streamed && caster.size()) uploader.emplace(*devices[d].device, ch.chunkBytes(0));
        if (caster.size() > 0) caster.submit(0);
        for (std::size_t k = 0; k < caster.size(); ++k) {
            // The device casts chunk k + 1 while this thread encodes and places chunk k.
            if (k + 1 < caster.size()) caster.submit(k + 1);
            const std::uint32_t c = caster.chunk(k);
            Stopwatch sw;
            progress.add(caster.collect(k, values.data()));
            HostSteps& t = steps[d];
            t.wait += sw.lap();
            const EncodedChunk e = encodeChunk(values.data(), ch.elements(c), ch.format);
            errors[d].sumSquared += e.sumSquaredError;
            errors[d].maxAbs = std::max(errors[d].maxAbs, e.maxAbsError);
            t.encode += sw.lap();
            clamped[d] += addChunkRowSums(ch, c, e, prepared.area, rowSum);
            t.rowSums += sw.lap();
            if (plan.segments) {
                // As segments, made here: the device never holds its dense chunks.
                const SegmentChunk seg = toSegments(e, ch.rows(c), ch.n, ch.storage());
                const std::uint64_t head = (seg.tileStart.size() + seg.segments.size()) * 4;
                placedBytes += head + seg.words.size() * 4 + e.table.size() * sizeof(float);
                if (!K.streamed)
                    plan.checkSegmentsFit(std::uint32_t(d), placedBytes, std::uint32_t(k + 1), std::uint32_t(caster.size()));
                const std::vector<std::uint32_t> words = segmentBufferWords(seg);
                K.buffers.push_back(uploader ? uploader->upload(words, c) : placeChunk(*devices[d].device, words, c, true));
                K.segmentBytes.push_back(head);
            } else {
                K.buffers.push_back(uploader ? uploader->upload(e.words, c) : placeChunk(*devices[d].device, e.words, c, true));
            }
            std::copy(e.table.begin(), e.table.end(), tables.begin() + std::ptrdiff_t(c) * L);
            t.place += sw.lap();
        }
        if (uploader) uploader->finish();
        busySeconds[d] = busy.seconds();
        if (L) {
            K.tables = vk::makeStorage(*devices[d].device, tables, "K tables");
            K.hostTables = std::move(tables);
        }
    });
    progress.finish();
    out.raySeconds = *std::max_element(busySeconds.begin(), busySeconds.end());
    for (const HostSteps& t : steps) {
        out.waitSeconds = std::max(out.waitSeconds, t.wait);
        out.encodeSeconds = std::max(out.encodeSeconds, t.encode);
        out.rowSumSeconds = std::max(out.rowSumSeconds, t.rowSums);
        out.placeSeconds = std::max(out.placeSeconds, t.place);
    }
    std::uint64_t clampedTotal = 0;
    for (std::size_t d = 0; d < D; ++d) {
        out.stats.addCounts(casters[d]->stats());
        out.errors.sumSquared += errors[d].sumSquared;
        out.errors.maxAbs = std::max(out.errors.maxAbs, errors[d].maxAbs);
        clampedTotal += clamped[d];
    }
    setEnergy(out.stats, summariseRowSums(rowSum, clampedTotal));
    return out;
}

} // namespace rsim
