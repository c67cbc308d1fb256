// SPDX-License-Identifier: MIT
// K_ij on a Vulkan device (MODEL §2), resident in device memory as row chunks.
#pragma once
#include <vector>

#include "backends/vulkan_scene.h"
#include "compress/kformat.h"
#include "geometry/prepared_scene.h"
#include "pipeline/sim_config.h"
#include "util/progress.h"
#include "vulkan/accel.h"
#include "vulkan/pipeline.h"

namespace rsim {

// K on one device: rows [c R, (c+1) R) in chunk c, element (i, j) at j * rows_c + (i - c R),
// packed in the format's storage class (include/rsim/shared/kformat.h). LUT formats keep one
// table per chunk in `tables` (chunk c's at c * tableSize floats).
struct GpuKMatrix {
    KFormat format = KFormat::Fp32;
    std::vector<vk::Buffer> chunks;
    vk::Buffer addresses; // uint64_t[chunks]: device address of each chunk
    vk::Buffer tables;
    std::uint32_t rowsPerChunk = 0;
    std::uint32_t n = 0;

    std::uint32_t storage() const { return kFormatInfo(format).storage; }
    std::uint32_t chunkCount() const { return std::uint32_t(chunks.size()); }
    std::uint32_t rowBegin(std::uint32_t c) const { return c * rowsPerChunk; }
    std::uint32_t rowEnd(std::uint32_t c) const { return std::min(n, (c + 1) * rowsPerChunk); }
    VkDeviceAddress tableAddress(std::uint32_t c) const {
        return tables ? tables.address() + std::uint64_t(c) * shared::rsimKTableSize(storage()) * 4 : 0;
    }
    std::uint64_t bytes() const { return kBytes(n, format, rowsPerChunk); }
};

// Allocates K (zeroed) as fp32 or fp16, `rowsPerChunk` rows per chunk (fewer if one
// allocation cannot hold them).
GpuKMatrix allocateK(const vk::Device& device, std::uint32_t n, KFormat format,
                     std::uint32_t rowsPerChunk);

// The scene and sampling fields of the visibility pass's push constants (MODEL §2).
shared::VisibilityPush visibilityPush(const GpuScene& scene, const PreparedScene& prepared,
                                      const SimConfig& config);

// Re-encodes an fp32 K in a LUT format. The logarithmic formats are encoded on the device
// (compress/vulkan_log_encode.h); lutrange sorts each chunk, so its chunks come to the host, are
// encoded there (in parallel over chunks on every core) and go back. Returns the errors
// against fp32.
// The list through which the visibility pass hands its near pairs to its second phase
// (VisibilityPush in gpu_layout.h): one per command buffer in flight.
struct NearVisibilityList {
    NearVisibilityList(const vk::Device& device, std::uint64_t pairsPerLaunch, const char* name);
    std::uint32_t capacity; // a sixteenth of a launch's pairs, in [4096, 2^20]; pairs beyond it
                            // are finished in the first phase
    vk::Buffer buffer;
};
// The most pairs one visibility launch covers on this device.
std::uint64_t visibilityPairsPerLaunch(const vk::Device& device);

// Casts the visibility rays of rows [rowBegin, rowEnd) (pairs i < j), in launches the device's
// limits allow, one blocking submission each; `push` has everything but the row range and the
// near list.
void castVisibilityRows(const vk::Device& device, const vk::Pipeline& pipeline, shared::VisibilityPush push,
                        std::uint32_t rowBegin, std::uint32_t rowEnd, const NearVisibilityList& near,
                        Progress& progress);
// The same launches recorded into one command buffer (no wait); returns the pairs they cover.
std::uint64_t recordVisibilityRows(const vk::Device& device, const vk::Pipeline& pipeline,
                                   shared::VisibilityPush push, std::uint32_t rowBegin, std::uint32_t rowEnd,
                                   const NearVisibilityList& near, VkCommandBuffer cmd);

struct KErrors {
    double sumSquared = 0.0;
    double maxAbs = 0.0;
};
KErrors compressKVulkan(const vk::Device& device, GpuKMatrix& K, KFormat format);

// `nearCapacity` sets the near list's capacity (0: NearVisibilityList's default); the tests use
// it to run the first phase's fallback.
VisibilityStats computeVisibilityVulkan(const vk::Device& device, const GpuScene& scene,
                                        const vk::SceneAccel& accel, const PreparedScene& prepared,
                                        const SimConfig& config, GpuKMatrix& K, std::uint32_t nearCapacity = 0);

// Clamp and row-sum diagnostics of the K the radiosity reads (after compression).
VisibilityStats formFactorDiagnosticsVulkan(const vk::Device& device, const GpuScene& scene,
                                            const GpuKMatrix& K);

// The decoded K as N x N row-major floats (for output.kij and tests), decoded on the device by
// the same rsimLoadK the radiosity passes use.
std::vector<float> downloadK(const vk::Device& device, const GpuKMatrix& K);

} // namespace rsim
