// SPDX-License-Identifier: MIT
// Occluder lists of tiles of pairs (include/rsim/shared/tile_shaft.h, issue 18): a tile's list
// holds every triangle that blocks a segment between its two blocks, a convex room lists nothing,
// the list's segment test agrees with a double-precision one, and a GPU run that tests rays
// against the lists gets the K and results of one that traces every ray. The same for the
// blocker rounds (docs/model-choices.md, "A pair's blockers").
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "accel/tile_lists.h"
#include "support/segments.h"
#include "support/test_scenes.h"

using namespace rsim;
using namespace rsim::test;
using shared::Tri;

namespace {

glm::dvec3 pointOn(const Tri& t, double r1, double r2) {
    if (r1 + r2 > 1) r1 = 1 - r1, r2 = 1 - r2;
    return glm::dvec3(t.v0) + r1 * glm::dvec3(t.v1 - t.v0) + r2 * glm::dvec3(t.v2 - t.v0);
}

PreparedScene furnishedRoom() {
    SceneBuilder b;
    auto wall = b.material("wall", 0.6f);
    b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 4, wall);
    b.box({1.5, 1.0, 0.0}, {2.3, 1.8, 0.9}, 2, wall);
    b.box({0.4, 2.0, 0.8}, {0.9, 2.6, 1.1}, 1, wall);
    b.box({3.0, 0.3, 1.2}, {3.4, 0.6, 1.5}, 1, wall);
    return b.prepare(0.6);
}

// b's K and distances are a's but for rays that graze an edge, which an exact segment test and
// a tracer round differently.
void checkSameK(const SimulationResult& a, const SimulationResult& b) {
    CHECK(b.visibility.candidatePairs == a.visibility.candidatePairs);
    CHECK(b.visibility.raysCast == a.visibility.raysCast);
    REQUIRE(b.K.size() == a.K.size());
    std::size_t differ = 0, nonzero = 0;
    for (std::size_t k = 0; k < a.K.size(); ++k) {
        nonzero += a.K[k] != 0.0f;
        differ += std::abs(a.K[k] - b.K[k]) > 1e-5f * std::max(a.K[k], b.K[k]);
    }
    CAPTURE(differ, nonzero);
    CHECK(nonzero > 10000);
    CHECK(differ <= nonzero / 1000);
    std::size_t distances = 0;
    for (std::size_t i = 0; i < a.distance.size(); ++i)
        distances += !(std::abs(a.distance[i] - b.distance[i]) <= 1e-4) &&
                     !(std::isnan(a.distance[i]) && std::isnan(b.distance[i]));
    CHECK(distances <= a.distance.size() / 100);
}

} // namespace

TEST_CASE("a tile's occluder list holds every triangle that blocks a segment of its pairs", "[shared][tiles]") {
    const PreparedScene s = furnishedRoom();
    const ShaftBvh bvh = ShaftBvh::build(s);
    const float eps = shaftEps(s);
    const std::uint32_t n = std::uint32_t(s.size()), E = shared::RSIM_TILE_EDGE, blocks = (n + E - 1) / E;
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<std::uint32_t> pick(0, blocks - 1);
    std::size_t blocked = 0, segments = 0, listed = 0, tiles = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const std::uint32_t r0 = pick(rng) * E, c0 = pick(rng) * E;
        const std::uint32_t r1 = std::min(n, r0 + E), c1 = std::min(n, c0 + E);
        std::vector<std::uint32_t> list = tileCandidates(s, bvh, r0, r1, c0, c1, eps);
        std::sort(list.begin(), list.end());
        listed += list.size();
        ++tiles;
        for (std::uint32_t i = r0; i < r1; ++i)
            for (std::uint32_t j = c0; j < c1; ++j) {
                if (i == j || !shared::rsimCanFace(s.tri(i), s.normal[i], s.tri(j), s.normal[j])) continue;
                for (int k = 0; k < 4; ++k) {
                    const glm::dvec3 x = pointOn(s.tri(i), u(rng), u(rng)), y = pointOn(s.tri(j), u(rng), u(rng));
                    ++segments;
                    for (std::uint32_t t = 0; t < n; ++t) {
                        if (t == i || t == j || !segmentCrosses(x, y, s.tri(t), 1e-6)) continue;
                        ++blocked;
                        CAPTURE(trial, i, j, t);
                        REQUIRE(std::binary_search(list.begin(), list.end(), t));
                    }
                }
            }
    }
    CAPTURE(segments, blocked, tiles, listed, n);
    CHECK(blocked > 1000);                          // the test sees occluders
    CHECK(double(listed) / double(tiles) < n / 4.0); // and the lists cull
}

TEST_CASE("in a closed empty box no tile lists an occluder", "[shared][tiles]") {
    SceneBuilder b;
    auto wall = b.material("wall", 0.6f);
    b.roomShell({0, 0, 0}, {3.0, 2.0, 2.5}, 4, wall);
    const PreparedScene s = b.prepare(0.5);
    const ShaftBvh bvh = ShaftBvh::build(s);
    const float eps = shaftEps(s);
    const std::uint32_t n = std::uint32_t(s.size()), E = shared::RSIM_TILE_EDGE;
    REQUIRE(n > 200);
    for (std::uint32_t r0 = 0; r0 < n; r0 += E)
        for (std::uint32_t c0 = r0; c0 < n; c0 += E) {
            CAPTURE(r0, c0);
            REQUIRE(tileCandidates(s, bvh, r0, std::min(n, r0 + E), c0, std::min(n, c0 + E), eps).empty());
        }
}

