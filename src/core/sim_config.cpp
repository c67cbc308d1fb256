// SPDX-License-Identifier: MIT
#include "core/sim_config.h"

namespace rsim {

std::uint32_t kEstimatorId(KEstimator e) {
    switch (e) {
    case KEstimator::SolidAngleMean:
        return shared::RSIM_K_ESTIMATOR_SOLID_ANGLE_MEAN;
    case KEstimator::Area:
        return shared::RSIM_K_ESTIMATOR_AREA;
    default:
        return shared::RSIM_K_ESTIMATOR_SOLID_ANGLE;
    }
}

shared::KSampling kSampling(const KSettings& k, float rayEps) {
    shared::KSampling s;
    s.samples = k.samples;
    s.nearFactor = k.nearPairFactor;
    s.seed = k.seed;
    s.estimator = kEstimatorId(k.estimator);
    s.eps = rayEps;
    return s;
}

} // namespace rsim
