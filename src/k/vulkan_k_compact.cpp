// SPDX-License-Identifier: MIT
#include "k/vulkan_k_compact.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "k/k_segments.h"
#include "util/error.h"
#include "util/timer.h"
#include "vulkan/pass.h"
#include "vulkan/shaders.h"

namespace rsim {

vk::PipelineRecipe compactRecipe(std::uint32_t storage) {
    return vk::passRecipe<shared::KCompactPush>(vk::shaders::kCompact(),
                                                vk::specConstants({{shared::RSIM_SPEC_K_FORMAT, storage}}),
                                                "K as segments");
}

namespace {

constexpr std::uint32_t kMaxTilesPerLaunch = 65535; // Vulkan's least maxComputeWorkGroupCount[1]

// One held chunk at a time: the counts (passes 0 and 1), the tiles' offsets on the host, the
// segments' buffer, the writing (pass 2).
class ChunkCompaction {
public:
    ChunkCompaction(vk::Device& device, const DeviceK& K)
        : device_(device), K_(K), storage_(K.chunking.storage()), n_(K.chunking.n),
          blocks_((n_ + shared::RSIM_WG_COMPACT - 1) / shared::RSIM_WG_COMPACT),
          pass_(device, compactRecipe(storage_)) {
        if (blocks_ > device.limits().maxComputeWorkGroupCount[0])
            throw InputError("K stored as segments: " + std::to_string(n_) + " triangles need more workgroups than " +
                             device.label() + " launches; set simulation.k_layout = \"dense\"");
        std::uint32_t tiles = 0;
        for (std::uint32_t c : K.chunkIds) tiles = std::max(tiles, segmentTiles(K.chunking.rows(c)));
        blockSums_ = vk::Buffer(device, std::max<std::uint64_t>(8, std::uint64_t(tiles) * blocks_ * 8),
                                vk::kStorageUsage, vk::MemoryKind::Device, "K segments: block sums");
        tileTotals_ = vk::Buffer(device, std::max<std::uint64_t>(8, std::uint64_t(tiles) * 8),
                                 vk::kStorageUsage, vk::MemoryKind::Device, "K segments: tile totals");
    }

    // Held chunk x as segments: the buffer (tile starts, segments, values) and its head's bytes.
    struct Result {
        vk::Buffer buffer;
        std::uint64_t headBytes = 0;
    };
    Result compact(std::uint32_t x) {
        const std::uint32_t c = K_.chunkIds[x], rows = K_.chunking.rows(c), tiles = segmentTiles(rows);
        if (K_.chunking.elements(c) >= (std::uint64_t(1) << 32))
            throw Error("internal: a K chunk of 2^32 elements or more cannot be made segments");
        shared::KCompactPush push{};
        push.dense = K_.buffers[x].address();
        push.blockSums = blockSums_.address();
        push.tileTotals = tileTotals_.address();
        push.rows = rows;
        push.n = n_;
        push.blocks = blocks_;
        push.tiles = tiles;
        device_.submitAndWait([&](VkCommandBuffer cmd) {
            pass_.bind(cmd);
            launch(cmd, push, shared::RSIM_K_COMPACT_COUNT, blocks_);
            vk::computeBarrier(device_, cmd);
            launch(cmd, push, shared::RSIM_K_COMPACT_SCAN, 1);
        });
        const std::vector<std::uint32_t> totals = vk::download<std::uint32_t>(device_, tileTotals_, 2 * std::size_t(tiles));
        // The tiles' first segments and value slots, and the chunk's totals.
        std::vector<std::uint32_t> bases(2 * std::size_t(tiles));
        std::uint64_t segments = 0, slots = 0;
        for (std::uint32_t t = 0; t < tiles; ++t) {
            bases[2 * t] = std::uint32_t(segments);
            bases[2 * t + 1] = std::uint32_t(slots);
            segments += totals[2 * t];
            slots += totals[2 * t + 1];
        }
        if (slots >= (std::uint64_t(1) << 32)) throw Error("internal: a K chunk's values past 2^32 slots");
        if (std::uint64_t(tiles) + 1 + segments * shared::RSIM_K_SEGMENT_WORDS >= (std::uint64_t(1) << 32))
            throw Error("internal: a K chunk's segments past 2^32 words");
        const std::uint64_t head = shared::rsimKSegmentValuesAt(tiles, std::uint32_t(segments));
        const std::uint64_t words = slots * shared::rsimKBits(storage_) / 32;
        Result out;
        out.buffer = vk::Buffer(device_, (head + words) * 4, vk::kStorageUsage, vk::MemoryKind::Device,
                                "K chunk " + std::to_string(c) + " (segments)");
        out.headBytes = head * 4;
        const vk::Buffer tileBases = vk::makeStorage(device_, bases, "K segments: tile bases");
        push.tileBases = tileBases.address();
        push.chunkOut = out.buffer.address();
        push.segments = std::uint32_t(segments);
        push.valuesAt = std::uint32_t(head);
        device_.submitAndWait([&](VkCommandBuffer cmd) {
            pass_.bind(cmd);
            launch(cmd, push, shared::RSIM_K_COMPACT_WRITE, blocks_);
        });
        return out;
    }

private:
    // A pass over every tile of the chunk, in launches of at most kMaxTilesPerLaunch tiles.
    void launch(VkCommandBuffer cmd, shared::KCompactPush push, std::uint32_t pass, std::uint32_t groupsX) {
        push.pass = pass;
        for (std::uint32_t t = 0; t < push.tiles; t += kMaxTilesPerLaunch) {
            push.tileBegin = t;
            pass_.dispatch(cmd, push, groupsX, std::min(kMaxTilesPerLaunch, push.tiles - t));
        }
    }

    vk::Device& device_;
    const DeviceK& K_;
    const std::uint32_t storage_, n_, blocks_;
    vk::Pass<shared::KCompactPush> pass_;
    vk::Buffer blockSums_, tileTotals_;
};

} // namespace

CompactedK segmentsOf(const DeviceK& K) {
    CompactedK out;
    const std::uint64_t table = std::uint64_t(shared::rsimKTableSize(K.chunking.storage())) * sizeof(float);
    for (std::size_t x = 0; x < K.buffers.size(); ++x) {
        const std::uint32_t tiles = segmentTiles(K.chunking.rows(K.chunkIds[x]));
        out.segments += (K.segmentBytes[x] / 4 - tiles - 1) / shared::RSIM_K_SEGMENT_WORDS;
        out.bytes += K.buffers[x].size() + table;
    }
    return out;
}

CompactedK compactDeviceK(vk::Device& device, DeviceK& K) {
    if (K.layout != KLayout::Dense) throw Error("internal: compacting a K that is not stored dense");
    if (K.streamed) throw Error("internal: a streamed K is made segments on the host, not on its device");
    Stopwatch sw;
    K.segmentBytes.clear();
    if (!K.chunkIds.empty()) {
        ChunkCompaction compaction(device, K);
        for (std::uint32_t x = 0; x < K.chunkIds.size(); ++x) {
            ChunkCompaction::Result r = compaction.compact(x);
            K.buffers[x] = std::move(r.buffer); // the dense chunk goes
            K.segmentBytes.push_back(r.headBytes);
        }
    }
    K.layout = KLayout::Segments;
    const CompactedK out = segmentsOf(K);
    spdlog::debug("{}: K made segments on the device in {:.3f} s: {} segments, {:.1f} MiB", device.label(), sw.seconds(),
                  out.segments, double(out.bytes) / 1048576.0);
    return out;
}

} // namespace rsim
