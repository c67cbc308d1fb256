// SPDX-License-Identifier: MIT
// K computed chunk by chunk on one or several Vulkan devices and assembled in host memory
// (several devices, streaming, or fp32 K too large for one device): each device computes the
// upper triangle (i < j) of its chunks; the host mirrors the lower part and encodes each chunk
// in K's format as soon as it is complete, while the devices go on with later chunks.
#pragma once
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "k/host_k.h"
#include "k/k_plan.h"
#include "vulkan/accel.h"
#include "vulkan/gpu_scene.h"

namespace rsim {

struct VisibilityDevice {
    vk::Device* device;
    const GpuGeometry* geometry;
    const vk::SceneAccel* accel;
};

struct ChunkedVisibility {
    VisibilityStats stats;
    double raySeconds = 0.0;        // the devices' casting, until the last chunk arrived
    double allocationSeconds = 0.0; // zeroed host chunks before the first ray
    double compressSeconds = 0.0;   // mirroring and encoding after the last chunk arrived
};

// Fills K (in plan.chunking's format) from the devices; chunk c is cast by plan.owner[c].
ChunkedVisibility computeVisibilityChunked(const std::vector<VisibilityDevice>& devices,
                                           const PreparedScene& prepared, const KSettings& settings,
                                           const KPlan& plan, HostK& K);

} // namespace rsim
