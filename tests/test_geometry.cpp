// SPDX-License-Identifier: MIT
// MODEL.md §1: subdivision, twins, degenerate triangles, Morton order and stable ids.
#include <algorithm>
#include <cmath>
#include <set>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include "support/test_scenes.h"
#include "util/error.h"

using namespace rsim;
using namespace rsim::test;

TEST_CASE("subdivision bounds every edge and preserves area and winding", "[geometry]") {
    SceneBuilder b;
    auto m = b.material("m", 0.5f);
    b.rectangle({0, 0, 0}, {3.0, 0, 0}, {0, 1.0, 0}, 1, 1, m);
    PreparedScene s = b.prepare(0.4);
    REQUIRE(s.size() > 2);
    double area = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        area += s.area[i];
        for (auto [p, q] : {std::pair{s.v0[i], s.v1[i]}, {s.v1[i], s.v2[i]}, {s.v2[i], s.v0[i]}})
            CHECK(glm::length(p - q) <= 0.4f + 1e-6f);
        CHECK(s.normal[i].z == Catch::Approx(1.0f)); // winding kept: all face +z
        glm::vec3 n = glm::cross(s.v1[i] - s.v0[i], s.v2[i] - s.v0[i]);
        CHECK(n.z > 0.0f);
    }
    CHECK(area == Catch::Approx(3.0).epsilon(1e-6));
    CHECK(s.counts.afterSubdivision == s.size());
    CHECK(s.counts.loaded == 2);
}

TEST_CASE("two-sided materials add reversed twins", "[geometry]") {
    SceneBuilder b;
    auto one = b.material("one", 0.5f, false);
    auto two = b.material("two", 0.5f, true);
    b.rectangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, 1, 1, one);
    b.rectangle({0, 0, 1}, {1, 0, 0}, {0, 1, 0}, 2, 1, two);
    PreparedScene s = b.prepare();
    CHECK(s.size() == 2 + 2 * 4);
    CHECK(s.counts.twins == 4);
    int up = 0, down = 0;
    for (std::size_t i = 0; i < s.size(); ++i) (s.normal[i].z > 0 ? up : down) += 1;
    CHECK(up == 6);
    CHECK(down == 4);
    // Each twin knows the other; one-sided triangles have none.
    std::size_t paired = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s.twin[i] == PreparedScene::kNoTwin) continue;
        ++paired;
        CHECK(s.twin[s.twin[i]] == i);
        CHECK(s.normal[s.twin[i]] == -s.normal[i]);
        CHECK(s.centroid[s.twin[i]] == s.centroid[i]);
    }
    CHECK(paired == 8);
}

TEST_CASE("degenerate triangles are dropped and counted", "[geometry]") {
    SceneBuilder b;
    auto m = b.material("m", 0.5f);
    b.rectangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, 1, 1, m);
    b.geometry.droppedDegenerate = 3; // as the loader would report them
    PreparedScene s = b.prepare();
    CHECK(s.counts.droppedDegenerate == 3);
    CHECK(s.size() == 2);
}

TEST_CASE("Morton order: ids are a permutation and neighbours are close", "[geometry]") {
    SceneBuilder b;
    auto m = b.material("m", 0.5f);
    b.roomShell({0, 0, 0}, {4, 3, 2.5}, 6, m);
    PreparedScene s = b.prepare();
    std::set<std::uint32_t> ids(s.id.begin(), s.id.end());
    CHECK(ids.size() == s.size());
    for (std::size_t i = 0; i < s.size(); ++i) CHECK(s.internalOf[s.id[i]] == i);
    // Locality: consecutive triangles are close. Against a shuffled order, Morton order should
    // cut the mean step between consecutive centroids several times (observed ~6x).
    double morton = 0.0;
    for (std::size_t i = 1; i < s.size(); ++i)
        morton += glm::length(s.centroid[i] - s.centroid[i - 1]);
    std::vector<std::size_t> shuffled(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) shuffled[i] = (i * 7919) % s.size();
    double random = 0.0;
    for (std::size_t k = 1; k < s.size(); ++k)
        random += glm::length(s.centroid[shuffled[k]] - s.centroid[shuffled[k - 1]]);
    CHECK(morton * 3.0 < random);
    CHECK(mortonCode(0, 0, 0) == 0);
    CHECK(mortonCode(1, 1, 1) == (1ULL << 63) - 1);
}

TEST_CASE("subdivision refuses to explode", "[geometry]") {
    SceneBuilder b;
    auto m = b.material("m", 0.5f);
    b.rectangle({0, 0, 0}, {100, 0, 0}, {0, 100, 0}, 1, 1, m);
    CHECK_THROWS_AS(prepareScene(b.geometry, 0.001, 10000), InputError);
}
