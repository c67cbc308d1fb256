// SPDX-License-Identifier: MIT
// K_ij on the CPU (MODEL §2): Embree occlusion rays, all cores.
#pragma once
#include "accel/embree_scene.h"
#include "accel/shaft_bvh.h"
#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "k/host_k.h"
#include "k/row_share.h"

namespace rsim {

// Fills K (fp32, symmetric, zero diagonal) and returns the pair and ray counts. With `share` (an
// MPI rank's block of rows, which K holds), this rank's rows: it traces its share of the pairs
// and gets the rest of its rows from the other ranks, every element with the bits of a single
// process; the counts are of the pairs traced here (over the ranks they add up to one process's).
VisibilityStats computeVisibilityCpu(const PreparedScene& scene, const KSettings& settings,
                                     const EmbreeScene& rays, HostK& K, const RowShare* share = nullptr);

// True when nothing but i and j can meet the interior of the pair's shaft (shaft.h).
bool pairIsClear(const PreparedScene& s, const ShaftBvh& shafts, std::size_t i, std::size_t j);

// K_ij for one pair (i != j, internal indices) with the estimator of MODEL §2
// (include/rsim/shared/form_factor.h, or the former area estimator when the settings ask for
// it); the rays of the pair are traced in packets of 16. Adds the rays it cast to `rays`.
// With `shafts`, a clear pair takes the exact form factor at the same points and no rays, and
// sets *clear.
float kernelEntry(const PreparedScene& s, const KSettings& settings, std::size_t i, std::size_t j,
                  const EmbreeScene& scene, const ShaftBvh* shafts, std::uint64_t& rays, bool* clear);

} // namespace rsim
