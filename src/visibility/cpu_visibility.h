// SPDX-License-Identifier: MIT
// K_ij on the CPU (MODEL §2): Embree occlusion rays, all cores.
#pragma once
#include <vector>

#include "accel/embree_scene.h"
#include "geometry/prepared_scene.h"
#include "pipeline/result.h"
#include "pipeline/sim_config.h"

namespace rsim {

// Fills K (N x N, row-major, symmetric, zero diagonal) and returns the pair and ray counts.
VisibilityStats computeVisibilityCpu(const PreparedScene& scene, const SimConfig& config,
                                     const EmbreeScene& rays, std::vector<float>& K);

// Clamp and row-sum diagnostics of a full K (N x N row-major): the energy fields of
// VisibilityStats. Rows summing above kRowSumWarning are counted.
inline constexpr double kRowSumWarning = 1.05;
VisibilityStats formFactorDiagnostics(const PreparedScene& scene, const std::vector<float>& K);

// K_ij for one pair (i != j, internal indices) with the shared sampling of MODEL §2; `occluded`
// answers the visibility of a segment. Returns K and adds the rays it cast to `rays`.
template <class Occluded>
float kernelEntry(const PreparedScene& s, const SimConfig& c, std::size_t i, std::size_t j,
                  Occluded&& occluded, std::uint64_t& rays) {
    // The triangle with the smaller stable id takes dims 0,1 and is the ray's origin.
    std::size_t a = s.id[i] < s.id[j] ? i : j, b = a == i ? j : i;
    const shared::Tri ta = s.tri(a), tb = s.tri(b);
    const glm::vec4 offset = shared::rsimOffset4(shared::rsimPairHash(s.id[a], s.id[b], c.seed));
    float sum = 0.0f;
    for (std::uint32_t k = 0; k < c.samples; ++k) {
        const shared::RaySegment seg = shared::rsimKernelSample(
            ta, s.normal[a], tb, s.normal[b], shared::rsimR4Point(k, offset), s.rayEps);
        if (seg.weight <= 0.0f) continue;
        ++rays;
        if (!occluded(seg)) sum += seg.weight;
    }
    return sum / float(c.samples);
}

} // namespace rsim
