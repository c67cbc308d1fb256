// SPDX-License-Identifier: MIT
// Light and sensor terms of MODEL §4: per-triangle irradiance Irr_i and importance w_i from
// S_d shadow-ray samples, and the fractional delays tL_i, tS_i.
#pragma once
#include "accel/embree_scene.h"
#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"

namespace rsim {

// tL_i and tS_i from the centroids (host, double precision, stored as fp32 for every backend).
void computeDelays(const PreparedScene& scene, const SimConfig& config, DirectTerms& out);

// Irr_i and w_i on the CPU, with Embree shadow rays; also fills the delays.
DirectTerms computeDirectCpu(const PreparedScene& scene, const SimConfig& config,
                             const EmbreeScene& rays);

} // namespace rsim
