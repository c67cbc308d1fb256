// SPDX-License-Identifier: MIT
// A batch whose camera has several lights or a delayed one, or a pulsed camera with lens
// scattering (issue 60; MODEL.md §8, "Several lights"): light adds linearly, so each (pose,
// light) pair runs as a pose of an inner batch (one K; the transport's pose lanes serve the
// lights together) that keeps its histories and its pixels' whole transients, with the light's
// pulse delayed by its delay_ns. Each pose's pairs are summed on the host, and its distances,
// sensor signals and image are estimated from the sums; the image's transients are scattered by
// the lens first when it has scattering.
#pragma once
#include <vector>

#include "pipeline/simulate.h"

namespace rsim {

// Whether a run takes the sum of lights: more than one light, a delayed light, or a pulsed camera
// whose lens scatters (its raw data is every pixel's histogram).
bool needsLightSum(const SimConfig& config);

BatchReport simulateLightsBatch(const PhaseBackends& backends, const PreparedScene& scene,
                                const std::vector<PoseConfig>& poses, const RunOptions& options, PhaseTimes& times,
                                RunMetadata& meta, const PoseSink& sink);

// The pulse p[k] delayed by `steps` timesteps (the linear split of the transport's deposits:
// whole steps shift it, the fraction splits each value between two bins).
std::vector<float> delayedPulse(const std::vector<float>& pulse, double steps);

} // namespace rsim
