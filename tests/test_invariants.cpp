// SPDX-License-Identifier: MIT
// The invariants of MODEL.md §7 (all but backend agreement, which test_backend_agreement.cpp
// covers), run on every backend available here. Each tolerance says why it is what it is.
#include <algorithm>
#include <cmath>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators_range.hpp>

#include <nlohmann/json.hpp>

#include "accel/embree_scene.h"
#include "visibility/cpu_visibility.h"
#include "support/catalogue.h"
#include "support/run_command.h"
#include "support/test_scenes.h"

using namespace rsim;
using namespace rsim::test;

namespace {

SimConfig configFor(const SceneDesc& d) { return makeSimConfig(d); }

// The scene default of simulation.samples, which the tightened invariants are held to.
const std::uint32_t kDefaultSamples = SimulationSettings{}.samples;

} // namespace

TEST_CASE("invariant 1: view factors converge to catalogue values", "[invariants][kernel]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);

    SECTION("directly opposed parallel rectangles") {
        // 1.0 x 0.6 m rectangles 0.8 m apart, 8 x 6 cells of two triangles each.
        SceneBuilder b;
        auto m = b.material("m", 0.5f);
        b.group = 0;
        b.rectangle({0, 0, 0}, {1.0, 0, 0}, {0, 0.6, 0}, 8, 6, m); // normal +z
        b.group = 1;
        b.rectangle({0, 0, 0.8}, {0, 0.6, 0}, {1.0, 0, 0}, 6, 8, m); // normal -z
        PreparedScene s = b.prepare();
        SceneDesc d = basicScene({0.5, 0.3, 0.4}, {0.5, 0.3, 0.0});
        SimulationResult r = simulate(backend, s, configFor(d));
        const double expected = parallelRectangles(1.0, 0.6, 0.8);
        const double got = groupViewFactor(s, r.K, 0, 1);
        // The estimator is unbiased: the only error is sampling noise of 16 R4 samples per
        // pair over 96 x 96 pairs: bound 0.5% (observed 0.02%).
        CHECK(std::abs(got - expected) < 0.005 * expected);
        // Reciprocity at the level of whole surfaces: A_1 F_12 = A_2 F_21.
        CHECK(std::abs(groupViewFactor(s, r.K, 1, 0) - got) < 1e-6);
    }
    SECTION("perpendicular rectangles with a common edge") {
        // Floor 1.0 (x) by 0.8 (y), wall 0.8 (y) by 0.6 (z) standing on the edge x = 0.
        SceneBuilder b;
        auto m = b.material("m", 0.5f);
        b.group = 0;
        b.rectangle({0, 0, 0}, {1.0, 0, 0}, {0, 0.8, 0}, 10, 8, m); // normal +z
        b.group = 1;
        b.rectangle({0, 0, 0}, {0, 0.8, 0}, {0, 0, 0.6}, 8, 6, m);  // normal +x
        PreparedScene s = b.prepare();
        SceneDesc d = basicScene({0.5, 0.4, 0.3}, {0.0, 0.4, 0.3});
        d.sim.samples = kDefaultSamples;
        SimulationResult r = simulate(backend, s, configFor(d));
        const double expected = perpendicularRectangles(1.0, 0.6, 0.8);
        const double got = groupViewFactor(s, r.K, 0, 1);
        // The cells along the common edge exchange most of the energy, and the weight of the
        // solid-angle estimator is bounded there: within 1% at the default S (observed 0.02%;
        // the former area estimator was off by 1.6% at S = 16 and needed S = 64 for 2%).
        CAPTURE(expected, got);
        CHECK(std::abs(got - expected) < 0.01 * expected);
        // The other way round, from the wall to the floor.
        const double back = perpendicularRectangles(0.6, 1.0, 0.8);
        CHECK(std::abs(groupViewFactor(s, r.K, 1, 0) - back) < 0.01 * back);
    }
    SECTION("coaxial parallel disks") {
        // Radii 0.5 and 0.3 m, 0.4 m apart; 48-gons of the disks' areas, 4 rings each.
        SceneBuilder b;
        auto m = b.material("m", 0.5f);
        b.group = 0;
        b.disk({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, 0.5, 4, 48, m); // normal +z
        b.group = 1;
        b.disk({0, 0, 0.4}, {0, 1, 0}, {1, 0, 0}, 0.3, 4, 48, m); // normal -z
        PreparedScene s = b.prepare();
        SceneDesc d = basicScene({0.0, 0.0, 0.2}, {1.0, 0.0, 0.2});
        d.sim.samples = kDefaultSamples;
        SimulationResult r = simulate(backend, s, configFor(d));
        const double expected = coaxialDisks(0.5, 0.3, 0.4);
        const double got = groupViewFactor(s, r.K, 0, 1);
        CAPTURE(expected, got);
        // Sampling noise and the 48-gon's rim: within 1% (observed 0.02%).
        CHECK(std::abs(got - expected) < 0.01 * expected);
    }
}

TEST_CASE("invariant 2: symmetry and reciprocity", "[invariants][kernel]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);
    SceneBuilder b;
    auto wall = b.material("wall", 0.7f);
    auto box = b.material("box", 0.4f);
    b.roomShell({0, 0, 0}, {3, 2, 2}, 3, wall);
    b.box({1.2, 0.6, 0.0}, {1.8, 1.2, 0.7}, 2, box);
    PreparedScene s = b.prepare();
    SceneDesc d = basicScene({0.2, 1.0, 1.5}, {3.0, 1.0, 1.0});
    SimulationResult r = simulate(backend, s, configFor(d));
    const std::size_t n = s.size();
    std::size_t nonzero = 0, reciprocal = 0;
    for (std::size_t i = 0; i < n; ++i) {
        REQUIRE(r.K[i * n + i] == 0.0f);
        for (std::size_t j = i + 1; j < n; ++j) {
            const float kij = r.K[i * n + j];
            // K is computed once per pair and mirrored: exactly equal.
            REQUIRE(kij == r.K[j * n + i]);
            if (kij == 0.0f) continue;
            ++nonzero;
            if (kij * s.area[j] >= 1.0f || kij * s.area[i] >= 1.0f) continue; // clamp applies
            const double fij = shared::rsimFormFactor(kij, s.area[j]);
            const double fji = shared::rsimFormFactor(kij, s.area[i]);
            // A_i F_ij and A_j F_ji are the same fp32 product K A_i A_j rounded in two orders.
            REQUIRE(std::abs(s.area[i] * fij - s.area[j] * fji) <= 1e-6 * s.area[i] * fij);
            ++reciprocal;
        }
    }
    CHECK(nonzero > n * 10);
    CHECK(reciprocal > nonzero / 2);
}

TEST_CASE("invariant 3: enclosure sums to one, in corners too", "[invariants][kernel]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);
    // A closed convex 4 x 3 x 2.5 m box of coarse cells (3 x 3 per wall, 108 triangles up to
    // 1.7 m): 8 of every 9 cells touch an edge of the room, where an estimator fails first.
    SceneBuilder b;
    auto wall = b.material("wall", 0.5f);
    b.roomShell({0, 0, 0}, {4.0, 3.0, 2.5}, 3, wall);
    PreparedScene s = b.prepare();
    SceneDesc d = basicScene({0.3, 1.5, 1.2}, {4.0, 1.5, 1.2});
    d.sim.samples = kDefaultSamples;
    SimulationResult r = simulate(backend, s, configFor(d));
    const std::size_t n = s.size();
    double maxSum = 0.0, minSum = 2.0, meanAbs = 0.0;
    std::size_t over = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < n; ++j) sum += shared::rsimFormFactor(r.K[i * n + j], s.area[j]);
        maxSum = std::max(maxSum, sum);
        minSum = std::min(minSum, sum);
        meanAbs += std::abs(sum - 1.0) / double(n);
        over += sum > 1.05;
    }
    CAPTURE(maxSum, minSum, meanAbs, over, n);
    // Every direction that leaves a triangle of a closed room meets another one: sum_j F_ij = 1.
    // Bounds for the default S (observed: max 1.037, mean |sum - 1| 0.008, no row above 1.05,
    // min 0.973). The former area estimator reaches 1.5-1.9 here at any S up to 128
    // (infinite variance at the shared edges; docs/accuracy.md, "Estimator study (CPU
    // reference)").
    CHECK(maxSum <= 1.15);
    CHECK(meanAbs <= 0.02);
    CHECK(double(over) <= 0.04 * double(n));
    CHECK(minSum >= 0.85);
}

