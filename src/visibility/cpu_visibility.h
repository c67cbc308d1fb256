// SPDX-License-Identifier: MIT
// K_ij on the CPU (MODEL §2): Embree occlusion rays, all cores.
#pragma once
#include "accel/embree_scene.h"
#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "k/host_k.h"

namespace rsim {

// Fills K (fp32, symmetric, zero diagonal) and returns the pair and ray counts.
VisibilityStats computeVisibilityCpu(const PreparedScene& scene, const KSettings& settings,
                                     const EmbreeScene& rays, HostK& K);

// K_ij for one pair (i != j, internal indices) with the estimator of MODEL §2
// (include/rsim/shared/form_factor.h, or the former area estimator when the settings ask for
// it); the rays of the pair are traced in packets of 16. Adds the rays it cast to `rays`.
float kernelEntry(const PreparedScene& s, const KSettings& settings, std::size_t i, std::size_t j,
                  const EmbreeScene& scene, std::uint64_t& rays);

} // namespace rsim
