// SPDX-License-Identifier: MIT
// Clear pairs (include/rsim/shared/shaft.h, MODEL.md §2's last paragraph): Lambert's polygon
// formula against a double-precision reference, the shaft test's conservativeness against
// brute-force rays, and K of scenes where every pair is clear against the catalogue and the
// closed box's row sums.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators_range.hpp>

#include "accel/shaft_bvh.h"
#include "rsim/shared/shaft.h"
#include "support/catalogue.h"
#include "support/segments.h"
#include "support/test_scenes.h"
#include "visibility/cpu_visibility.h"

using namespace rsim;
using namespace rsim::test;
using shared::Tri;

namespace {

// F from x (unit normal n) to the part of triangle t in front of x's plane, in double:
// Sutherland-Hodgman clipping, then Lambert's sum |sum_k angle_k n . unit(R_k x R_k+1)| / 2 pi.
double lambertRef(glm::dvec3 x, glm::dvec3 n, const Tri& t) {
    const glm::dvec3 in[3] = {glm::dvec3(t.v0), glm::dvec3(t.v1), glm::dvec3(t.v2)};
    std::vector<glm::dvec3> poly;
    for (int k = 0; k < 3; ++k) {
        const glm::dvec3 p = in[k], q = in[(k + 1) % 3];
        const double dp = glm::dot(n, p - x), dq = glm::dot(n, q - x);
        if (dp > 0) poly.push_back(p);
        if ((dp > 0) != (dq > 0)) poly.push_back(p + (q - p) * (dp / (dp - dq)));
    }
    double sum = 0.0;
    for (std::size_t k = 0; k < poly.size(); ++k) {
        const glm::dvec3 r0 = poly[k] - x, r1 = poly[(k + 1) % poly.size()] - x;
        const glm::dvec3 c = glm::cross(r0, r1);
        const double len = glm::length(c);
        if (len > 0.0) sum += std::atan2(len, glm::dot(r0, r1)) * glm::dot(n, c / len);
    }
    return std::abs(sum) / (2.0 * M_PI);
}

glm::vec3 normalOf(const Tri& t) { return glm::normalize(glm::cross(t.v1 - t.v0, t.v2 - t.v0)); }

shared::Shaft shaftOf(const Tri& a, const Tri& b, float eps) {
    return shared::rsimShaftBuild(a, normalOf(a), b, normalOf(b), eps);
}

double rowSum(const PreparedScene& s, const std::vector<float>& K, std::size_t i) {
    const std::size_t n = s.size();
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) sum += shared::rsimFormFactor(K[i * n + j], s.area[j]);
    return sum;
}

} // namespace

TEST_CASE("Lambert's polygon formula matches a double-precision reference", "[shared][clear]") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    int compared = 0;
    for (int trial = 0; trial < 4000; ++trial) {
        const Tri o{{u(rng), u(rng), u(rng) + 1.5f}, {u(rng), u(rng), u(rng) + 1.5f}, {u(rng), u(rng), u(rng) + 1.5f}};
        const glm::vec3 no = normalOf(o);
        const glm::vec3 x(0.3f * u(rng), 0.3f * u(rng), 0.0f);
        glm::vec3 n = glm::normalize(glm::vec3(0.5f * u(rng), 0.5f * u(rng), 1.0f));
        const float got = shared::rsimPolygonFormFactor(x, n, x, o, no);
        // o's back faces x: nothing; else Lambert over the front part.
        const double ref = glm::dot(glm::dvec3(no), glm::dvec3(x) - glm::dvec3(o.v0)) > 0.0
                               ? lambertRef(glm::dvec3(x), glm::dvec3(n), o)
                               : 0.0;
        CAPTURE(trial, got, ref);
        REQUIRE(std::abs(got - ref) <= 2e-5 + 1e-4 * ref);
        compared += ref > 0.0;
    }
    CHECK(compared > 1000);
    // A small square's two triangles straight above, against the disk-like limit A cos^2 / (pi r^2).
    const Tri t1{{-0.01f, -0.01f, 2.0f}, {-0.01f, 0.01f, 2.0f}, {0.01f, 0.01f, 2.0f}};
    const Tri t2{{-0.01f, -0.01f, 2.0f}, {0.01f, 0.01f, 2.0f}, {0.01f, -0.01f, 2.0f}};
    const glm::vec3 up(0, 0, 1), x(0, 0, 0);
    const double f = shared::rsimPolygonFormFactor(x, up, x, t1, normalOf(t1)) +
                     shared::rsimPolygonFormFactor(x, up, x, t2, normalOf(t2));
    CHECK(std::abs(f - 4e-4 / (M_PI * 4.0)) < 1e-3 * f);
}