TEST_CASE("invariant 3: the bundled tiny room's rows at the default S, over seeds", "[invariants][kernel][cli]") {
    // The tiny room has what a closed box lacks: a panel 1 cm in front of a wall, slivers on
    // walls, T-junctions. Its largest row sum at the default S and K format, seeds 1 to 4:
    // observed 1.030, 1.030, 1.046, 1.036. Before near pairs took 32 S and far pairs spread over
    // their row's points (near pairs at 8 S, every far pair on the row's first S/2 points) seeds
    // 2-4 gave 1.084, 1.092 and 1.101. Issue 18 holds every bundled and generated scene to 1.08.
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    for (int seed = 1; seed <= 4; ++seed) {
        TempDir dir;
        const CommandResult run = runRsim("run " + scene + " --backend cpu --timesteps 100 --no-images --no-timeseries "
                                          "--no-progress --no-k-cache --seed " + std::to_string(seed) + " -o " +
                                          (dir / "out").string());
        INFO(run.output);
        REQUIRE(run.exitCode == 0);
        const auto summary = nlohmann::json::parse(readFile(dir / "out" / "summary.json"));
        const double maxRow = summary["max_form_factor_row_sum"].get<double>();
        CAPTURE(seed, maxRow);
        CHECK(maxRow <= 1.08);
        CHECK(maxRow >= 0.95); // the room is nearly closed: some row sees almost only surfaces
    }
}

