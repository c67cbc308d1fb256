// SPDX-License-Identifier: MIT
#include "accel/shaft_bvh.h"

#include <cstring>
#include <string>

#include <embree3/rtcore.h>

#include "util/error.h"

namespace rsim {
namespace {

// Embree's builder calls back to create these; they live in its thread-local allocator until the
// tree is flattened.
struct BuildNode {
    BuildNode* child[2] = {nullptr, nullptr};
    RTCBounds bounds[2] = {};
    const std::uint32_t* prims = nullptr; // a leaf's triangles
    std::uint32_t count = 0;              // > 0 for a leaf
};

void* createNode(RTCThreadLocalAllocator alloc, unsigned int, void*) {
    return new (rtcThreadLocalAlloc(alloc, sizeof(BuildNode), 16)) BuildNode();
}
void setChildren(void* node, void** children, unsigned int count, void*) {
    for (unsigned k = 0; k < count && k < 2; ++k) static_cast<BuildNode*>(node)->child[k] = static_cast<BuildNode*>(children[k]);
}
void setBounds(void* node, const RTCBounds** bounds, unsigned int count, void*) {
    for (unsigned k = 0; k < count && k < 2; ++k) static_cast<BuildNode*>(node)->bounds[k] = *bounds[k];
}
void* createLeaf(RTCThreadLocalAllocator alloc, const RTCBuildPrimitive* p, size_t count, void*) {
    auto* leaf = new (rtcThreadLocalAlloc(alloc, sizeof(BuildNode), 16)) BuildNode();
    auto* ids = static_cast<std::uint32_t*>(rtcThreadLocalAlloc(alloc, count * 4, 4));
    for (size_t k = 0; k < count; ++k) ids[k] = p[k].primID;
    leaf->prims = ids;
    leaf->count = std::uint32_t(count);
    return leaf;
}

float asFloat(std::uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// Depth first: a node's left child follows it, its right child's index is stored.
void flatten(const BuildNode* b, const RTCBounds& box, ShaftBvh& out) {
    const std::size_t at = out.nodes.size();
    out.nodes.push_back({glm::vec4(box.lower_x, box.lower_y, box.lower_z, 0.0f),
                         glm::vec4(box.upper_x, box.upper_y, box.upper_z, 0.0f)});
    if (b->count > 0) {
        out.nodes[at].loIndex.w = asFloat(std::uint32_t(out.prims.size()));
        out.nodes[at].hiCount.w = asFloat(b->count);
        out.prims.insert(out.prims.end(), b->prims, b->prims + b->count);
        return;
    }
    flatten(b->child[0], b->bounds[0], out);
    out.nodes[at].loIndex.w = asFloat(std::uint32_t(out.nodes.size()));
    flatten(b->child[1], b->bounds[1], out);
}

} // namespace

ShaftBvh ShaftBvh::build(const PreparedScene& s) {
    const std::size_t n = s.size();
    std::vector<RTCBuildPrimitive> prims(n);
    RTCBounds all{};
    all.lower_x = all.lower_y = all.lower_z = 3e38f;
    all.upper_x = all.upper_y = all.upper_z = -3e38f;
    for (std::size_t i = 0; i < n; ++i) {
        const glm::vec3 lo = glm::min(glm::min(s.v0[i], s.v1[i]), s.v2[i]);
        const glm::vec3 hi = glm::max(glm::max(s.v0[i], s.v1[i]), s.v2[i]);
        prims[i] = RTCBuildPrimitive{lo.x, lo.y, lo.z, 0u, hi.x, hi.y, hi.z, std::uint32_t(i)};
        all.lower_x = std::min(all.lower_x, lo.x);
        all.lower_y = std::min(all.lower_y, lo.y);
        all.lower_z = std::min(all.lower_z, lo.z);
        all.upper_x = std::max(all.upper_x, hi.x);
        all.upper_y = std::max(all.upper_y, hi.y);
        all.upper_z = std::max(all.upper_z, hi.z);
    }
    RTCDevice device = rtcNewDevice("threads=0");
    if (!device) throw Error("Embree: cannot create a device for the shaft BVH");
    RTCBVH bvh = rtcNewBVH(device);
    RTCBuildArguments args = rtcDefaultBuildArguments();
    args.buildQuality = RTC_BUILD_QUALITY_MEDIUM;
    args.maxBranchingFactor = 2;
    args.maxDepth = shared::RSIM_SHAFT_BVH_MAX_DEPTH;
    // Leaves of at most 2 triangles: the bvh ray path's traced pairs and the tiles' queries took
    // 1.5-3% and 12-19% less device time than with 4 (docs/benchmarks.md, "Visibility settings
    // chosen by measurement"); the structure changes no verdict, so K is the same.
    args.maxLeafSize = 2;
    args.bvh = bvh;
    args.primitives = prims.data();
    args.primitiveCount = n;
    args.primitiveArrayCapacity = n;
    args.createNode = createNode;
    args.setNodeChildren = setChildren;
    args.setNodeBounds = setBounds;
    args.createLeaf = createLeaf;
    auto* root = static_cast<BuildNode*>(rtcBuildBVH(&args));
    ShaftBvh out;
    if (root) {
        out.nodes.reserve(2 * n / 2 + 1);
        out.prims.reserve(n);
        flatten(root, all, out);
    }
    rtcReleaseBVH(bvh);
    const RTCError err = rtcGetDeviceError(device);
    rtcReleaseDevice(device);
    if (!root || err != RTC_ERROR_NONE || out.prims.size() != n)
        throw Error("Embree: building the shaft BVH failed (error " + std::to_string(int(err)) + ")");
    return out;
}

std::vector<glm::vec4> ShaftBvh::leafTriangles(const PreparedScene& s) const {
    std::vector<glm::vec4> out;
    out.reserve(3 * prims.size());
    for (const std::uint32_t t : prims) {
        out.emplace_back(s.v0[t], asFloat(t));
        out.emplace_back(s.v1[t], 0.0f);
        out.emplace_back(s.v2[t], 0.0f);
    }
    return out;
}

std::uint32_t ShaftBvh::candidates(const PreparedScene& s, const shared::Shaft& shaft, std::uint32_t i,
                                   std::uint32_t j, float eps, std::uint32_t limit) const {
    std::uint32_t found = 0;
    forEachCandidate(s, shaft, i, j, eps, [&](std::uint32_t) { return ++found < limit; });
    return found;
}

} // namespace rsim
