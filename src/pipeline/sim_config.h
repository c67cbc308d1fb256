// SPDX-License-Identifier: MIT
// Everything a backend needs besides the triangles, derived once from the scene file.
#pragma once
#include <cstdint>
#include <vector>

#include "compress/kformat.h"
#include "rsim/shared/form_factor.h"
#include "rsim/shared/physics.h"
#include "scene/scene_desc.h"

namespace rsim {

struct SimConfig {
    double dtNs = 0.1;
    std::uint32_t timesteps = 1000;      // T
    std::uint32_t samples = 16;          // S
    KEstimator kEstimator = KEstimator::SolidAngle;
    std::uint32_t nearPairFactor = 8;    // near pairs take this many times S (form_factor.h)
    std::uint32_t directSamples = 16;    // S_d
    std::uint32_t seed = 1;
    bool indirect = true;
    shared::PointLight light{};
    shared::PinholeSensor sensor{};
    std::uint32_t width = 0, height = 0; // sensor pixels
    std::vector<float> pulse;            // p[k], sums to 1
    SensorMode mode = SensorMode::Pulsed;
    std::vector<double> modulationMhz;
    float invCdtSq = 0.0f;               // 1 / (c dt)^2, for tau_ij
    double cdtM = 0.0;                   // c dt, metres per timestep
    KFormat kFormat = kDefaultKFormat;   // --kij
    std::uint64_t chunkBytes = 16ull << 20; // --chunk-mb: K chunk budget (rows per LUT)
    bool kFormatErrors = false;          // --kij-errors: errors of every format (fp32 runs)

    // Fractional delay in timesteps of a path of `metres`.
    double steps(double metres) const { return metres / cdtM; }
};

SimConfig makeSimConfig(const SceneDesc& scene);

// The shared code's id of an estimator (RSIM_K_ESTIMATOR_*, include/rsim/shared/form_factor.h).
std::uint32_t kEstimatorId(KEstimator e);
// How the visibility pass samples each pair (form_factor.h), rays offset by `rayEps`.
shared::KSampling kSampling(const SimConfig& config, float rayEps);

// Sampled pulse shape (MODEL §4): delta, or a Gaussian of the given FWHM in timesteps spanning
// +-3 sigma, normalised to sum 1.
std::vector<float> makePulse(PulseShape shape, double fwhmSteps);

} // namespace rsim
