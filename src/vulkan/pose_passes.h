// SPDX-License-Identifier: MIT
// The pipelines of the pose phase on one device (direct terms, distances, the sensor image),
// made on first use and kept while the scene's TLAS lives (the ray passes bind it): a batch
// creates them once, not once per pose. So are their output buffers, and the host-visible
// buffer that each pass's results come back in (one submission per pass).
#pragma once
#include <memory>

#include "rsim/shared/gpu_layout.h"
#include "vulkan/buffer.h"
#include "vulkan/pass.h"
#include "vulkan/pipeline.h"

namespace rsim::vk {

struct PosePasses {
    std::unique_ptr<Pipeline> direct, primary, paths;
    std::unique_ptr<Pass<shared::DistancePush>> distances;
    std::unique_ptr<Pass<shared::PixelPush>> pixels;
    std::unique_ptr<Pass<shared::SignalPush>> signals;
    std::unique_ptr<Pass<shared::HistoryFromLanesPush>> fromLanes;
    ScratchBuffer directOut, directCounters, signalsOut, distancesOut, pixelHits, pixelOut, readback;
    ScratchBuffer pathSignal, pathDirect, pathHits; // paths/vulkan_paths.h
};

} // namespace rsim::vk