TEST_CASE("invariant 4: a screen over half the view halves the transfer", "[invariants][kernel]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);
    auto build = [](bool screen) {
        SceneBuilder b;
        auto m = b.material("m", 0.5f);
        b.group = 0;
        b.rectangle({-0.5, -0.5, 0}, {1, 0, 0}, {0, 1, 0}, 6, 6, m); // normal +z
        b.group = 1;
        b.rectangle({-0.5, -0.5, 1}, {0, 1, 0}, {1, 0, 0}, 6, 6, m); // normal -z
        if (screen) {
            // Covers x < 0 of the mid plane: by the mirror symmetry x -> -x of the two squares,
            // exactly half of every pair's transfer crosses it.
            b.group = 2;
            b.rectangle({-1.5, -1.5, 0.5}, {1.5, 0, 0}, {0, 3, 0}, 1, 1, m);
        }
        return b.prepare();
    };
    SceneDesc d = basicScene({0.0, 0.0, 0.25}, {0.0, 0.0, 0.0});
    d.sim.samples = 64;
    PreparedScene open = build(false), screened = build(true);
    SimulationResult ro = simulate(backend, open, configFor(d));
    SimulationResult rs = simulate(backend, screened, configFor(d));
    const double fOpen = groupViewFactor(open, ro.K, 0, 1);
    const double fScreened = groupViewFactor(screened, rs.K, 0, 1);
    // Sampling noise of the blocked fraction: 64 samples per pair over 72 x 72 pairs, and the
    // R4 points are not symmetric under the mirror: bound 1% (observed 0.01%).
    CHECK(std::abs(fScreened / fOpen - 0.5) < 0.01);
}

