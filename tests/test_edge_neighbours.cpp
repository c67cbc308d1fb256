// SPDX-License-Identifier: MIT
// Each triangle's neighbours across its edges (geometry/edge_neighbours.h), which the blocker
// rounds test beside a ray's blocker.
#include <catch2/catch_test_macros.hpp>

#include "geometry/edge_neighbours.h"
#include "rsim/shared/gpu_layout.h"
#include "support/test_scenes.h"

using namespace rsim;
using namespace rsim::test;

namespace {
// The vertices of triangle t's edge e (v0v1, v1v2, v2v0).
std::pair<glm::vec3, glm::vec3> edgeOf(const PreparedScene& s, std::uint32_t t, int e) {
    const glm::vec3 v[3] = {s.v0[t], s.v1[t], s.v2[t]};
    return {v[e], v[(e + 1) % 3]};
}

std::size_t links(const std::vector<glm::uvec3>& nb) {
    std::size_t count = 0;
    for (const glm::uvec3& t : nb)
        for (int e = 0; e < 3; ++e) count += t[e] != shared::RSIM_NO_NEIGHBOUR;
    return count;
}
} // namespace

TEST_CASE("a closed box's triangles each have three neighbours, which share their edges", "[geometry]") {
    SceneBuilder b;
    b.box({0, 0, 0}, {1, 2, 3}, 2, b.material("m", 0.5f));
    const PreparedScene s = b.prepare(0.6); // subdivided: the halves of a split edge still meet
    const std::vector<glm::uvec3> nb = edgeNeighbours(s);
    REQUIRE(nb.size() == s.size());
    CHECK(links(nb) == 3 * s.size());
    for (std::uint32_t t = 0; t < s.size(); ++t)
        for (int e = 0; e < 3; ++e) {
            const std::uint32_t u = nb[t][e];
            REQUIRE(u != shared::RSIM_NO_NEIGHBOUR);
            CHECK(u != t);
            const auto [a, c] = edgeOf(s, t, e);
            bool back = false; // u names t across the same two vertices
            for (int f = 0; f < 3; ++f) {
                const auto [p, q] = edgeOf(s, u, f);
                back = back || (nb[u][f] == t && ((p == a && q == c) || (p == c && q == a)));
            }
            CHECK(back);
        }
}

TEST_CASE("open edges, twins and fans have no neighbour", "[geometry]") {
    SceneBuilder b;
    const auto one = b.material("one", 0.5f, false);
    const auto two = b.material("two", 0.5f, true);
    b.triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, one); // alone: three open edges
    // Three triangles on one edge (a fan): none of them has a neighbour there.
    b.triangle({0, 0, 5}, {1, 0, 5}, {0, 1, 5}, one);
    b.triangle({1, 0, 5}, {0, 0, 5}, {0, -1, 5}, one);
    b.triangle({0, 0, 5}, {1, 0, 5}, {0, 0, 6}, one);
    // A two-sided square: each edge between its triangles is shared by them and their twins.
    b.rectangle({0, 0, 9}, {1, 0, 0}, {0, 1, 0}, 1, 1, two);
    const PreparedScene s = b.prepare();
    CHECK(links(edgeNeighbours(s)) == 0);
}

TEST_CASE("a one-sided grid links the triangles inside it", "[geometry]") {
    SceneBuilder b;
    b.rectangle({0, 0, 0}, {2, 0, 0}, {0, 2, 0}, 2, 2, b.material("m", 0.5f));
    const PreparedScene s = b.prepare();
    REQUIRE(s.size() == 8);
    // 2 x 2 cells of two triangles: 4 diagonals and 4 inner grid edges, each linked both ways.
    CHECK(links(edgeNeighbours(s)) == 16);
}
