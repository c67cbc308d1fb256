// SPDX-License-Identifier: MIT
// The bvh ray path's BVH (src/accel/ray_bvh.h), made from the shaft queries' binary one: every
// triangle sits in exactly one leaf, every box holds what lies below it (widened), the tree is no
// deeper than the binary one and fits the traversal's stack, and a walk of it finds every
// triangle a segment meets, as brute force does. The GPU's walk of it is checked by the ray
// paths' agreement tests ("vulkan-bvh").
#include <algorithm>
#include <random>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "accel/ray_bvh.h"
#include "rsim/shared/physics.h"
#include "support/test_scenes.h"

using namespace rsim;
using namespace rsim::test;
using shared::RayBvhNode;

namespace {

// A room with boxes in it, its corner at `at`.
PreparedScene clutteredRoom(glm::dvec3 at = glm::dvec3(0.0)) {
    SceneBuilder b;
    auto wall = b.material("wall", 0.6f);
    b.roomShell(at, at + glm::dvec3(4.0, 3.0, 2.5), 6, wall);
    for (int k = 0; k < 12; ++k) {
        const glm::dvec3 lo = at + glm::dvec3(0.3 + 0.3 * k, 0.2 + 0.22 * k, 0.1 * (k % 5));
        b.box(lo, lo + glm::dvec3(0.25, 0.3, 0.2 + 0.05 * k), 2, wall);
    }
    return b.prepare(0.3);
}

// The depth of the binary tree below node k.
std::uint32_t binaryDepth(const ShaftBvh& bvh, std::uint32_t k) {
    if (ShaftBvh::isLeaf(bvh.nodes[k])) return 1;
    return 1 + std::max(binaryDepth(bvh, k + 1), binaryDepth(bvh, ShaftBvh::index(bvh.nodes[k])));
}

constexpr std::uint32_t kWidth = 4;
bool isLeaf(std::uint32_t ref) { return ref != shared::RSIM_RAY_BVH_EMPTY && (ref & shared::RSIM_RAY_BVH_LEAF) != 0; }
bool isNode(std::uint32_t ref) { return (ref & shared::RSIM_RAY_BVH_LEAF) == 0; }

bool inside(const RayBvhBox& b, glm::vec3 p) { return glm::all(glm::greaterThanEqual(p, b.lo)) && glm::all(glm::lessThanEqual(p, b.hi)); }

// The leaf triangles (positions in leaf order) below the reference.
void leavesBelow(const std::vector<RayBvhNode>& nodes, std::uint32_t ref, std::vector<std::uint32_t>& out) {
    if (isLeaf(ref)) {
        const std::uint32_t first = shared::rsimRayBvhLeafFirst(ref);
        for (std::uint32_t p = first; p < first + shared::rsimRayBvhLeafCount(ref); ++p) out.push_back(p);
    } else if (isNode(ref)) {
        for (std::uint32_t c = 0; c < kWidth; ++c) leavesBelow(nodes, rayBvhReference(nodes[ref], c), out);
    }
}

// The triangles (leaf positions) a segment meets, by a walk of every child whose box it enters
// (the shader's slab test, gpu_layout.h).
void walk(const std::vector<RayBvhNode>& nodes, const std::vector<glm::vec4>& tris, const shared::RaySegment& s,
          std::uint32_t k, std::vector<std::uint32_t>& hits) {
    const glm::vec3 inv = shared::rsimRayBvhInverse(s.dir);
    const shared::RayBvhSlabs slabs = shared::rsimRayBvhSlabs(nodes[k], inv, s.origin * inv, s.tmin, s.tmax);
    for (std::uint32_t c = 0; c < kWidth; ++c) {
        const std::uint32_t ref = rayBvhReference(nodes[k], c);
        if (ref == shared::RSIM_RAY_BVH_EMPTY || slabs.entry[c] > slabs.exit[c]) continue;
        if (isNode(ref)) {
            walk(nodes, tris, s, ref, hits);
            continue;
        }
        std::vector<std::uint32_t> leaf;
        leavesBelow(nodes, ref, leaf);
        for (std::uint32_t p : leaf)
            if (shared::rsimSegmentHits(s, tris[3 * p], tris[3 * p + 1], tris[3 * p + 2])) hits.push_back(p);
    }
}

void checkCollapse(const PreparedScene& s) {
    const ShaftBvh bvh = ShaftBvh::build(s);
    const float widen = rayBvhWiden(s);
    const std::vector<RayBvhNode> nodes = rayBvhNodes(bvh, widen);
    const std::vector<glm::vec4> tris = bvh.leafTriangles(s);
    CAPTURE(s.size(), bvh.nodes.size(), nodes.size());
    REQUIRE(!nodes.empty());
    CHECK(nodes.size() <= bvh.nodes.size());
    CHECK(rayBvhDepth(nodes) <= binaryDepth(bvh, 0));
    CHECK(rayBvhDepth(nodes) <= shared::RSIM_RAY_BVH_MAX_DEPTH);

    // Every triangle in exactly one leaf, inside every box above it.
    std::vector<int> seen(bvh.prims.size(), 0);
    std::size_t boxMisses = 0, wrongChildren = 0;
    for (std::uint32_t k = 0; k < nodes.size(); ++k)
        for (std::uint32_t c = 0; c < kWidth; ++c) {
            const std::uint32_t ref = rayBvhReference(nodes[k], c);
            if (isNode(ref) && ref <= k) ++wrongChildren; // children follow their parent
            std::vector<std::uint32_t> below;
            leavesBelow(nodes, ref, below);
            for (std::uint32_t p : below) {
                if (isLeaf(ref)) ++seen[p];
                const std::uint32_t t = bvh.prims[p];
                for (const glm::vec3 v : {s.v0[t], s.v1[t], s.v2[t]}) boxMisses += !inside(rayBvhBox(nodes[k], c), v);
            }
        }
    CHECK(wrongChildren == 0);
    CHECK(boxMisses == 0);
    CHECK(std::count(seen.begin(), seen.end(), 1) == std::ptrdiff_t(seen.size()));
    CHECK(seen.size() == s.size());

    // Segments between random points of random triangles: the walk finds what brute force finds.
    std::mt19937 rng(7);
    std::uniform_int_distribution<std::size_t> pick(0, s.size() - 1);
    std::uniform_real_distribution<float> u(0.05f, 0.45f);
    std::size_t segments = 0, blocked = 0, differ = 0;
    for (int r = 0; r < 2000; ++r) {
        const std::size_t a = pick(rng), b = pick(rng);
        if (a == b) continue;
        const glm::vec3 pa = s.v0[a] + u(rng) * (s.v1[a] - s.v0[a]) + u(rng) * (s.v2[a] - s.v0[a]);
        const glm::vec3 pb = s.v0[b] + u(rng) * (s.v1[b] - s.v0[b]) + u(rng) * (s.v2[b] - s.v0[b]);
        const float len = glm::length(pb - pa);
        if (len < 1e-3f) continue;
        shared::RaySegment seg{pa, (pb - pa) / len, 1e-3f, len - 1e-3f, 1.0f};
        std::vector<std::uint32_t> found, brute;
        walk(nodes, tris, seg, 0, found);
        for (std::uint32_t p = 0; p < bvh.prims.size(); ++p) {
            const std::uint32_t t = bvh.prims[p];
            if (shared::rsimSegmentHits(seg, s.v0[t], s.v1[t], s.v2[t])) brute.push_back(p);
        }
        std::sort(found.begin(), found.end());
        ++segments;
        blocked += !brute.empty();
        differ += found != brute;
    }
    CAPTURE(segments, blocked);
    CHECK(segments > 1500);
    CHECK(blocked > segments / 10);
    CHECK(differ == 0);
}

} // namespace