TEST_CASE("the shaft test never misses a triangle that blocks a segment of the pair", "[shared][clear]") {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    auto randomTri = [&](glm::dvec3 c, double size) {
        auto p = [&] { return glm::vec3(c + size * glm::dvec3(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5)); };
        return Tri{p(), p(), p()};
    };
    const float eps = 1e-7f;
    int blocking = 0, excludedFree = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const Tri a = randomTri({0, 0, 0}, 1.0), b = randomTri({0, 0, 2.0}, 1.0);
        if (!shared::rsimCanFace(a, normalOf(a), b, normalOf(b))) continue;
        const shared::Shaft sh = shaftOf(a, b, eps);
        const Tri k = randomTri({u(rng) - 0.5, u(rng) - 0.5, 1.0 + 2.0 * (u(rng) - 0.5)}, 0.3 + u(rng));
        // Brute force: segments between points of a and b.
        bool blocks = false;
        for (int s = 0; s < 200 && !blocks; ++s) {
            double r1 = u(rng), r2 = u(rng), q1 = u(rng), q2 = u(rng);
            if (r1 + r2 > 1) r1 = 1 - r1, r2 = 1 - r2;
            if (q1 + q2 > 1) q1 = 1 - q1, q2 = 1 - q2;
            const glm::dvec3 x = glm::dvec3(a.v0) + r1 * glm::dvec3(a.v1 - a.v0) + r2 * glm::dvec3(a.v2 - a.v0);
            const glm::dvec3 y = glm::dvec3(b.v0) + q1 * glm::dvec3(b.v1 - b.v0) + q2 * glm::dvec3(b.v2 - b.v0);
            blocks = segmentCrosses(x, y, k, 1e-9);
        }
        const bool excluded = shared::rsimShaftExcludes(sh, k, normalOf(k), eps);
        CAPTURE(trial);
        if (blocks) {
            ++blocking;
            REQUIRE_FALSE(excluded);
        } else {
            excludedFree += excluded;
        }
        // A box around k is excluded only if k is.
        const glm::vec3 lo = glm::min(glm::min(k.v0, k.v1), k.v2), hi = glm::max(glm::max(k.v0, k.v1), k.v2);
        if (shared::rsimShaftExcludesBox(sh, lo, hi, eps)) REQUIRE(excluded);
    }
    CHECK(blocking > 200);
    CHECK(excludedFree > 200); // the test does cull
}

