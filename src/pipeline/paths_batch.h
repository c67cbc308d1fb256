// SPDX-License-Identifier: MIT
// simulateBatch for the `paths` transport (MODEL.md §10.2): no K, no direct terms, no histories;
// each pose's image traced from its pixels by the image backend, handed to the sink like the
// radiosity pipeline's results (with no per-triangle outputs).
#pragma once
#include <vector>

#include "pipeline/simulate.h"

namespace rsim {

BatchReport simulatePathsBatch(const PhaseBackends& backends, const PreparedScene& scene,
                               const std::vector<PoseConfig>& poses, const RunOptions& options, PhaseTimes& times,
                               RunMetadata& meta, const PoseSink& sink);

// Pixels of an image with a range (finite depth).
std::size_t pixelsWithRange(const SensorImage& image);

} // namespace rsim