TEST_CASE("invariant 4: a surface in contact with the emitter hides what lies behind it", "[invariants][kernel]") {
    // A 10 x 10 cm plate 10 um in front of a 1 x 1 m panel, facing it, and a 2 x 2 m wall 5 cm
    // behind the panel, facing the same way: the plate sees the panel over all of its
    // hemisphere but grazing angles past the panel's edges, so F(plate -> wall) is below 1e-4.
    // The rays' offset (1e-5 of the scene's diagonal: 29 um here) is larger than the gap: rays
    // that start or stop at the offset pass behind the panel (with the start moved but the end
    // still at the offset, F(plate -> wall) was 0.035). Industry's generated hall has such a
    // sliver 20-60 um from a panel.
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);
    SceneBuilder b;
    auto m = b.material("m", 0.5f);
    b.group = 0;
    b.rectangle({-1.0, -1.0, 0.0}, {2, 0, 0}, {0, 2, 0}, 4, 4, m); // the wall, normal +z
    b.group = 1;
    b.rectangle({-0.5, -0.5, 0.05}, {1, 0, 0}, {0, 1, 0}, 2, 2, m); // the panel, normal +z
    b.group = 2;
    b.rectangle({-0.05, -0.05, 0.05001}, {0, 0.1, 0}, {0.1, 0, 0}, 1, 1, m); // the plate, normal -z
    PreparedScene s = b.prepare();
    REQUIRE(s.rayEps > 2.0f * 1e-5f); // the gap is smaller than the rays' offset
    SceneDesc d = basicScene({0.0, 0.0, 1.0}, {0.0, 0.0, 0.0});
    d.sim.samples = kDefaultSamples;
    SimConfig c = configFor(d);
    c.k.format = KFormat::Fp32;
    const SimulationResult r = simulate(backend, s, c);
    const double toWall = groupViewFactor(s, r.K, 2, 0), toPanel = groupViewFactor(s, r.K, 2, 1);
    CAPTURE(toWall, toPanel);
    CHECK(toWall < 1e-3);
    // Most of the hemisphere is the panel: F(plate -> panel) is 1 but the grazing angles past
    // its edges (the plate's centre sees its edges at 0.45-0.5 m, 10 um up: 2e-5 of the
    // hemisphere's cosine-weighted measure); the estimator's noise at the default S is far
    // below 2%.
    CHECK(std::abs(toPanel - 1.0) < 0.02);
}

TEST_CASE("invariant 4: between faces of a convex box no ray is lost (near the origin and 40 m from it)",
          "[invariants][kernel]") {
    // Three faces of a convex box (a floor and two walls 2 m apart, cut into cells): nothing can
    // occlude a segment between two of them, so every pair's K must be the sum of all its
    // samples' weights. A ray lost to rounding (a hit on the pair's own triangles, their
    // coplanar neighbours or the plane it ends on) lowers a pair's K by its weight over the
    // pair's 2 x perSide samples: 1/512 of it for an average ray of a near pair at S = 16.
    // This guards the pads (form_factor.h, rsimKRayPad): a first version whose far pad was
    // smaller than the rounding of t itself hit o, and lowered some of the corridor's K
    // entries by a third.
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    const double x0 = GENERATE(0.0, 40.0);
    CAPTURE(backend, x0);
    SceneBuilder b;
    auto m = b.material("m", 0.5f);
    b.rectangle({x0, 0, 0}, {2, 0, 0}, {0, 2, 0}, 3, 3, m); // floor, normal +z
    b.rectangle({x0, 0, 0}, {0, 0, 2}, {2, 0, 0}, 3, 3, m); // wall y = 0, normal +y
    b.rectangle({x0, 2, 0}, {2, 0, 0}, {0, 0, 2}, 3, 3, m); // wall y = 2, normal -y
    PreparedScene s = b.prepare();
    SceneDesc d = basicScene({x0 + 1.0, 1.0, 1.5}, {x0 + 2.0, 1.0, 0.5});
    d.sim.samples = kDefaultSamples;
    SimConfig c = configFor(d);
    c.k.format = KFormat::Fp32;
    const SimulationResult r = simulate(backend, s, c);
    // The expected K: the CPU's own estimator traced against a scene with nothing in the way (a
    // small square 10 km off).
    SceneBuilder away;
    away.rectangle({1e4, 1e4, 1e4}, {0.1, 0, 0}, {0, 0.1, 0}, 1, 1, away.material("m", 0.5f));
    const EmbreeScene nothing(away.prepare());
    const std::size_t n = s.size();
    std::size_t pairs = 0, lost = 0;
    double worst = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) {
            std::uint64_t rays = 0;
            const double expected = kernelEntry(s, c.k, i, j, nothing, nullptr, rays, nullptr);
            if (!(expected > 0.0)) continue;
            ++pairs;
            // fp32 arithmetic of a GPU: about 1e-6 of K; a lost ray of a twentieth of the
            // average weight: 1e-4.
            const double rel = std::abs(double(r.K[i * n + j]) - expected) / expected;
            worst = std::max(worst, rel);
            lost += rel > 1e-4;
        }
    CAPTURE(pairs, worst);
    CHECK(pairs > n * n / 4);
    CHECK(lost == 0);
}

