// SPDX-License-Identifier: MIT
// The BVH over the scene's triangles that the shaft queries (the clear pairs, the tiles' lists)
// traverse (include/rsim/shared/shaft.h): built by Embree's generic builder into a flat binary
// node array that the CPU reads here; the shaders read its four-wide collapse (ray_bvh.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/prepared_scene.h"
#include "rsim/shared/shaft.h"
#include "rsim/shared/tile_shaft.h"

namespace rsim {

struct ShaftBvh {
    std::vector<shared::ShaftBvhNode> nodes;
    std::vector<std::uint32_t> prims; // internal triangle indices, as the leaves list them

    static ShaftBvh build(const PreparedScene& s);

    // Counts the triangles other than i and j that may meet the shaft's interior, stopping at
    // `limit` (1 answers "is the pair clear?").
    std::uint32_t candidates(const PreparedScene& s, const shared::Shaft& shaft, std::uint32_t i,
                             std::uint32_t j, float eps, std::uint32_t limit) const;
    // Calls visit(t) for each triangle t other than i and j that may meet the shaft's interior,
    // in traversal order, until visit returns false.
    template <class Visit>
    void forEachCandidate(const PreparedScene& s, const shared::Shaft& shaft, std::uint32_t i, std::uint32_t j,
                          float eps, Visit&& visit) const {
        traverse(
            [&](const shared::ShaftBvhNode& node) {
                return shared::rsimShaftExcludesBox(shaft, glm::vec3(node.loIndex), glm::vec3(node.hiCount), eps);
            },
            [&](std::uint32_t t) {
                if (t == i || t == j || shared::rsimShaftExcludes(shaft, s.tri(t), s.normal[t], eps)) return true;
                return bool(visit(t));
            });
    }
    // The same for a tile's shaft (tile_shaft.h): every triangle that may meet its interior.
    template <class Visit>
    void forEachTileCandidate(const PreparedScene& s, const shared::TileShaft& shaft, float eps, Visit&& visit) const {
        traverse(
            [&](const shared::ShaftBvhNode& node) {
                return shared::rsimTileShaftExcludesBox(shaft, glm::vec3(node.loIndex), glm::vec3(node.hiCount), eps);
            },
            [&](std::uint32_t t) {
                if (shared::rsimTileShaftExcludes(shaft, s.tri(t), eps)) return true;
                return bool(visit(t));
            });
    }
    // Depth-first over the nodes that boxOut(node) does not rule out, calling leaf(t) for the
    // triangles of their leaves until it returns false.
    template <class BoxOut, class Leaf> void traverse(BoxOut&& boxOut, Leaf&& leaf) const {
        std::uint32_t stack[shared::RSIM_SHAFT_BVH_MAX_DEPTH + 1];
        std::uint32_t top = 0, k = 0;
        for (;;) {
            const shared::ShaftBvhNode& node = nodes[k];
            if (!boxOut(node)) {
                if (!isLeaf(node)) {
                    stack[top++] = index(node); // the right child, after the left
                    ++k;
                    continue;
                }
                for (std::uint32_t p = index(node), end = p + count(node); p < end; ++p)
                    if (!leaf(prims[p])) return;
            }
            if (top == 0) return;
            k = stack[--top];
        }
    }
    // The bits of a node's index or count, stored in a float lane.
    static std::uint32_t bitsOf(float f) {
        std::uint32_t u;
        std::memcpy(&u, &f, sizeof u);
        return u;
    }
    // A node's layout: a leaf lists count > 0 triangles from prims[index]; an inner node's left
    // child follows it and its right child is at `index`.
    static bool isLeaf(const shared::ShaftBvhNode& n) { return bitsOf(n.hiCount.w) > 0; }
    static std::uint32_t index(const shared::ShaftBvhNode& n) { return bitsOf(n.loIndex.w); }
    static std::uint32_t count(const shared::ShaftBvhNode& n) { return bitsOf(n.hiCount.w); }

    std::size_t bytes() const { return nodes.size() * sizeof(nodes[0]) + prims.size() * 4; }

    // For the bvh ray path (RayBvhHeader, gpu_layout.h; its nodes: ray_bvh.h): the leaves'
    // triangles in leaf order.
    std::vector<glm::vec4> leafTriangles(const PreparedScene& s) const;
};

// The touching tolerance of the scene's shafts, m.
inline float shaftEps(const PreparedScene& s) { return shared::RSIM_SHAFT_TOL_REL * s.diagonal; }

// How far the bvh ray path widens its boxes, m: well beyond the edge tolerance of the triangle
// test (physics.h) and the rounding of the slab test, which takes lo / d - origin / d in one fused
// multiply-add (rsimRayBvhSlabs, gpu_layout.h) and so rounds in proportion to the coordinates'
// size as well as the box's (about 1e-7 of each), so that no ray a leaf would stop misses its box.
inline float rayBvhWiden(const PreparedScene& s) {
    const glm::vec3 far = glm::max(glm::abs(s.boundsMin), glm::abs(s.boundsMax));
    return 1e-5f * s.diagonal + 1e-6f * std::max({far.x, far.y, far.z});
}

} // namespace rsim
