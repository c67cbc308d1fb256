// SPDX-License-Identifier: MIT
// Distance estimators of MODEL §6 on the host: per triangle from B_i, and per sensor pixel.
#pragma once
#include <cstdint>
#include <vector>

#include "accel/embree_scene.h"
#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"

namespace rsim {

// w_k = 2 pi f_k dt of the AMCW frequencies (at most RSIM_MAX_FREQUENCIES), as the shared
// estimators take them.
struct AmcwOmegas {
    glm::vec4 lo{1.0f}, hi{1.0f};
    std::uint32_t count = 0;
};
AmcwOmegas amcwOmegas(const SimConfig& config);
// The estimator of a triangle's signal: RSIM_MODE_AMCW, or RSIM_MODE_PULSED (also for a gated
// camera, whose gates are defined on a pixel's signal with every delay in it).
std::uint32_t sensorModeId(SensorMode mode);
// The estimator of a pixel's signal: the triangle's, or RSIM_MODE_GATED.
std::uint32_t pixelModeId(SensorMode mode);
// Whether the image pass draws the sensor model's noise bin by bin: in pulsed mode, whose raw data
// is the histogram of bins. The other modes' noise is drawn on their raw data, the taps or the
// gates, by the camera readout (distance/camera_readout.h).
inline bool pulsedNoise(const SimConfig& c) { return c.noise.on && c.mode == SensorMode::Pulsed; }

// The pulsed estimator's matched filter m(t) = sum_k s(t + k) p[k] (rsimMatchedFilter) of every
// t in [1 - P, T) at once, into m[t - 1 + P]; `padded` is scratch.
void matchedFilterAll(const float* s, std::uint32_t T, const std::vector<float>& pulse, std::vector<float>& padded,
                      std::vector<float>& m);

// Path length in timesteps of one signal with the configured mode, through rsimPathSteps of
// include/rsim/shared/estimators.h (`pixel`: pixelModeId, else sensorModeId). delaySteps is the
// sensor delay added to the estimate (tS_i for triangles, 0 for pixels). Returns NaN when the
// signal is zero, or (pulsed) when its peak window runs past the simulated time; `cutOff` is
// then set.
double pathSteps(const float* signal, std::uint32_t T, const SimConfig& config, float delaySteps,
                 bool* cutOff = nullptr, bool pixel = false);

// L_i and d_i for every triangle from B (MODEL §6); NaN where a triangle gets no light or the
// sensor cannot see it.
TriangleDistances computeTriangleDistances(const PreparedScene& scene, const SimConfig& config,
                                           const Histories& histories, const DirectTerms& direct);

// The sensor image's primary rays with Embree: each pixel's first hit and the direct term
// recomputed at the hit point (the same as shaders/primary.glsl).
PrimaryHits primaryHitsCpu(const PreparedScene& scene, const SimConfig& config, const EmbreeScene& rays);

// The sensor image on the CPU from the primary hits: the direct term at the hit point, and the
// indirect part B_i - E_i delayed by the hit distance.
SensorImage renderSensorImageCpu(const PreparedScene& scene, const SimConfig& config, const PrimaryHits& hits,
                                 const Histories& histories);

} // namespace rsim
