// SPDX-License-Identifier: MIT
// K_ij on a Vulkan device (MODEL §2), resident in device memory as row chunks.
#pragma once
#include <vector>

#include "backends/vulkan_scene.h"
#include "vulkan/accel.h"

namespace rsim {

// K on one device: rows [c R, (c+1) R) in chunk c, element (i, j) at j * rows_c + (i - c R).
struct GpuKMatrix {
    std::vector<vk::Buffer> chunks;
    vk::Buffer table; // uint64_t[chunks]: device addresses
    std::uint32_t rowsPerChunk = 0;
    std::uint32_t n = 0;
    std::uint64_t bytes = 0;

    std::uint32_t chunkCount() const { return std::uint32_t(chunks.size()); }
    std::uint32_t rowBegin(std::uint32_t c) const { return c * rowsPerChunk; }
    std::uint32_t rowEnd(std::uint32_t c) const { return std::min(n, (c + 1) * rowsPerChunk); }
};

// Allocates K (zeroed) in chunks no larger than the device allows in one allocation.
GpuKMatrix allocateK(const vk::Device& device, std::uint32_t n, std::uint64_t maxChunkBytes);

VisibilityStats computeVisibilityVulkan(const vk::Device& device, const GpuScene& scene,
                                        const vk::SceneAccel& accel, const PreparedScene& prepared,
                                        const SimConfig& config, GpuKMatrix& K);

// The decoded K as N x N row-major floats (for output.kij and tests).
std::vector<float> downloadK(const vk::Device& device, const GpuKMatrix& K);

} // namespace rsim
