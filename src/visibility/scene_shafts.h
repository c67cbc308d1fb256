// SPDX-License-Identifier: MIT
// What the GPU's ray passes need built on the host from a scene's triangles: rsim's BVH (the
// tiles' shafts, the bvh ray path), each triangle's edge neighbours (the blocker rounds), and
// the share of facing pairs that a sample of tiles would list. A run builds it while the driver
// creates the devices (pipeline/run_simulation.cpp) and hands it to the backend.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include <glm/vec3.hpp>

#include "accel/shaft_bvh.h"
#include "core/prepared_scene.h"

namespace rsim {

struct SceneShafts {
    ShaftBvh bvh;
    std::vector<glm::uvec3> edges;
    // listedPairShare(scene, bvh, sampleLimit, kTileSample), when sampleLimit > 0.
    std::uint32_t sampleLimit = 0;
    double listedShare = 0.0;
    // The scene it was built from: its triangles' storage and count (a PreparedScene's vectors
    // keep their storage when it is moved).
    const glm::vec3* triangles = nullptr;
    std::size_t n = 0;

    bool builtFrom(const PreparedScene& s) const { return triangles == s.v0.data() && n == s.size(); }
};

// The tiles a sample draws to decide whether the occluder lists pay (listedPairShare).
inline constexpr std::uint32_t kTileSample = 256;

// Builds it; `sampleLimit` > 0 also samples the tiles with that list limit.
std::shared_ptr<const SceneShafts> buildSceneShafts(const PreparedScene& s, std::uint32_t sampleLimit);

} // namespace rsim
