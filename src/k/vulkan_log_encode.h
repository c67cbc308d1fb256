// SPDX-License-Identifier: MIT
// Encoding a device-resident fp32 K in a logarithmic LUT format on that device
// (shaders/kencode.comp): only each chunk's value range and the error sums cross to the host.
#pragma once
#include <vector>

#include "k/gpu_k.h"

namespace rsim {

// K (fp32: every chunk, or an MPI rank's chunks) becomes `format` (lut8-log or lut4-log), a group
// of chunks at a time (`groupBytes` of fp32 per submission; tests make it small), the fp32 chunks
// freed once their encoded copies exist, on another thread where the device has room. Codes
// equal encodeChunk()'s on the host, bit for bit.
inline constexpr std::uint64_t kEncodeGroupBytes = std::uint64_t(256) << 20;
// The encoding pass's pipeline for `format` (a log format), for the device's warm-up
// (vulkan/pipeline_warmup.h).
vk::PipelineRecipe logEncodeRecipe(KFormat format);

// The encoded chunks of K in `format` (one per held chunk), allocated ahead of the encoding, while
// the device still casts K: where `format` is a log format, no --max-device-mb applies and the
// device has room for them twice over (as encodeLogKVulkan's release on another thread); else
// none, and the encoding allocates them group by group, freeing fp32 chunks in between.
std::vector<vk::Buffer> allocateEncodedK(vk::Device& device, const DeviceK& K, KFormat format);

// allocateEncodedK one chunk at a time, between the launches of one device's visibility pass,
// once K's fp32 chunks all exist (the same rule decides whether they are allocated ahead).
class EncodedAhead {
public:
    explicit EncodedAhead(KFormat format) : format_(format) {}
    // Allocates the next encoded chunk; false when none is left or they are not to be allocated
    // ahead.
    bool allocateNext(vk::Device& device, const DeviceK& K);
    // Those allocated, with the rest allocated now; none where none was allocated ahead.
    std::vector<vk::Buffer> take(vk::Device& device, const DeviceK& K);
    std::size_t allocated() const { return chunks_.size(); }

private:
    KFormat format_;
    int allowed_ = -1; // -1: not asked yet
    std::vector<vk::Buffer> chunks_;
};

// `encoded`: allocateEncodedK's, or none.
KErrors encodeLogKVulkan(vk::Device& device, DeviceK& K, KFormat format, std::uint64_t groupBytes = kEncodeGroupBytes,
                         std::vector<vk::Buffer> encoded = {});

} // namespace rsim
