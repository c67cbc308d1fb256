// SPDX-License-Identifier: MIT
// K on one Vulkan device, in the chunks and layout of KChunking: every chunk (one device
// computed K in place), or the chunks this device gathers from (K placed on several devices),
// in device memory or, when streamed, in pinned host memory that the transport copies in.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/results.h"
#include "k/host_k.h"
#include "vulkan/buffer.h"
#include "vulkan/gpu_scene.h"
#include "vulkan/pipeline_warmup.h"

namespace rsim {

struct DeviceK {
    KChunking chunking;
    std::vector<std::uint32_t> chunkIds; // the chunks held, ascending
    std::vector<vk::Buffer> buffers;     // per held chunk
    bool streamed = false;               // buffers are pinned host memory
    std::uint32_t streamGroup = 1;       // streamed: held chunks per copy
    vk::Buffer tables;                   // LUT formats: every chunk's table, chunk c's at c * size
    std::vector<float> hostTables;       // the same in host memory (streamed K is read there too)
    // As segments (k/k_segments.h): each held chunk's buffer holds its tile starts and segments,
    // then its values, which start segmentBytes[held] in (KChunkRef's segments and data).
    KLayout layout = KLayout::Dense;
    std::vector<std::uint64_t> segmentBytes;

    VkDeviceAddress tableAddress(std::uint32_t c) const {
        const std::uint32_t size = shared::rsimKTableSize(chunking.storage());
        return tables ? tables.address() + std::uint64_t(c) * size * sizeof(float) : 0;
    }
    // Held chunk `held` as the passes reading K see it; `data` replaces its buffer's address
    // where the chunk is read from elsewhere (a streamed copy on the device).
    shared::KChunkRef chunkRef(std::size_t held, VkDeviceAddress data = 0) const {
        const std::uint32_t c = chunkIds[held];
        const VkDeviceAddress base = data ? data : buffers[held].address();
        if (layout == KLayout::Segments)
            return {base + segmentBytes[held], tableAddress(c), base, chunking.rowBegin(c), chunking.rowEnd(c)};
        return {base, tableAddress(c), 0, chunking.rowBegin(c), chunking.rowEnd(c)};
    }
    bool holdsAll() const { return chunkIds.size() == chunking.chunks(); }
    // The shaders' RSIM_SPEC_K_LAYOUT for this K.
    std::uint32_t layoutSpec() const {
        return layout == KLayout::Segments ? shared::RSIM_K_LAYOUT_SEGMENTS : shared::RSIM_K_LAYOUT_DENSE;
    }
    // K_ij of a held chunk in pinned host memory (streamed), decoded on the host.
    float hostElement(std::size_t held, std::uint32_t i, std::uint32_t j) const;
    std::uint64_t bytes() const;
};

// Every chunk, zeroed, as fp32 or fp16 (what the visibility pass writes). Throws InputError
// when a chunk would not fit one allocation of the device (the chunking never adapts to it).
DeviceK allocateDeviceK(vk::Device& device, KChunking chunking);

// Every chunk of K allocated while the visibility launches cast the last rows (whose pairs reach
// only the last chunks), the last chunk first: allocating device memory costs NVIDIA's driver
// 18-31 ms a GiB whatever the chunking (docs/benchmarks.md, "NVIDIA driver costs"), 1.1-1.9 s
// for the 61.9 GiB of fp32 K at 129k triangles. The chunks are zeroed by the launches' command
// buffers. They are allocated on the caller's thread between the launches: those a launch needs
// when it is recorded (need()), the others while a launch runs (allocateFrom(), allocateNext()).
// The driver allocates one buffer at a time for the whole process and holds a submission
// meanwhile, so an allocation beside a submission delays it (a thread allocating beside the
// launches slowed them: docs/benchmarks.md, "NVIDIA driver costs"); between them, it costs the
// device nothing.
class ChunksForLaunches {
public:
    // K's chunks [firstChunk, endChunk) (chunking as for allocateDeviceK; all of them by
    // default) are to be allocated, the last first, into K, which holds none.
    ChunksForLaunches(vk::Device& device, DeviceK& K, std::uint32_t firstChunk = 0, std::uint32_t endChunk = ~0u);
    ChunksForLaunches(const ChunksForLaunches&) = delete;
    ChunksForLaunches& operator=(const ChunksForLaunches&) = delete;

