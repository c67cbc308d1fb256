// SPDX-License-Identifier: MIT
// K computed chunk by chunk on one or several Vulkan devices and assembled in host memory
// (issue 5): each device computes the upper triangle of its chunks; the host mirrors the lower
// part and encodes each chunk in the K format as soon as it is complete, while the devices go
// on with later chunks.
#pragma once
#include <vector>

#include "backends/vulkan_scene.h"
#include "compress/kformat.h"
#include "streaming/k_plan.h"
#include "vulkan/accel.h"

namespace rsim {

struct VisibilityDevice {
    const vk::Device* device;
    const GpuScene* scene;
    const vk::SceneAccel* accel;
};

// Chunks of K in the plan's format, in the device layout (element (i, j) of chunk c at
// j * rows_c + (i - c R)); tables included.
struct HostChunkedK {
    KPlan plan;
    std::vector<EncodedChunk> chunks;
    double sumSquaredError = 0.0, maxAbsError = 0.0;

    float get(std::uint32_t i, std::uint32_t j) const {
        const std::uint32_t c = i / plan.rowsPerChunk;
        const std::uint32_t rows = plan.rowEnd(c) - plan.rowBegin(c);
        return decodeElement(chunks[c], kFormatInfo(plan.format).storage,
                             std::uint64_t(j) * rows + (i - plan.rowBegin(c)));
    }
};

// Returns the pair and ray counts (raySeconds: the devices' visibility time) and fills K.
// `compressSeconds` receives the host time spent mirroring and encoding after the last chunk
// arrived (the part that did not overlap the devices' work).
VisibilityStats computeVisibilityChunked(const std::vector<VisibilityDevice>& devices,
                                         const PreparedScene& prepared, const SimConfig& config,
                                         HostChunkedK& K, double& compressSeconds);

} // namespace rsim
