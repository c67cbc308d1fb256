// SPDX-License-Identifier: MIT
#include "k/gpu_k.h"

#include <algorithm>
#include <cstring>

#include <spdlog/spdlog.h>

#include "k/k_diagnostics.h"
#include "util/error.h"
#include "k/vulkan_log_encode.h"
#include "util/parallel.h"
#include "util/timer.h"
#include "vulkan/bulk_upload.h"
#include "vulkan/pass.h"
#include "vulkan/ray_pass.h"
#include "vulkan/shaders.h"

namespace rsim {

std::uint64_t DeviceK::bytes() const {
    std::uint64_t b = tables ? tables.size() : 0;
    for (const auto& buffer : buffers)
        b += buffer.size();
    return b;
}

float DeviceK::hostElement(std::size_t held, std::uint32_t i, std::uint32_t j) const {
    const std::uint32_t storage = chunking.storage(), c = chunkIds[held];
    const auto* words = static_cast<const std::uint32_t*>(buffers[held].mapped());
    if (layout == KLayout::Segments)
        return segmentElementIn(words, segmentTiles(chunking.rows(c)), words + segmentBytes[held] / 4,
                                hostTables.data() + std::size_t(c) * shared::rsimKTableSize(storage), storage,
                                i - chunking.rowBegin(c), j);
    const auto e = std::uint32_t(chunking.index(i, j));
    const std::uint32_t word = words[shared::rsimKWord(storage, e)];
    if (storage <= shared::RSIM_K_FP16) return shared::rsimKPlain(storage, word, e);
    return hostTables[std::size_t(c) * shared::rsimKTableSize(storage) +
                      shared::rsimKCode(storage, word, e)];
}

namespace {
// The chunking is never adapted to the device: its tables, and so the results, would depend on
// the machine.
void requireChunksFit(vk::Device& device, const KChunking& chunking) {
    if (chunking.chunkBytes(0) > device.maxAllocationBytes())
        throw InputError("--chunk-mb: a K chunk of " + std::to_string(chunking.chunkBytes(0) >> 20) + " MiB in " +
                         kFormatInfo(chunking.format).name + " exceeds the largest allocation of " + device.label() +
                         " (" + std::to_string(device.maxAllocationBytes() >> 20) + " MiB); use a smaller --chunk-mb");
}

vk::Buffer chunkBuffer(vk::Device& device, const KChunking& chunking, std::uint32_t c) {
    return vk::Buffer(device, chunking.chunkBytes(c), vk::kStorageUsage, vk::MemoryKind::Device,
                      "K rows " + std::to_string(chunking.rowBegin(c)) + ".." + std::to_string(chunking.rowEnd(c)));
}
} // namespace

DeviceK allocateDeviceK(vk::Device& device, KChunking chunking) {
    requireChunksFit(device, chunking);
    DeviceK K;
    K.chunking = chunking;
    Stopwatch sw;
    for (std::uint32_t c = 0; c < chunking.chunks(); ++c) {
        K.chunkIds.push_back(c);
        K.buffers.push_back(chunkBuffer(device, chunking, c));
    }
    const double allocated = sw.seconds();
    device.submitAndWait([&](VkCommandBuffer cmd) { // zeroed in one submission
        for (const vk::Buffer& b : K.buffers) device.vk().vkCmdFillBuffer(cmd, b.handle(), 0, VK_WHOLE_SIZE, 0);
    });
    spdlog::debug("{}: K's {} chunk(s) allocated in {:.3f} s, zeroed in {:.3f} s", device.label(), K.buffers.size(),
                  allocated, sw.seconds() - allocated);
    return K;
}

ChunksForLaunches::ChunksForLaunches(vk::Device& device, DeviceK& K, std::uint32_t firstChunk, std::uint32_t endChunk)
    : device_(device), K_(K), first_(std::min(firstChunk, K.chunking.chunks())),
      end_(std::max(first_, std::min(endChunk, K.chunking.chunks()))), ready_(end_), recorded_(end_) {
    requireChunksFit(device, K.chunking);
    K.chunkIds.clear();
    for (std::uint32_t c = first_; c < end_; ++c) K.chunkIds.push_back(c);
    K.buffers.clear();
    K.buffers.resize(end_ - first_); // filled from the last
}

void ChunksForLaunches::allocateFrom(std::uint32_t c) {
    c = std::max(c, first_);
    const Stopwatch sw;
    for (; ready_ > c; --ready_) K_.buffers[ready_ - 1 - first_] = chunkBuffer(device_, K_.chunking, ready_ - 1);
    seconds_ += sw.seconds();
}

bool ChunksForLaunches::allocateNext() {
    if (ready_ == first_) return false;
    allocateFrom(ready_ - 1);
    return true;
}

void ChunksForLaunches::need(std::uint32_t c, VkCommandBuffer cmd, const vk::Buffer& table) {
    c = std::max(c, first_);
    if (c >= recorded_) return;
    allocateFrom(c);
    for (std::uint32_t x = c; x < recorded_; ++x) {
        const vk::Buffer& b = K_.buffers[x - first_];
        const std::uint64_t address = b.address();
        device_.vk().vkCmdUpdateBuffer(cmd, table.handle(), std::uint64_t(x) * 8, 8, &address);
        device_.vk().vkCmdFillBuffer(cmd, b.handle(), 0, VK_WHOLE_SIZE, 0);
    }
    recorded_ = c;
    vk::computeBarrier(device_, cmd);
}

void ChunksForLaunches::finish() {
    allocateFrom(first_);
    spdlog::debug("{}: K's {} chunk(s) allocated in {:.3f} s between the launches", device_.label(), end_ - first_,
                  seconds_);
    if (recorded_ > first_) // chunks no launch needed (a scene without pairs): zeroed here
        device_.submitAndWait([&](VkCommandBuffer cmd) {
            for (std::uint32_t x = first_; x < recorded_; ++x)
                device_.vk().vkCmdFillBuffer(cmd, K_.buffers[x - first_].handle(), 0, VK_WHOLE_SIZE, 0);
        });
    recorded_ = first_;
}

vk::Buffer chunkAddressTable(vk::Device& device, const DeviceK& K) {
    std::vector<std::uint64_t> addresses(K.chunking.chunks(), 0);
    for (std::size_t x = 0; x < K.chunkIds.size(); ++x)
        addresses[K.chunkIds[x]] = K.buffers[x].address();
    return vk::makeStorage(device, addresses, "K chunk addresses");
}

KErrors compressDeviceK(vk::Device& device, DeviceK& K, KFormat format, std::vector<vk::Buffer> encoded) {
    if (format == K.chunking.format) return {};
    if (kFormatInfo(format).logTable)
        return encodeLogKVulkan(device, K, format, kEncodeGroupBytes, std::move(encoded)); // codes stay on the device
    // lutrange sorts each chunk: the chunks come to the host, are encoded on all cores and go back.
    HostK host = downloadDeviceK(device, K);
    const std::vector<std::uint32_t> ids = K.chunkIds;
    K = DeviceK{}; // the fp32 chunks go before the encoded ones arrive (fp32 K only just fitted)
    host.compress(format);
    KErrors errors{host.sumSquaredError(), host.maxAbsError()};
    K = uploadChunks(device, host, ids, false, 1);
    return errors;
}

vk::PipelineRecipe formFactorSumsRecipe(std::uint32_t storage) {
    return vk::passRecipe<shared::FormFactorPush>(vk::shaders::formFactorSums(),
                                                  vk::specConstants({{shared::RSIM_SPEC_K_FORMAT, storage}}),
                                                  "form-factor sums");
}

DeviceRowSums formFactorRowSumsDevice(vk::Device& device, const GpuGeometry& geometry, const DeviceK& K) {
    if (K.layout != KLayout::Dense) throw Error("internal: the row sums of K stored as segments");
    const Stopwatch sw;
    const KChunking& ch = K.chunking;
    // Blocks of at least 512 columns, at most 32 of them (their partial sums: 32 floats a row).
    const std::uint32_t columns = std::max<std::uint32_t>(512, (ch.n + 31) / 32);
    const std::uint32_t blocks = (ch.n + columns - 1) / columns;
    vk::Pass<shared::FormFactorPush> sums(device, formFactorSumsRecipe(ch.storage()));
    vk::ScratchBuffer counterArea, readbackArea;
    GpuCounters clamped(device, 1, counterArea, "clamp counter");
    const std::uint64_t rowBytes = std::uint64_t(ch.n) * sizeof(float);
    vk::Buffer rowSums(device, rowBytes, vk::kStorageUsage, vk::MemoryKind::Device, "form-factor row sums");
    vk::Buffer partials(device, rowBytes * blocks, vk::kStorageUsage, vk::MemoryKind::Device,
                        "form-factor row sums' blocks");
    vk::HostReadback back(device, readbackArea,
                          vk::HostReadback::rounded(rowBytes) + vk::HostReadback::rounded(clamped.bytes()));
    shared::FormFactorPush p{};
    p.triangles = geometry.triangles.address();
    p.rowSums = rowSums.address();
    p.stats = clamped.address();
    p.partials = partials.address();
    p.n = ch.n;
    p.columns = columns;
    std::uint64_t sumsAt = 0, clampedAt = 0;
    device.submitAndWait([&](VkCommandBuffer cmd) {
        // The rows of chunks K does not hold (an MPI rank's K) stay 0.
        device.vk().vkCmdFillBuffer(cmd, rowSums.handle(), 0, VK_WHOLE_SIZE, 0);
        clamped.zero(cmd);
        sums.bind(cmd);
        for (std::uint32_t phase : {shared::RSIM_ROW_SUMS_BLOCKS, shared::RSIM_ROW_SUMS_TOTAL}) {
            p.phase = phase;
            for (std::size_t x = 0; x < K.chunkIds.size(); ++x) {
                p.k = K.chunkRef(x);
                const std::uint32_t groups =
                    (ch.rows(K.chunkIds[x]) + shared::RSIM_WG_LINEAR - 1) / shared::RSIM_WG_LINEAR;
                sums.dispatch(cmd, p, groups, phase == shared::RSIM_ROW_SUMS_BLOCKS ? blocks : 1);
            }
            vk::computeBarrier(device, cmd);
        }
        sumsAt = back.add(cmd, rowSums, rowBytes);
        clampedAt = back.add(cmd, clamped.buffer(), clamped.bytes());
    });
    const float* values = back.at<float>(sumsAt);
    DeviceRowSums out{std::vector<float>(values, values + ch.n), clamped.sums(back.at<std::uint32_t>(clampedAt))[0]};
    spdlog::debug("{}: K's row sums in {:.4f} s ({} blocks of {} columns)", device.label(), sw.seconds(), blocks,
                  columns);
    return out;
}

VisibilityStats formFactorDiagnosticsDevice(vk::Device& device, const GpuGeometry& geometry, const DeviceK& K) {
    const DeviceRowSums r = formFactorRowSumsDevice(device, geometry, K);
    return summariseRowSums(std::vector<double>(r.sums.begin(), r.sums.end()), r.clamped);
}

namespace {

// The held chunks of a K stored as segments into `into` (unfilled, or stored as segments).
void copySegmentsToHost(vk::Device& device, const DeviceK& K, HostK& into) {
    if (into.layout() != KLayout::Segments) into.setUnfilledSegments();
    const std::uint32_t size = shared::rsimKTableSize(K.chunking.storage());
    for (std::size_t x = 0; x < K.chunkIds.size(); ++x) {
        const std::uint32_t c = K.chunkIds[x], tiles = segmentTiles(K.chunking.rows(c));
        const std::size_t count = K.buffers[x].size() / 4;
        const auto* mapped = K.streamed ? static_cast<const std::uint32_t*>(K.buffers[x].mapped()) : nullptr;
        const std::vector<std::uint32_t> all =
            mapped ? std::vector<std::uint32_t>(mapped, mapped + count) : vk::download<std::uint32_t>(device, K.buffers[x], count);
        const std::size_t head = K.segmentBytes[x] / 4;
        SegmentChunk& chunk = into.segments(c);
        const std::ptrdiff_t first = shared::rsimKSegmentWordAt(tiles, 0, 0);
        chunk.tileStart.assign(all.begin(), all.begin() + first);
        chunk.segments.assign(all.begin() + first, all.begin() + std::ptrdiff_t(head));
        chunk.words.assign(all.begin() + std::ptrdiff_t(head), all.end());
        chunk.values = 0;
        for (std::uint32_t s = 0; s < chunk.segmentCount(); ++s) chunk.values += std::uint32_t(__builtin_popcount(chunk.mask(s)));
        chunk.table.clear();
        if (size)
            chunk.table.assign(K.hostTables.begin() + std::ptrdiff_t(c) * size,
                               K.hostTables.begin() + std::ptrdiff_t(c + 1) * size);
    }
}

} // namespace

void copyChunksToHost(vk::Device& device, const DeviceK& K, HostK& into) {
    if (K.layout == KLayout::Segments) {
        copySegmentsToHost(device, K, into);
        return;
    }
    const std::uint32_t size = shared::rsimKTableSize(K.chunking.storage());
    for (std::size_t x = 0; x < K.chunkIds.size(); ++x) {
        const std::uint32_t c = K.chunkIds[x];
        EncodedChunk& chunk = into.chunk(c);
        const std::uint64_t words = K.chunking.chunkBytes(c) / 4;
        if (K.streamed) {
            const auto* mapped = static_cast<const std::uint32_t*>(K.buffers[x].mapped());
            chunk.words.assign(mapped, mapped + words);
        } else {
            chunk.words = vk::download<std::uint32_t>(device, K.buffers[x], words);
        }
        chunk.table.clear();
        if (size)
            chunk.table.assign(K.hostTables.begin() + std::ptrdiff_t(c) * size,
                               K.hostTables.begin() + std::ptrdiff_t(c + 1) * size);
    }
}

HostK downloadDeviceK(vk::Device& device, const DeviceK& K) {
    HostK host = HostK::unfilled(K.chunking);
    copyChunksToHost(device, K, host);
    return host;
}

vk::Buffer placeChunk(vk::Device& device, const std::vector<std::uint32_t>& words, std::uint32_t c, bool streamed) {
    if (!streamed) return vk::makeStorage(device, words, "K chunk " + std::to_string(c));
    const std::uint64_t bytes = words.size() * 4;
    // Copied to the device by the time-stepped transport, read in place by the phasors' gathers.
    vk::Buffer pinned(device, bytes, vk::kStorageUsage, vk::MemoryKind::Upload,
                      "K chunk " + std::to_string(c) + " (host)");
    std::memcpy(pinned.mapped(), words.data(), bytes);
    return pinned;
}

namespace {

// Every chunk's table in one buffer (LUT formats), and in host memory.
void uploadTables(vk::Device& device, const HostK& K, DeviceK& out) {
    const std::uint32_t size = shared::rsimKTableSize(out.chunking.storage());
    if (!size) return;
    std::vector<float> tables(std::size_t(out.chunking.chunks()) * size, 0.0f);
    for (std::uint32_t c = 0; c < out.chunking.chunks(); ++c) {
        const std::vector<float>& t = K.layout() == KLayout::Segments ? K.segments(c).table : K.chunk(c).table;
        std::copy(t.begin(), t.end(), tables.begin() + std::ptrdiff_t(c) * size);
    }
    out.tables = vk::makeStorage(device, tables, "K tables");
    out.hostTables = std::move(tables);
}

// K stored as segments: each held chunk one buffer of its tile starts, segments and values
// (DeviceK::segmentBytes), through the bulk upload, or in pinned host memory when streamed.
void uploadSegments(vk::Device& device, const HostK& K, DeviceK& out, vk::BulkUpload& bulk,
                    const std::function<void(std::uint32_t)>& uploaded) {
    out.layout = KLayout::Segments;
    for (std::uint32_t c : out.chunkIds) {
        const SegmentChunk& s = K.segments(c);
        const std::uint64_t head = (s.tileStart.size() + s.segments.size()) * 4, values = s.words.size() * 4;
        if (out.streamed) {
            out.buffers.push_back(placeChunk(device, segmentBufferWords(s), c, true));
            out.segmentBytes.push_back(head);
            if (uploaded) uploaded(c);
            continue;
        }
        vk::Buffer b(device, std::max<std::uint64_t>(4, head + values), vk::kStorageUsage, vk::MemoryKind::Device,
                     "K chunk " + std::to_string(c) + " (segments)");
        bulk.add(b, s.tileStart.data(), s.tileStart.size() * 4);
        if (!s.segments.empty()) bulk.add(b, s.segments.data(), s.segments.size() * 4, s.tileStart.size() * 4);
        if (!s.words.empty()) bulk.add(b, s.words.data(), values, head);
        out.segmentBytes.push_back(head);
        out.buffers.push_back(std::move(b));
        if (uploaded) uploaded(c);
    }
    bulk.finish();
    uploadTables(device, K, out);
}

} // namespace

DeviceK uploadChunks(vk::Device& device, const HostK& K,
                     const std::vector<std::uint32_t>& ids, bool streamed,
                     std::uint32_t streamGroup,
                     const std::function<void(std::uint32_t)>& uploaded) {
    DeviceK out;
    out.chunking = K.chunking();
    out.chunkIds = ids;
    out.streamed = streamed;
    out.streamGroup = streamGroup;
    // Device-local chunks through one pipelined upload (vulkan/bulk_upload.h); a streamed K's
    // chunks go to pinned memory, read in place or copied as the transport needs them.
    vk::BulkUpload bulk(device);
    if (K.layout() == KLayout::Segments) {
        uploadSegments(device, K, out, bulk, uploaded);
        return out;
    }
    for (std::uint32_t c : ids) {
        const std::vector<std::uint32_t>& words = K.chunk(c).words;
        if (streamed) {
            out.buffers.push_back(placeChunk(device, words, c, true));
        } else {
            vk::Buffer b(device, std::max<std::uint64_t>(4, words.size() * 4), vk::kStorageUsage, vk::MemoryKind::Device,
                         "K chunk " + std::to_string(c));
            if (!words.empty()) bulk.add(b, words.data(), words.size() * 4);
            out.buffers.push_back(std::move(b));
        }
        if (uploaded) uploaded(c);
    }
    bulk.finish();
    uploadTables(device, K, out);
    return out;
}

} // namespace rsim