TEST_CASE("invariant 4: a smaller screen between two squares, against a high-S reference",
          "[invariants][kernel]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);
    // 1 x 1 m squares 1 m apart, a 0.5 x 0.5 m screen in the middle (offset from the axis, so
    // that the pairs' occlusion varies): most pairs are partly occluded.
    SceneBuilder b;
    auto m = b.material("m", 0.5f);
    b.group = 0;
    b.rectangle({-0.5, -0.5, 0}, {1, 0, 0}, {0, 1, 0}, 6, 6, m); // normal +z
    b.group = 1;
    b.rectangle({-0.5, -0.5, 1}, {0, 1, 0}, {1, 0, 0}, 6, 6, m); // normal -z
    b.group = 2;
    b.rectangle({-0.3, -0.2, 0.5}, {0.5, 0, 0}, {0, 0.5, 0}, 1, 1, m);
    PreparedScene s = b.prepare();
    SceneDesc d = basicScene({0.0, 0.0, 0.25}, {0.0, 0.0, 0.0});
    // The reference: the area estimator (independent of the one under test, unbiased, and of
    // bounded variance for surfaces this far apart) at 2048 samples per pair, on the CPU.
    static const double reference = [&] {
        SceneDesc high = d;
        high.sim.samples = 2048;
        high.sim.k_estimator = KEstimator::Area;
        PreparedScene copy = s;
        return groupViewFactor(copy, simulate("cpu", copy, configFor(high)).K, 0, 1);
    }();
    d.sim.samples = kDefaultSamples;
    const double got = groupViewFactor(s, simulate(backend, s, configFor(d)).K, 0, 1);
    CAPTURE(reference, got, parallelRectangles(1, 1, 1));
    // An estimator that is biased under partial occlusion (e.g. Lambert's formula with V from
    // rays: -8% for a half-size screen) fails this; sampling noise is far smaller (observed
    // 0.1%).
    CHECK(std::abs(got - reference) < 0.015 * reference);
}

TEST_CASE("invariant 5: steady state solves the classical radiosity system",
          "[invariants][transport]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);
    SceneBuilder b;
    auto white = b.material("white", 0.6f);
    auto grey = b.material("grey", 0.3f);
    b.roomShell({0, 0, 0}, {1.2, 1.0, 0.8}, 2, white);
    b.box({0.5, 0.4, 0.0}, {0.8, 0.6, 0.3}, 1, grey);
    PreparedScene s = b.prepare();
    SceneDesc d = basicScene({0.2, 0.5, 0.6}, {1.2, 0.5, 0.3});
    // With rho <= 0.6 and at least one step per bounce, 4000 steps leave < 1e-30 of the energy.
    d.sim.timesteps = 4000;
    d.sim.dt_ns = 0.05;
    SimConfig c = configFor(d);
    SimulationResult r = simulate(backend, s, c);
    const std::size_t n = s.size(), T = c.timesteps;
    // (I - diag(rho) F) B_tot = E_tot, with F built from the same K the backend used.
    std::vector<double> A(n * n, 0.0), e(n, 0.0), bSum(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        A[i * n + i] = 1.0;
        for (std::size_t j = 0; j < n; ++j)
            A[i * n + j] -= double(s.reflectance[i]) * shared::rsimFormFactor(r.K[i * n + j], s.area[j]);
        for (std::size_t t = 0; t < T; ++t) {
            e[i] += r.E[i * T + t];
            bSum[i] += r.B[i * T + t];
        }
    }
    std::vector<double> x = solveDense(A, e, n);
    double maxX = *std::max_element(x.begin(), x.end());
    REQUIRE(maxX > 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(i, x[i], bSum[i]);
        // B is stored in fp32 each step (relative rounding 6e-8) and accumulated over ~100
        // bounces: 1e-5 of the largest radiosity is a wide margin (observed 8e-9).
        CHECK(std::abs(bSum[i] - x[i]) < 1e-5 * maxX);
    }
}

