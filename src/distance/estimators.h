// SPDX-License-Identifier: MIT
// Distance estimators of MODEL §6 on the host: per triangle from B_i, and per sensor pixel.
#pragma once
#include <cstdint>
#include <vector>

#include "accel/embree_scene.h"
#include "geometry/prepared_scene.h"
#include "pipeline/result.h"
#include "pipeline/sim_config.h"

namespace rsim {

// Path length in timesteps of one signal with the configured mode (pulsed or AMCW), through
// the shared estimators of include/rsim/shared/estimators.h. delaySteps is the sensor delay
// added to the estimate (tS_i for triangles, 0 for pixels). Returns NaN when the signal is
// zero, or (pulsed) when its peak window runs past the simulated time; `cutOff` is then set.
double pathSteps(const float* signal, std::uint32_t T, const SimConfig& config, double delaySteps,
                 bool* cutOff = nullptr);

// L_i and d_i for every triangle from B (MODEL §6); NaN where a triangle gets no light or the
// sensor cannot see it. Returns how many triangles' echoes were cut off by the time window.
std::uint64_t computeTriangleDistances(const PreparedScene& scene, const SimConfig& config,
                                       SimulationResult& result);

// The sensor image on the CPU: primary rays with Embree, direct term recomputed at the hit
// point, indirect part B_i - E_i delayed by the hit distance.
SensorImage renderSensorImageCpu(const PreparedScene& scene, const SimConfig& config,
                                 const EmbreeScene& rays, const SimulationResult& result);

} // namespace rsim
