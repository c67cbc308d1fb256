// SPDX-License-Identifier: MIT
// The simulation's configuration from what the scene file says.
#pragma once
#include <vector>

#include "core/sim_config.h"
#include "scene/scene_desc.h"

namespace rsim {

// Everything but the K format and chunking, which come from the command line
// (pipeline/run_simulation.cpp).
SimConfig makeSimConfig(const SceneDesc& scene);

// Sampled pulse shape (MODEL §4): delta, or a Gaussian of the given FWHM in timesteps spanning
// +-3 sigma, normalised to sum 1.
std::vector<float> makePulse(PulseShape shape, double fwhmSteps, double widthSteps = 0.0);

} // namespace rsim