TEST_CASE("invariant 6: adjoint identity s_fwd == s_adj", "[invariants][transport]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    CAPTURE(backend);
    SceneBuilder b;
    auto wall = b.material("wall", 0.8f);
    auto table = b.material("table", 0.45f, true); // two-sided sheet
    auto box = b.material("box", 0.2f);
    b.roomShell({0, 0, 0}, {3, 2.5, 2.2}, 3, wall);
    b.rectangle({1.0, 0.8, 0.75}, {0.8, 0, 0}, {0, 0.6, 0}, 2, 2, table);
    b.box({2.0, 1.5, 0.0}, {2.05, 1.55, 0.05}, 1, box);
    // Two 4 x 4 cm plates 0.5 mm apart, facing each other: with the former area estimator
    // (below) their K estimates are heavy-tailed, so some form factors reach the clamp
    // min(1, K A) and the identity is tested with it. The identity holds for any K.
    b.rectangle({1.5, 1.0, 0.0001}, {0.04, 0, 0}, {0, 0.04, 0}, 4, 4, box);
    b.rectangle({1.5, 1.0, 0.0006}, {0, 0.04, 0}, {0.04, 0, 0}, 4, 4, box);
    PreparedScene s = b.prepare();
    SceneDesc d = basicScene({0.1, 1.2, 1.5}, {3.0, 1.0, 0.8});
    d.sensor.position = glm::dvec3(0.1, 1.25, 1.5); // 5 cm from the light, like a real camera
    d.light.pulse = PulseShape::Gaussian;
    d.light.pulse_fwhm_ns = 0.4;
    d.sim.timesteps = 500;
    d.sim.k_estimator = KEstimator::Area;
    SimConfig c = configFor(d);
    SimulationResult r = simulate(backend, s, c);
    double peak = 0.0;
    for (double v : r.signalFwd) peak = std::max(peak, std::abs(v));
    REQUIRE(peak > 0.0);
    std::size_t clamped = 0;
    for (std::size_t i = 0; i < s.size(); ++i)
        for (std::size_t j = 0; j < s.size(); ++j)
            clamped += r.K[i * s.size() + j] * s.area[j] > 1.0f;
    REQUIRE(clamped > 0);
    for (std::size_t t = 0; t < c.timesteps; ++t) {
        CAPTURE(t, r.signalFwd[t], r.signalAdj[t]);
        // Both sides are exact sums of the same products, rounded differently: B and Z are
        // stored in fp32 (relative 6e-8 per value, a few hundred bounces): bound 1e-5 of the
        // peak (observed 3e-8).
        CHECK(std::abs(r.signalFwd[t] - r.signalAdj[t]) <= 1e-5 * peak);
    }
}