    // Allocates chunks [c, chunks) where they do not exist yet, and records into `cmd` the
    // zeroing of those that were not ready at the last call and their addresses in `table`
    // (chunkAddressTable), then a barrier.
    void need(std::uint32_t c, VkCommandBuffer cmd, const vk::Buffer& table);
    // Allocates chunks [c, chunks) now (the next launch's, while one runs).
    void allocateFrom(std::uint32_t c);
    // Allocates the next chunk below those allocated; false when none is left.
    bool allocateNext();
    // Allocates every chunk left and zeroes those no launch needed.
    void finish();
    // Whether every chunk is allocated (not necessarily recorded by need()).
    bool allocated() const { return ready_ == first_; }

private:
    vk::Device& device_;
    DeviceK& K_;
    std::uint32_t first_, end_; // the chunks it allocates
    std::uint32_t ready_;       // chunks [ready_, end_) are allocated
    std::uint32_t recorded_;    // chunks [recorded_, end_) are zeroed and in the table
    double seconds_ = 0.0;      // spent allocating
};

// uint64_t per chunk index: the address of the chunk this device holds, 0 for the others.
vk::Buffer chunkAddressTable(vk::Device& device, const DeviceK& K);

struct KErrors {
    double sumSquared = 0.0;
    double maxAbs = 0.0;
};
// Re-encodes a resident fp32 K (every chunk; the logarithmic formats also a rank's chunks) in
// `format`: the logarithmic formats on the device
// (k/vulkan_log_encode.h), lutrange on the host (it sorts each chunk). Errors against fp32.
// `encoded`: the log formats' chunks allocated ahead (allocateEncodedK), or none.
KErrors compressDeviceK(vk::Device& device, DeviceK& K, KFormat format, std::vector<vk::Buffer> encoded = {});

// The row sums' pipeline for K stored as `storage`, for the device's warm-up.
vk::PipelineRecipe formFactorSumsRecipe(std::uint32_t storage);
// A resident K's row sums sum_j min(1, K_ij A_j) (0 for the rows it does not hold) and the form
// factors the clamp cut, by shaders/formfactor_sums.comp.
struct DeviceRowSums {
    std::vector<float> sums;
    std::uint64_t clamped = 0;
};
DeviceRowSums formFactorRowSumsDevice(vk::Device& device, const GpuGeometry& geometry, const DeviceK& K);
// Energy diagnostics of a resident K (of the rows it holds), from those row sums.
VisibilityStats formFactorDiagnosticsDevice(vk::Device& device, const GpuGeometry& geometry,
                                            const DeviceK& K);

// Copies the held chunks (and every table) into `into` (same chunking), encoded as they are:
// downloaded when resident, read from pinned memory when streamed.
void copyChunksToHost(vk::Device& device, const DeviceK& K, HostK& into);
// Every chunk (K held whole by one device) in host memory.
HostK downloadDeviceK(vk::Device& device, const DeviceK& K);

// One encoded chunk's words on the device, or in pinned host memory when `streamed`.
vk::Buffer placeChunk(vk::Device& device, const std::vector<std::uint32_t>& words, std::uint32_t c, bool streamed);

// Uploads chunks `ids` of K to the device (pinned host memory when `streamed`), and every
// chunk's table. `uploaded(c)`, when given, is called once chunk c's words have been copied
// (a caller that is done with K frees them there, so that host memory never holds K twice).
DeviceK uploadChunks(vk::Device& device, const HostK& K,
                     const std::vector<std::uint32_t>& ids, bool streamed,
                     std::uint32_t streamGroup,
                     const std::function<void(std::uint32_t)>& uploaded = {});

} // namespace rsim
