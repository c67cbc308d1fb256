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
#include "k/gpu_k.h"
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
    double compressSeconds = 0.0;   // the assembling thread's work after the last chunk arrived
    double assemblySeconds = 0.0;   // all of the assembling thread's mirroring, encoding, row sums
};

// Fills K (in plan.chunking's format) from the devices; chunk c is cast by plan.owner[c].
ChunkedVisibility computeVisibilityChunked(const std::vector<VisibilityDevice>& devices,
                                           const PreparedScene& prepared, const KSettings& settings,
                                           const KPlan& plan, HostK& K);

// K computed where it lives (KPlan::whereItLives): each device casts the full rows of its own
// chunks, two at a time in fp32, and each chunk is encoded on the host as soon as it arrives and
// placed on its device (or in pinned host memory when that device streams). Host memory holds
// two fp32 chunks per device, the streamed chunks and the tables, never K in fp32. With a
// `journal` (the K cache's chunks file, k/k_journal.h; may be null) each chunk cast is kept on
// disk too, and the chunks it already holds are read and placed instead of cast (vulkan_k_where_it_lives.cpp).
struct KWhereItLives {
    std::vector<DeviceK> parts; // per device, as uploadChunks() would have placed them
    VisibilityStats stats;      // the pairs counted once; rays as cast; row sums of the encoded K
    KErrors errors;             // of the encoding, against fp32
    double raySeconds = 0.0;    // until the last device finished
    // The busiest device thread's time waiting for its device, encoding, summing rows and
    // placing chunks (overlapped with the casting: waiting long means the device is the bound).
    double waitSeconds = 0.0, encodeSeconds = 0.0, rowSumSeconds = 0.0, placeSeconds = 0.0;
    double journalSeconds = 0.0;     // reading chunks from the journal and appending to it
    std::uint32_t chunksFromJournal = 0; // placed from the journal, not cast
    bool journalComplete = false;        // the journal holds every chunk now
};
class KJournal;
KWhereItLives computeKWhereItLives(const std::vector<VisibilityDevice>& devices, const PreparedScene& prepared,
                                   const KSettings& settings, const KPlan& plan, KJournal* journal);

} // namespace rsim