TEST_CASE("invariant 7: direct-only distances are exact", "[invariants][distance]") {
    const std::string backend = GENERATE(from_range(backendsUnderTest()));
    const std::string variant = GENERATE(as<std::string>{}, "delta, co-located", "delta, offset",
                                         "gaussian, offset", "gaussian, surface near the light",
                                         "amcw 1 frequency", "amcw 2 frequencies");
    CAPTURE(backend, variant);
    SceneBuilder b;
    auto wall = b.material("wall", 0.7f);
    auto box = b.material("box", 0.35f);
    b.roomShell({0, 0, 0}, {4, 3, 2.5}, 3, wall);
    b.box({2.0, 1.0, 0.0}, {2.6, 1.8, 0.9}, 2, box);
    // A small box 0.35 m in front of the light: its matched filter starts before t = 0 when the
    // pulse is longer than its delay (a Gaussian of 1 ns FWHM spans 27 steps, 0.8 m).
    if (variant == "gaussian, surface near the light") b.box({0.55, 1.3, 1.05}, {0.65, 1.5, 1.2}, 1, box);
    PreparedScene s = b.prepare();
    SceneDesc d = basicScene({0.2, 1.5, 1.4}, {4.0, 1.5, 1.0});
    d.sim.indirect = false;
    d.sim.timesteps = 600;
    d.sensor.width = 40;
    d.sensor.height = 30;
    if (variant != "delta, co-located") d.sensor.position = glm::dvec3(0.2, 1.56, 1.38);
    if (variant.rfind("gaussian", 0) == 0) {
        d.light.pulse = PulseShape::Gaussian;
        d.light.pulse_fwhm_ns = 1.0;
    }
    double tol = 1e-5;
    if (variant.rfind("amcw", 0) == 0) {
        d.sensor.mode = SensorMode::Amcw;
        d.sensor.modulation_mhz = variant == "amcw 1 frequency" ? std::vector<double>{20.0}
                                                                : std::vector<double>{40.0, 50.0};
        // Paths here reach ~10 m: longer than the 7.5 m ambiguity range of 40 MHz alone, so the
        // second frequency must unwrap them (40 and 50 MHz together are unambiguous to 30 m).
        // The linear split makes the phasor of a delay t0 = n + f slightly non-linear in f:
        // arg((1 - f) + f e^{-i w}) = -f w + O(w^3 f (1 - f)(1 - 2f)); for w = 2 pi 50 MHz
        // 0.1 ns that is < 1e-6 rad, i.e. ~1e-6 m; 1e-4 m leaves room for fp32 phases.
        tol = 1e-4;
    }
    // Keeping K (output.kij) must not bring indirect light back: B = E exactly (MODEL §5).
    // dt = 1 ns puts adjacent walls within 8 steps of each other, so this scene has the near
    // pairs that the GPU transport gathers step by step.
    const bool keepK = variant == "delta, offset";
    if (keepK) {
        d.sim.dt_ns = 1.0;
        d.sim.timesteps = 100;
    }
    SimConfig c = configFor(d);
    SimulationResult r = simulate(backend, s, c, keepK, true);
    if (keepK) {
        REQUIRE(r.B.size() == r.E.size());
        std::size_t differ = 0;
        for (std::size_t k = 0; k < r.B.size(); ++k) differ += r.B[k] != r.E[k];
        CHECK(differ == 0);
    }
    std::size_t checked = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (std::isnan(r.distance[i])) continue;
        const double truth = glm::length(glm::dvec3(s.centroid[i]) - glm::dvec3(c.sensor.position));
        CAPTURE(i, r.distance[i], truth);
        // Pulsed: the split and the centroid are exact for a pure delay; what is left is fp32
        // rounding of tL, tS (~1e-5 steps at t ~ 100, i.e. < 1e-6 m): bound 1e-5 m.
        CHECK(std::abs(r.distance[i] - truth) < tol);
        ++checked;
    }
    // Many triangles are in the field of view and face sensor and light.
    CHECK(checked > s.size() / 4);
    std::size_t pixels = 0;
    for (std::size_t p = 0; p < r.image.depth.size(); ++p) {
        if (std::isnan(r.image.depth[p])) continue;
        CAPTURE(p, r.image.depth[p], r.image.trueDepth[p]);
        // Pixel signals are recomputed at the hit point: exact up to fp32 (hit distance and
        // delays of a few hundred steps): 1e-4 m.
        CHECK(std::abs(r.image.depth[p] - r.image.trueDepth[p]) < std::max(tol, 1e-4));
        ++pixels;
    }
    CHECK(pixels > r.image.depth.size() * 9 / 10);
}
