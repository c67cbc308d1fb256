// SPDX-License-Identifier: MIT
// The BVH the shaders walk (RayBvhNode, gpu_layout.h): the shaft queries' binary BVH
// (shaft_bvh.h) collapsed to four children a node, each node holding its children's boxes, so
// that a ray loads one node for four slab tests and walks about half as many levels. The bvh
// ray path's rays walk it with its boxes widened; the GPU's shaft queries (the tiles' lists, the
// clear pairs) walk it as built, so that a box that only touches a shaft's face stays out.
#pragma once
#include <vector>

#include "accel/shaft_bvh.h"
#include "rsim/shared/gpu_layout.h"

namespace rsim {

// The nodes of the ray BVH over `bvh`'s leaves (the same leaves, so ShaftBvh::leafTriangles stays
// their triangle list), every box widened by `widen` on each side. Each node takes its binary
// node's two children and splits the inner child of largest surface area while it has fewer than
// four, so no path is longer than the binary tree's.
std::vector<shared::RayBvhNode> rayBvhNodes(const ShaftBvh& bvh, float widen);

// Lane c of a node: its child's reference (gpu_layout.h) and box.
std::uint32_t rayBvhReference(const shared::RayBvhNode& node, std::uint32_t c);
struct RayBvhBox {
    glm::vec3 lo, hi;
};
RayBvhBox rayBvhBox(const shared::RayBvhNode& node, std::uint32_t c);

// The number of nodes on the longest path from the root down (1: the root alone).
std::uint32_t rayBvhDepth(const std::vector<shared::RayBvhNode>& nodes);

} // namespace rsim
