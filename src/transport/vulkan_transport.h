// SPDX-License-Identifier: MIT
// B and Z on one or several Vulkan devices (MODEL §5), time-blocked (RSIM_TIME_BLOCK): per
// block, each device gathers the far pairs of its K chunks (resident, or streamed from host
// memory into two alternating buffers on the transfer queue, ordered by timeline semaphores);
// with several devices the block's far sums are combined through host memory; then every
// device runs the block's near steps for all receivers, so all histories stay identical.
#pragma once
#include <vector>

#include "backends/vulkan_scene.h"
#include "compress/kformat.h"
#include "transport/near_pairs.h"

namespace rsim {

// The K chunks one device gathers from.
struct TransportK {
    KFormat format = KFormat::Fp32;
    std::uint32_t n = 0, rowsPerChunk = 1;
    std::vector<std::uint32_t> chunks;          // owned chunk indices
    std::vector<const vk::Buffer*> buffers;     // per owned chunk: device buffer, or pinned host buffer
    std::vector<std::uint64_t> bytes;           // per owned chunk
    bool streamed = false;
    std::uint32_t streamGroup = 1;              // streamed: owned chunks per copy and gather submission
    const vk::Buffer* tables = nullptr;         // chunk c's table at c * tableSize floats (LUT formats)

    std::uint32_t rowBegin(std::uint32_t c) const { return c * rowsPerChunk; }
    std::uint32_t rowEnd(std::uint32_t c) const { return std::min(n, (c + 1) * rowsPerChunk); }
};

struct TransportDevice {
    const vk::Device* device = nullptr;
    const GpuScene* scene = nullptr;
    TransportK k;
};

struct GpuTransport {
    std::vector<vk::Buffer> histories; // per device, identical: vec2[n][T] of (B, Z)
    double setupSeconds = 0.0;         // pipelines, buffers, near lists upload
    double loopSeconds = 0.0;          // the time loop
    double exchangeSeconds = 0.0;      // host part of combining far sums across devices
    std::uint64_t streamedBytes = 0;   // K bytes copied host -> device during the loop
};

// `near` may be empty. Without indirect light (MODEL §5: B = E, Z = R) neither the far sums
// nor the near pairs are gathered, whatever K and `near` hold, and devices[0] alone runs.
GpuTransport runTransportVulkan(const std::vector<TransportDevice>& devices,
                                const std::vector<shared::GpuTransportTri>& records,
                                const NearLists& near, const SimConfig& config, bool indirect);

// Source slices per workgroup of the far gather (RSIM_RADIOSITY_SPLIT overrides), and sources
// gathered per loop trip (RSIM_RADIOSITY_UNROLL overrides).
std::uint32_t radiositySplit(const vk::Device& device, std::uint32_t n);
std::uint32_t radiosityUnroll();

} // namespace rsim