TEST_CASE("the ray BVH holds every triangle once, in boxes that hold them", "[accel][bvh]") {
    SECTION("at the origin") { checkCollapse(clutteredRoom()); }
    // The slabs' fused multiply-add rounds in proportion to the coordinates: the boxes' widening
    // must cover it where the scene is small against its distance from the origin.
    SECTION("4 km from the origin") { checkCollapse(clutteredRoom({3000.0, -2500.0, 800.0})); }
}

TEST_CASE("the ray BVH of one triangle is a root with one leaf", "[accel][bvh]") {
    SceneBuilder b;
    auto wall = b.material("wall", 0.5f);
    b.triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, wall);
    const PreparedScene s = b.prepare();
    REQUIRE(s.size() == 1);
    const std::vector<RayBvhNode> nodes = rayBvhNodes(ShaftBvh::build(s), rayBvhWiden(s));
    REQUIRE(nodes.size() == 1);
    CHECK(rayBvhReference(nodes[0], 0) == shared::rsimRayBvhLeaf(0, 1));
    for (std::uint32_t c = 1; c < kWidth; ++c) CHECK(rayBvhReference(nodes[0], c) == shared::RSIM_RAY_BVH_EMPTY);
    CHECK(rayBvhDepth(nodes) == 1);
}
