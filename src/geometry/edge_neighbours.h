// SPDX-License-Identifier: MIT
// Each triangle's neighbours across its edges: the blocker rounds (shaders/visibility.glsl) test
// a pair's rays against what blocked one of them and against the triangles beside it, since a
// surface split into triangles blocks a bundle of rays with several of them.
#pragma once
#include <vector>

#include <glm/vec3.hpp>

#include "core/prepared_scene.h"

namespace rsim {

// For triangle t, the triangle that shares edge v0v1, v1v2 and v2v0 (the same two vertices,
// bit for bit, in either order), or shared::RSIM_NO_NEIGHBOUR where no other triangle or more
// than one shares it (an open edge, a T-junction, a fan, the inner edges of a two-sided surface,
// whose twins share them too) or only the triangle's own twin does.
std::vector<glm::uvec3> edgeNeighbours(const PreparedScene& scene);

} // namespace rsim
