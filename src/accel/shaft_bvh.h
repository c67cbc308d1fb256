// SPDX-License-Identifier: MIT
// The BVH over the scene's triangles that the shaft queries of clear pairs traverse
// (include/rsim/shared/shaft.h): built by Embree's generic builder into a flat node array that
// the CPU reads here and the shaders read from a storage buffer.
#pragma once
#include <cstdint>
#include <vector>

#include "core/prepared_scene.h"
#include "rsim/shared/shaft.h"

namespace rsim {

struct ShaftBvh {
    std::vector<shared::ShaftBvhNode> nodes;
    std::vector<std::uint32_t> prims; // internal triangle indices, as the leaves list them

    static ShaftBvh build(const PreparedScene& s);

    // Counts the triangles other than i and j that may meet the shaft's interior, stopping at
    // `limit` (1 answers "is the pair clear?").
    std::uint32_t candidates(const PreparedScene& s, const shared::Shaft& shaft, std::uint32_t i,
                             std::uint32_t j, float eps, std::uint32_t limit) const;

    std::size_t bytes() const { return nodes.size() * sizeof(nodes[0]) + prims.size() * 4; }
};

// The touching tolerance of the scene's shafts, m.
inline float shaftEps(const PreparedScene& s) { return shared::RSIM_SHAFT_TOL_REL * s.diagonal; }

} // namespace rsim
