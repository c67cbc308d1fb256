// SPDX-License-Identifier: MIT
// Camera trajectories for batches (`rsim poses`): an orbit around the scene's centre, a grid
// over its floor plan, or a path along the scene camera's view. Horizontal means perpendicular
// to the scene's sensor.up.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "scene/scene_desc.h"

namespace rsim {

struct TrajectoryRequest {
    std::string kind;            // "orbit", "grid", "path"
    std::uint32_t count = 8;     // orbit, path: poses; grid: poses along each axis
    double radiusFraction = 0.3; // orbit: radius as a fraction of the smaller horizontal extent
    double lengthFraction = 0.5; // path: length as a fraction of the room ahead of the camera
};

// Poses named "<kind>-000", ... in the scene bounded by [lo, hi]. The camera stays at the
// scene's sensor height:
// - orbit: on a horizontal circle around the centre of the bounds, looking at the centre;
// - grid: count x count positions over the middle 60% of the floor plan, each looking along
//   the scene camera's horizontal direction;
// - path: from the scene's sensor position, `lengthFraction` of the way to the bounds along
//   its horizontal viewing direction, looking along it.
std::vector<PoseDesc> makeTrajectory(const SceneDesc& scene, glm::dvec3 lo, glm::dvec3 hi,
                                     const TrajectoryRequest& request);

} // namespace rsim
