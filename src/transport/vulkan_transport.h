// SPDX-License-Identifier: MIT
// B and Z on a Vulkan device (MODEL §5): one compute dispatch per timestep and K chunk.
#pragma once
#include "backends/vulkan_scene.h"
#include "visibility/vulkan_visibility.h"

namespace rsim {

struct GpuTransport {
    vk::Buffer history;         // vec2[n][T]: (B, Z)
    double setupSeconds = 0.0;  // pipelines, near-pair lists, zeroing
    double loopSeconds = 0.0;   // the time loop (GPU-bound; the host only submits and waits)
    std::uint64_t nearPairs = 0;
};

// Runs all timesteps. `K` may be null when indirect light is off.
GpuTransport runTransportVulkan(const vk::Device& device, const GpuScene& scene,
                                const GpuKMatrix* K, const vk::Buffer& transportTris,
                                const SimConfig& config);

// Source slices per workgroup of the radiosity shader (RSIM_RADIOSITY_SPLIT overrides), and
// sources gathered per loop trip (RSIM_RADIOSITY_UNROLL overrides).
std::uint32_t radiositySplit(const vk::Device& device, std::uint32_t n);
std::uint32_t radiosityUnroll();

} // namespace rsim
