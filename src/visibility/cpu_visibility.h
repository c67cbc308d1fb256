// SPDX-License-Identifier: MIT
// K_ij on the CPU (MODEL §2): Embree occlusion rays, all cores.
#pragma once
#include <vector>

#include "accel/embree_scene.h"
#include "compress/host_k.h"
#include "geometry/prepared_scene.h"
#include "pipeline/result.h"
#include "pipeline/sim_config.h"

namespace rsim {

// Fills K (symmetric, zero diagonal; fp32, or fp16 converted as each value is computed) and
// returns the pair and ray counts. `fp16SquaredError` receives the conversion error.
VisibilityStats computeVisibilityCpu(const PreparedScene& scene, const SimConfig& config,
                                     const EmbreeScene& rays, HostKMatrix& K,
                                     double* fp16SquaredError = nullptr);

// Clamp and row-sum diagnostics of a full K (N x N row-major): the energy fields of
// VisibilityStats. Rows summing above kRowSumWarning are counted.
VisibilityStats formFactorDiagnostics(const PreparedScene& scene, const HostKMatrix& K);

// K_ij for one pair (i != j, internal indices) with the estimator of MODEL §2
// (include/rsim/shared/form_factor.h, or the former area estimator when the config asks for
// it); the rays of the pair are traced in packets of 16. Adds the rays it cast to `rays`.
float kernelEntry(const PreparedScene& s, const SimConfig& c, std::size_t i, std::size_t j,
                  const EmbreeScene& scene, std::uint64_t& rays);

} // namespace rsim
