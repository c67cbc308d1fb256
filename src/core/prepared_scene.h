// SPDX-License-Identifier: MIT
// The triangles every backend simulates, in internal (Morton) order, with the per-triangle
// quantities of MODEL.md §1 in the fp32 values that both backends read.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "core/material.h"
#include "rsim/shared/physics.h"

namespace rsim {

struct SceneCounts {
    std::uint64_t loaded = 0;            // triangles read from the mesh files
    std::uint64_t droppedDegenerate = 0; // area below 1e-12 m^2
    std::uint64_t droppedNonFinite = 0;  // NaN/inf coordinates (only with skip_nonfinite)
    std::uint64_t droppedDuplicate = 0;  // the same face twice (scene/duplicate_faces.h)
    std::uint64_t twins = 0;             // back faces added for two-sided materials
    std::uint64_t afterSubdivision = 0;  // final N (twins included)
};

struct PreparedScene {
    // Internal order (index i). Everything a backend reads.
    std::vector<glm::vec3> v0, v1, v2;
    std::vector<glm::vec3> normal; // unit, front side
    std::vector<glm::vec3> centroid;
    std::vector<float> area;        // m^2
    std::vector<float> reflectance; // rho_i
    std::vector<std::uint32_t> id;  // stable id of internal triangle i
    // Internal index of the reversed twin of a two-sided triangle, kNoTwin if none. A primary
    // ray hits both twins at the same distance; the one facing the ray is the surface seen.
    std::vector<std::uint32_t> twin;
    static constexpr std::uint32_t kNoTwin = 0xffffffffu; // shared::RSIM_NO_TWIN (rsim/shared/primary_hit.h)
    // Stable-id order.
    std::vector<std::uint32_t> internalOf;     // internalOf[id] = i
    std::vector<std::uint32_t> sourceMeshOfId; // index into meshNames
    std::vector<std::string> meshNames;        // one per [[mesh]], as written in the scene file
    std::vector<std::uint32_t> materialOfId;   // index into materialNames
    std::vector<std::string> materialNames;    // the materials the triangles use, as resolved
    std::vector<MaterialModel> materialModels; // their BSDFs, one per name (`reflectance` above is
                                               // what the radiosity pipeline makes of them)
    glm::vec3 boundsMin{0.0f}, boundsMax{0.0f};
    float diagonal = 0.0f; // bounding-box diagonal, m
    float rayEps = 0.0f;   // RSIM_RAY_EPS_REL * diagonal
    SceneCounts counts;

    std::size_t size() const { return area.size(); }
    shared::Tri tri(std::size_t i) const { return shared::Tri{v0[i], v1[i], v2[i]}; }
};

} // namespace rsim