TEST_CASE("a sample of tiles says which share of the facing pairs their lists take", "[tiles]") {
    SceneBuilder b;
    auto wall = b.material("wall", 0.6f);
    b.roomShell({0, 0, 0}, {3.0, 2.0, 2.5}, 4, wall);
    const PreparedScene box = b.prepare(0.5);
    CHECK(listedPairShare(box, ShaftBvh::build(box), 0, 256) == 1.0); // nothing can occlude
    const PreparedScene room = furnishedRoom();
    const ShaftBvh bvh = ShaftBvh::build(room);
    const double none = listedPairShare(room, bvh, 0, 256), some = listedPairShare(room, bvh, 16, 256),
                 most = listedPairShare(room, bvh, 256, 256);
    CAPTURE(none, some, most);
    CHECK(none < some);
    CHECK(some < most);
    CHECK(most > 0.9);
}

TEST_CASE("the lists' segment test agrees with double precision away from edges and ends", "[shared][tiles]") {
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    auto p = [&] { return glm::vec3(float(u(rng)), float(u(rng)), float(u(rng))); };
    int hits = 0, misses = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        const Tri t{p(), p(), p()};
        const glm::vec3 a = 2.0f * p(), b = 2.0f * p();
        shared::RaySegment seg;
        seg.origin = a;
        const float len = glm::length(b - a);
        if (!(len > 1e-3f)) continue;
        seg.dir = (b - a) / len;
        seg.tmin = 0.0f;
        seg.tmax = len;
        seg.weight = 1.0f;
        // Through the triangle's interior by a margin, away from the segment's ends...
        const bool inside = segmentCrosses(glm::dvec3(a), glm::dvec3(b), t, 1e-3);
        // ...or clear of it: the segment lengthened by 1% each way misses the triangle grown by a margin.
        const glm::dvec3 d = glm::dvec3(b) - glm::dvec3(a);
        const bool away = !segmentCrosses(glm::dvec3(a) - 0.01 * d, glm::dvec3(b) + 0.01 * d, t, -1e-3);
        const bool got = shared::rsimSegmentHits(seg, t.v0, t.v1, t.v2);
        CAPTURE(trial);
        if (inside) {
            REQUIRE(got);
            ++hits;
        }
        if (away) {
            REQUIRE_FALSE(got);
            ++misses;
        }
    }
    CHECK(hits > 300);
    CHECK(misses > 1000);
}

TEST_CASE("testing rays against the tiles' lists gives the K of tracing them", "[vulkan][tiles][agreement]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const PreparedScene s = furnishedRoom();
    SimConfig c = makeSimConfig(basicScene({0.3, 1.5, 1.2}, {4.0, 1.5, 1.2}));
    c.k.format = KFormat::Fp32;
    c.timesteps = 200;
    SimConfig traced = c;
    traced.k.tileListMax = 0;
    SimConfig listed = c;
    listed.k.tileListMax = 64;
    for (const std::string& path : vulkanPathsAvailable()) {
        CAPTURE(path);
        const SimulationResult a = simulate(path, s, traced);
        auto compare = [&](const SimulationResult& b) {
            CHECK(a.visibility.raysListed == 0);
            CHECK(b.visibility.raysListed > b.visibility.raysCast / 4);
            CHECK(b.visibility.raysListed < b.visibility.raysCast); // near pairs and long lists are traced
            CHECK(b.visibility.tilesListed > 0);
            CHECK(b.visibility.tilesLong > 0);
            checkSameK(a, b);
        };
        SECTION("one device, K in place") { compare(simulate(path, s, listed)); }
        SECTION("two slots of a device, K computed where it lives") {
            const auto two = makeTestBackend(path, [](BackendChoice& ch) { ch.devices = "0,0"; });
            compare(simulateOn(PhaseBackends::all(*two), s, listed));
        }
        SECTION("lists too short for most tiles: the run traces every ray") {
            SimConfig tight = c;
            tight.k.tileListMax = 1;
            const SimulationResult b = simulate(path, s, tight);
            CHECK(b.visibility.tilesListed == 0);
            CHECK(b.visibility.raysListed == 0);
            CHECK(b.K == a.K);
        }
    }
}

TEST_CASE("the blocker rounds give the K of tracing every ray", "[vulkan][tiles][agreement]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const PreparedScene s = furnishedRoom();
    SimConfig rounds = makeSimConfig(basicScene({0.3, 1.5, 1.2}, {4.0, 1.5, 1.2}));
    rounds.k.format = KFormat::Fp32;
    rounds.timesteps = 200;
    rounds.k.tileListMax = 0; // every pair traced: the rounds take them all
    SimConfig traced = rounds;
    traced.k.blockerRounds = false;
    for (const std::string& path : vulkanPathsAvailable()) {
        CAPTURE(path);
        const SimulationResult a = simulate(path, s, traced);
        CHECK(a.visibility.raysByBlockers == 0);
        auto compare = [&](const SimulationResult& b) {
            // Blockers answer some of the room's blocked rays (12% on lavapipe); a pair's first
            // ray is always traced.
            CHECK(b.visibility.raysByBlockers > b.visibility.raysCast / 20);
            CHECK(b.visibility.raysByBlockers < b.visibility.raysCast);
            checkSameK(a, b);
        };
        SECTION("one device, K in place") { compare(simulate(path, s, rounds)); }
        SECTION("two slots of a device") {
            const auto two = makeTestBackend(path, [](BackendChoice& ch) { ch.devices = "0,0"; });
            compare(simulateOn(PhaseBackends::all(*two), s, rounds));
        }
        SECTION("S above 32: S/2 + S/2 rays do not fit the rounds' 32 bits, so every ray is traced") {
            SimConfig many = rounds;
            many.k.samples = 34;
            CHECK(simulate(path, s, many).visibility.raysByBlockers == 0);
        }
    }
}
