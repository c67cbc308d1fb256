// SPDX-License-Identifier: MIT
// K stored as segments made where K lives (issue 63): each device turns the dense chunks it
// holds into segments with shaders/kcompact.comp, chunk by chunk, each dense chunk freed once its
// segments exist. Only each tile's totals cross to the host (to size the allocation); the
// segments are toSegments()'s (k/k_segments.h), word for word.
#pragma once
#include <cstdint>

#include "k/gpu_k.h"

namespace rsim {

// The compaction's pipeline for K stored as `storage`, for the device's warm-up.
vk::PipelineRecipe compactRecipe(std::uint32_t storage);

// What the held chunks became: segments, and bytes as stored (tile starts, segments, values,
// and the held chunks' tables, as HostK::storedBytes counts them).
struct CompactedK {
    std::uint64_t segments = 0, bytes = 0;
};

// The segments and bytes of a DeviceK stored as segments (however they got there).
CompactedK segmentsOf(const DeviceK& K);

// K's held chunks, resident and dense in any format, become segments (K.layout, the buffers and
// K.segmentBytes); the tables stay. Peak memory: K dense and one chunk's segments. Returns
// segmentsOf(K).
CompactedK compactDeviceK(vk::Device& device, DeviceK& K);

} // namespace rsim
