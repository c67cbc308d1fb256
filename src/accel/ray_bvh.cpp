// SPDX-License-Identifier: MIT
#include "accel/ray_bvh.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace rsim {
namespace {

using shared::RayBvhNode;
using shared::ShaftBvhNode;

static_assert(shared::RSIM_RAY_BVH_MAX_DEPTH >= shared::RSIM_SHAFT_BVH_MAX_DEPTH,
              "the collapse never deepens the binary tree");

using Binary = ShaftBvh;
float halfArea(const ShaftBvhNode& n) {
    const glm::vec3 d = glm::max(glm::vec3(n.hiCount) - glm::vec3(n.loIndex), glm::vec3(0.0f));
    return d.x * d.y + d.y * d.z + d.z * d.x;
}

constexpr std::uint32_t kWidth = 4;

// Lane c of a node: child c's box and reference (gpu_layout.h).
void setLane(RayBvhNode& n, std::uint32_t c, glm::vec3 lo, glm::vec3 hi, std::uint32_t ref) {
    n.loX[c] = lo.x, n.loY[c] = lo.y, n.loZ[c] = lo.z;
    n.hiX[c] = hi.x, n.hiY[c] = hi.y, n.hiZ[c] = hi.z;
    n.child[c] = ref;
}

struct Collapse {
    const std::vector<ShaftBvhNode>& binary;
    float widen;
    std::vector<RayBvhNode> out;

    // The reference to binary node k's subtree: a leaf's, or the node written for it.
    std::uint32_t reference(std::uint32_t k) {
        const ShaftBvhNode& b = binary[k];
        if (!Binary::isLeaf(b)) return emit(widest(k));
        const std::uint32_t first = Binary::index(b), count = Binary::count(b);
        if (count > 7 || first >= (1u << 28))
            throw Error("internal: a ray BVH leaf of " + std::to_string(count) + " triangles from " + std::to_string(first));
        return shared::rsimRayBvhLeaf(first, count);
    }

    // Writes the node whose children are `children` (binary node indices) and, depth first, the
    // nodes below it; returns its index.
    std::uint32_t emit(const std::vector<std::uint32_t>& children) {
        const auto at = std::uint32_t(out.size());
        out.emplace_back();
        RayBvhNode node{};
        for (std::uint32_t c = 0; c < kWidth; ++c) {
            if (c >= children.size()) {
                setLane(node, c, glm::vec3(0.0f), glm::vec3(0.0f), shared::RSIM_RAY_BVH_EMPTY);
                continue;
            }
            const ShaftBvhNode& b = binary[children[c]];
            setLane(node, c, glm::vec3(b.loIndex) - widen, glm::vec3(b.hiCount) + widen, reference(children[c]));
        }
        out[at] = node;
        return at;
    }

    // Up to kWidth binary descendants that cover the binary inner node k's subtree: its two
    // children, then the inner one of largest surface area replaced by its two, while fewer than
    // kWidth.
    std::vector<std::uint32_t> widest(std::uint32_t k) const {
        std::vector<std::uint32_t> c{k + 1, Binary::index(binary[k])};
        while (c.size() < kWidth) {
            int best = -1;
            for (std::size_t m = 0; m < c.size(); ++m)
                if (!Binary::isLeaf(binary[c[m]]) && (best < 0 || halfArea(binary[c[m]]) > halfArea(binary[c[std::size_t(best)]])))
                    best = int(m);
            if (best < 0) break;
            const std::uint32_t split = c[std::size_t(best)];
            c[std::size_t(best)] = split + 1;
            c.push_back(Binary::index(binary[split]));
        }
        return c;
    }
};

} // namespace

std::vector<shared::RayBvhNode> rayBvhNodes(const ShaftBvh& bvh, float widen) {
    if (bvh.nodes.empty()) throw Error("internal: a ray BVH of no triangles");
    Collapse c{bvh.nodes, widen, {}};
    c.out.reserve(bvh.nodes.size() / 2 + 1);
    // A binary root that is a leaf becomes the one child of the root.
    c.emit(Binary::isLeaf(bvh.nodes[0]) ? std::vector<std::uint32_t>{0} : c.widest(0));
    if (rayBvhDepth(c.out) > shared::RSIM_RAY_BVH_MAX_DEPTH)
        throw Error("internal: the ray BVH is deeper than its traversal's stack allows");
    return c.out;
}

std::uint32_t rayBvhReference(const shared::RayBvhNode& n, std::uint32_t c) { return n.child[c]; }

RayBvhBox rayBvhBox(const shared::RayBvhNode& n, std::uint32_t c) {
    return {shared::rsimRayBvhLo(n, c), shared::rsimRayBvhHi(n, c)};
}

std::uint32_t rayBvhDepth(const std::vector<shared::RayBvhNode>& nodes) {
    // Children are written after their parent, so one pass from the back finds every depth.
    std::vector<std::uint32_t> depth(nodes.size(), 1);
    for (std::size_t k = nodes.size(); k-- > 0;)
        for (std::uint32_t c = 0; c < kWidth; ++c) {
            const std::uint32_t ref = rayBvhReference(nodes[k], c);
            if ((ref & shared::RSIM_RAY_BVH_LEAF) == 0) depth[k] = std::max(depth[k], 1 + depth[ref]);
        }
    return nodes.empty() ? 0 : depth[0];
}

} // namespace rsim