TEST_CASE("coplanar neighbours, twins and triangles touching a shaft's boundary are not candidates",
          "[shared][clear]") {
    const float eps = 1e-7f;
    // Floor cell and a wall cell sharing the edge y in [0, 1] at x = 0.
    const Tri floor{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};  // normal +z
    const Tri wall{{0, 0, 0}, {0, 1, 0}, {0, 0, 1}};   // normal +x
    const shared::Shaft sh = shaftOf(floor, wall, eps);
    // The floor's neighbour across its diagonal, coplanar: touches the shaft along an edge.
    const Tri neighbour{{1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    CHECK(shared::rsimShaftExcludes(sh, neighbour, normalOf(neighbour), eps));
    // The floor's reversed twin (a two-sided material).
    const Tri twin{floor.v0, floor.v2, floor.v1};
    CHECK(shared::rsimShaftExcludes(sh, twin, normalOf(twin), eps));
    // The side wall y = 0 (normal +y) meets the shaft only on its boundary.
    const Tri side{{0, 0, 0}, {0, 0, 1}, {1, 0, 0}};
    CHECK(shared::rsimShaftExcludes(sh, side, normalOf(side), eps));
    // A small tile leaning across the corner occludes.
    const Tri lean{{0.3f, 0.2f, 0.0f}, {0.3f, 0.6f, 0.0f}, {0.0f, 0.4f, 0.3f}};
    CHECK_FALSE(shared::rsimShaftExcludes(sh, lean, normalOf(lean), eps));
    // Far away: out by the bounding box.
    const Tri far{{5, 5, 5}, {6, 5, 5}, {5, 6, 5}};
    CHECK(shared::rsimShaftExcludes(sh, far, normalOf(far), eps));
}

TEST_CASE("the shaft BVH finds exactly the candidates that brute force finds", "[clear]") {
    SceneBuilder b;
    auto wall = b.material("wall", 0.6f);
    b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 4, wall);
    b.box({1.5, 1.0, 0.0}, {2.3, 1.8, 0.9}, 2, wall);
    const PreparedScene s = b.prepare();
    const ShaftBvh bvh = ShaftBvh::build(s);
    REQUIRE(bvh.prims.size() == s.size());
    const float eps = shaftEps(s);
    const std::size_t n = s.size();
    std::size_t pairs = 0, clear = 0;
    for (std::size_t i = 0; i < n; i += 3)
        for (std::size_t j = i + 1; j < n; j += 2) {
            if (!shared::rsimCanFace(s.tri(i), s.normal[i], s.tri(j), s.normal[j])) continue;
            const shared::Shaft sh = shared::rsimShaftBuild(s.tri(i), s.normal[i], s.tri(j), s.normal[j], eps);
            std::uint32_t brute = 0;
            for (std::size_t k = 0; k < n; ++k)
                if (k != i && k != j && !shared::rsimShaftExcludes(sh, s.tri(k), s.normal[k], eps)) ++brute;
            REQUIRE(bvh.candidates(s, sh, std::uint32_t(i), std::uint32_t(j), eps, 1u << 30) == brute);
            ++pairs;
            clear += brute == 0;
        }
    CAPTURE(pairs, clear);
    CHECK(clear > pairs / 10);  // the room's walls see each other past the box
    CHECK(clear < pairs);       // and the box hides some
}

TEST_CASE("clear pairs: catalogue view factors within 0.5% and a closed box's rows within 0.5% of 1",
          "[invariants][clear]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);
    SECTION("closed empty box: every pair clear, no rays") {
        SceneBuilder b;
        auto wall = b.material("wall", 0.5f);
        b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 3, wall);
        const PreparedScene s = b.prepare();
        const SceneDesc d = basicScene({0.3, 1.5, 1.2}, {4.0, 1.5, 1.2});
        SimConfig c = makeSimConfig(d);
        c.k.clearPairsByFormula = true;
        c.k.format = KFormat::Fp32; // the estimator's error, not the compression's
        const SimulationResult r = simulate(backend, s, c);
        CHECK(r.visibility.clearPairs == r.visibility.candidatePairs);
        CHECK(r.visibility.raysCast == 0);
        double worst = 0.0;
        for (std::size_t i = 0; i < s.size(); ++i) worst = std::max(worst, std::abs(rowSum(s, r.K, i) - 1.0));
        CAPTURE(worst);
        // The quadrature's error (observed 2.5e-4 on the CPU); the issue asks for 0.5%.
        CHECK(worst <= 0.001);
    }
    // The scenes of invariant 1, held to 0.5% instead of 1% (K in fp32; every pair is clear).
    auto groupFactor = [&](const SceneBuilder& b, std::uint32_t from, std::uint32_t to) {
        const PreparedScene s = b.prepare();
        SimConfig c = makeSimConfig(basicScene({0.5, 0.3, 0.4}, {0.5, 0.3, 0.0}));
        c.k.clearPairsByFormula = true;
        c.k.format = KFormat::Fp32;
        const SimulationResult r = simulate(backend, s, c);
        CHECK(r.visibility.raysCast == 0);
        return std::pair{groupViewFactor(s, r.K, from, to), groupViewFactor(s, r.K, to, from)};
    };
    SECTION("perpendicular rectangles with a common edge") {
        SceneBuilder b;
        auto m = b.material("m", 0.5f);
        b.group = 0;
        b.rectangle({0, 0, 0}, {1.0, 0, 0}, {0, 0.8, 0}, 10, 8, m); // floor, normal +z
        b.group = 1;
        b.rectangle({0, 0, 0}, {0, 0.8, 0}, {0, 0, 0.6}, 8, 6, m); // wall, normal +x
        const auto [got, back] = groupFactor(b, 0, 1);
        const double expected = perpendicularRectangles(1.0, 0.6, 0.8), expectedBack = perpendicularRectangles(0.6, 1.0, 0.8);
        CAPTURE(got, expected, back, expectedBack);
        CHECK(std::abs(got - expected) < 0.005 * expected);
        CHECK(std::abs(back - expectedBack) < 0.005 * expectedBack);
    }
    SECTION("coaxial parallel disks") {
        SceneBuilder b;
        auto m = b.material("m", 0.5f);
        b.group = 0;
        b.disk({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, 0.5, 4, 48, m);
        b.group = 1;
        b.disk({0, 0, 0.4}, {0, 1, 0}, {1, 0, 0}, 0.3, 4, 48, m);
        const auto [got, back] = groupFactor(b, 0, 1);
        const double expected = coaxialDisks(0.5, 0.3, 0.4);
        CAPTURE(got, expected);
        // The 48-gons have the disks' areas, not their shapes: the catalogue value is the disks'.
        CHECK(std::abs(got - expected) < 0.005 * expected);
    }
}

TEST_CASE("at any point of a closed box, Lambert's F(x -> j) over all triangles sum to 1", "[shared][clear]") {
    SceneBuilder b;
    auto wall = b.material("wall", 0.5f);
    b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 3, wall);
    const PreparedScene s = b.prepare();
    double worst = 0.0;
    for (std::size_t i = 0; i < s.size(); ++i)
        for (std::uint32_t p = 0; p < 64; ++p) {
            const glm::vec4 u = shared::rsimR4Point(p, glm::vec4(0.1f * float(i % 7)));
            const glm::vec3 x = shared::rsimPointOnTriangle(s.tri(i), glm::vec2(u.x, u.y));
            double sum = 0.0;
            for (std::size_t j = 0; j < s.size(); ++j)
                if (j != i) sum += shared::rsimPolygonFormFactor(x, s.normal[i], s.v0[i], s.tri(j), s.normal[j]);
            worst = std::max(worst, std::abs(sum - 1.0));
        }
    CAPTURE(worst);
    CHECK(worst < 1e-4);
}

TEST_CASE("the clear-pair classification is identical on every backend", "[clear][agreement]") {
    SceneBuilder b;
    auto wall = b.material("wall", 0.6f);
    b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 4, wall);
    b.box({1.5, 1.0, 0.0}, {2.3, 1.8, 0.9}, 2, wall);
    b.box({0.4, 2.0, 0.8}, {0.9, 2.6, 1.1}, 1, wall);
    const PreparedScene s = b.prepare(0.6);
    SimConfig c = makeSimConfig(basicScene({0.3, 1.5, 1.2}, {4.0, 1.5, 1.2}));
    c.k.clearPairsByFormula = true;
    const SimulationResult cpu = simulate("cpu", s, c);
    CHECK(cpu.visibility.clearPairs > 0);
    CHECK(cpu.visibility.clearPairs < cpu.visibility.candidatePairs);
    for (const std::string& backend : vulkanPathsAvailable()) {
        CAPTURE(backend);
        const SimulationResult gpu = simulate(backend, s, c);
        CHECK(gpu.visibility.candidatePairs == cpu.visibility.candidatePairs);
        CHECK(gpu.visibility.clearPairs == cpu.visibility.clearPairs);
    }
}
