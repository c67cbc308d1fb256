// SPDX-License-Identifier: MIT
#include "geometry/edge_neighbours.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>

#include "rsim/shared/gpu_layout.h"

namespace rsim {

std::vector<glm::uvec3> edgeNeighbours(const PreparedScene& s) {
    struct Edge {
        std::array<float, 6> key; // the lower vertex first
        std::uint32_t triangle;
        std::uint32_t edge;
    };
    const std::size_t n = s.size();
    std::vector<Edge> edges;
    edges.reserve(3 * n);
    for (std::size_t t = 0; t < n; ++t) {
        const glm::vec3 v[3] = {s.v0[t], s.v1[t], s.v2[t]};
        for (std::uint32_t e = 0; e < 3; ++e) {
            glm::vec3 a = v[e], b = v[(e + 1) % 3];
            if (std::tie(b.x, b.y, b.z) < std::tie(a.x, a.y, a.z)) std::swap(a, b);
            edges.push_back({{a.x, a.y, a.z, b.x, b.y, b.z}, std::uint32_t(t), e});
        }
    }
    std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.key < y.key; });
    std::vector<glm::uvec3> out(n, glm::uvec3(shared::RSIM_NO_NEIGHBOUR));
    for (std::size_t a = 0; a < edges.size();) {
        std::size_t b = a + 1;
        while (b < edges.size() && edges[b].key == edges[a].key) ++b;
        // Exactly two triangles, not a two-sided triangle and its twin (the same surface).
        if (b - a == 2 && s.twin[edges[a].triangle] != edges[a + 1].triangle) {
            out[edges[a].triangle][int(edges[a].edge)] = edges[a + 1].triangle;
            out[edges[a + 1].triangle][int(edges[a + 1].edge)] = edges[a].triangle;
        }
        a = b;
    }
    return out;
}

} // namespace rsim
