// SPDX-License-Identifier: MIT
// The `phasors` transport (MODEL.md §11): dense solve and closed form, invariant 12 and its test
// mode, poses solved together, square waves, iterations, input errors.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "geometry/prepare.h"
#include "k/host_k.h"
#include "scene/mesh_loader.h"
#include "scene/poses.h"
#include "support/test_scenes.h"
#include "transport/phasor_system.h"
#include "util/error.h"

using namespace rsim;
using Catch::Matchers::ContainsSubstring;
using cd = std::complex<double>;

namespace {

const std::string kTinyRoom = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";

// (I - M) x = e by test::solveDense on the real system [[Re A, -Im A], [Im A, Re A]].
std::vector<cd> denseComplexSolve(const std::vector<cd>& M, const std::vector<cd>& e, std::size_t n) {
    const std::size_t m = 2 * n;
    std::vector<double> A(m * m, 0.0), b(m, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            const cd a = (i == j ? 1.0 : 0.0) - M[i * n + j];
            A[i * m + j] = a.real();
            A[i * m + n + j] = -a.imag();
            A[(n + i) * m + j] = a.imag();
            A[(n + i) * m + n + j] = a.real();
        }
        b[i] = e[i].real();
        b[n + i] = e[i].imag();
    }
    const std::vector<double> x = test::solveDense(A, b, m);
    std::vector<cd> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = {x[i], x[n + i]};
    return out;
}

// Two facing plates 0.2 m wide, h apart (cells x cells squares, or one triangle each): the lower
// one (z = 0, facing up) lit by a light between them aimed down, its cone missing the upper one.
struct Plates {
    PreparedScene scene;
    SimConfig config;
    Plates(int cells, double h) {
        test::SceneBuilder b;
        const std::uint32_t lit = b.material("lit", 0.9f), unlit = b.material("unlit", 0.8f);
        if (cells == 0) {
            b.triangle({-0.1, -0.1, 0.0}, {0.1, -0.1, 0.0}, {-0.1, 0.1, 0.0}, lit);
            b.triangle({-0.1, -0.1, h}, {-0.1, 0.1, h}, {0.1, -0.1, h}, unlit);
        } else {
            b.rectangle({-0.1, -0.1, 0.0}, {0.2, 0.0, 0.0}, {0.0, 0.2, 0.0}, cells, cells, lit);
            b.rectangle({-0.1, -0.1, h}, {0.0, 0.2, 0.0}, {0.2, 0.0, 0.0}, cells, cells, unlit);
        }
        scene = b.prepare();
        SceneDesc d = test::basicScene({0.0, 0.0, 0.5 * h}, {0.0, 0.0, 0.0});
        d.sensor.up = {0.0, 1.0, 0.0};
        d.light.half_angle_deg = 80.0;
        d.sim.transport = Transport::Phasors;
        d.sensor.mode = SensorMode::Amcw;
        config = makeSimConfig(d);
    }
    bool upper(std::size_t m) const { return scene.centroid[m].z > 0.01f; }
    double steps(std::size_t i, std::size_t j) const { // the exact delay, in double
        return glm::length(glm::dvec3(scene.centroid[i]) - glm::dvec3(scene.centroid[j])) / config.cdtM;
    }
};

float omegaOf(const SimConfig& c, double mhz) { return float(2.0 * M_PI * mhz * 1e-3 * c.dtNs); } // rad/step

// A one-pose system over `direct` at `omegas`, exact delays.
PhasorSystem systemOf(const Plates& p, const DirectTerms& direct, const std::vector<float>& omegas) {
    PhasorSystem sys;
    sys.config = &p.config;
    sys.n = std::uint32_t(p.scene.size());
    sys.columns = {1, omegas};
    sys.sources = phasorSources(p.scene, {&direct}, omegas, false);
    sys.reflectance = p.scene.reflectance;
    sys.tolerance = 1e-7;
    sys.invCdtSq = p.config.invCdtSq;
    return sys;
}

// The largest |a - b| over the largest |b|.
double relativeError(const std::vector<cd>& a, const std::vector<cd>& b) {
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < b.size(); ++i) {
        worst = std::max(worst, std::abs(a[i] - b[i]));
        scale = std::max(scale, std::abs(b[i]));
    }
    return scale > 0.0 ? worst / scale : worst;
}

// Complex numbers from (re, im) float pairs first + k stride, k < count (a solution's column f of C).
std::vector<cd> complexOf(const float* v, std::size_t count, std::size_t stride = 1, std::size_t first = 0) {
    std::vector<cd> out(count);
    for (std::size_t k = 0; k < count; ++k) out[k] = {v[2 * (first + k * stride)], v[2 * (first + k * stride) + 1]};
    return out;
}

// The tiny room (scenes/tiny-room) as an AMCW camera of 80 x 60 pixels at 20 MHz, sinusoidal, by
// the time-stepped (radiosity) and the phasors transport on one CPU backend, K computed once.
struct BothTransports {
    SimulationResult stepped, phasors;
    BothTransports(const std::vector<SceneOverride>& more, bool rounded) {
        std::vector<SceneOverride> o{{"sensor.mode", "\"amcw\""}, {"sensor.resolution", "[80, 60]"},
                                     {"output.timeseries", "false"}, {"simulation.phasor_tolerance", "1e-7"},
                                     {"simulation.phasor_delays", rounded ? "\"rounded\"" : "\"exact\""}};
        o.insert(o.end(), more.begin(), more.end());
        SceneDesc d = loadSceneFile(kTinyRoom, o);
        const PreparedScene s = prepareScene(loadMeshes(d), d.sim.max_edge_m);
        const auto b = test::makeTestBackend("cpu");
        HeldK held;
        RunOptions opt;
        opt.k.held = &held;
        auto run = [&](Transport t) {
            d.sim.transport = t;
            PhaseTimes times;
            RunMetadata meta;
            return simulate(PhaseBackends::all(*b), s, makeSimConfig(d), opt, times, meta);
        };
        stepped = run(Transport::Radiosity);
        REQUIRE(held.K);
        phasors = run(Transport::Phasors);
    }
};

// |a - b| where both are finite (sorted), and how many are finite in one only.
template <class T>
std::pair<std::vector<double>, std::size_t> differences(const std::vector<T>& a, const std::vector<T>& b) {
    REQUIRE(a.size() == b.size());
    std::pair<std::vector<double>, std::size_t> out{{}, 0};
    for (std::size_t i = 0; i < a.size(); ++i) {
        out.second += std::isfinite(a[i]) != std::isfinite(b[i]);
        if (std::isfinite(a[i]) && std::isfinite(b[i])) out.first.push_back(std::abs(double(a[i]) - double(b[i])));
    }
    std::sort(out.first.begin(), out.first.end());
    return out;
}

// test::BoxRoom (walls 0.6, a box 0.4) as an AMCW camera at 20 and 50 MHz, by the phasors transport.
struct Room : test::BoxRoom {
    Room() {
        desc.sensor.mode = SensorMode::Amcw;
        desc.sensor.modulation_mhz = {20.0, 50.0};
        desc.sim.transport = Transport::Phasors;
    }
    SimulationResult run(const SceneDesc& d, bool images = true) const {
        return test::simulate("cpu", scene, makeSimConfig(d), false, images);
    }
};

template <class T>
bool sameBits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

} // namespace

TEST_CASE("phasors: two facing plates solve as a dense complex solve with exact phases", "[phasors]") {
    const Plates p(2, 0.1);
    const SimulationResult r = test::simulate("cpu", p.scene, p.config, true, false);
    const std::size_t n = p.scene.size();
    REQUIRE(r.K.size() == n * n);
    for (std::size_t m = 0; m < n; ++m) REQUIRE((r.direct.irradiance[m] > 0.0f) != p.upper(m)); // the lower one lit
    // Omega = 0 (the steady state), 20 MHz and 300 MHz (1.3 rad per round trip between the plates).
    const std::vector<float> omegas{0.0f, omegaOf(p.config, 20.0), omegaOf(p.config, 300.0)};
    const HostK K = HostK::fromDense(std::uint32_t(n), r.K);
    const PhasorSolution sol = solvePhasorsCpu(p.scene, &K, systemOf(p, r.direct, omegas));
    for (std::size_t f = 0; f < omegas.size(); ++f) {
        const double w = double(omegas[f]);
        std::vector<cd> M(n * n, 0.0), e(n);
        for (std::size_t i = 0; i < n; ++i) {
            const double rho = p.scene.reflectance[i];
            e[i] = rho * double(r.direct.irradiance[i]) * std::exp(cd(0.0, -w * double(r.direct.tLight[i])));
            for (std::size_t j = 0; j < n; ++j) {
                if (i == j) continue;
                const double F = std::min(1.0, double(r.K[i * n + j]) * double(p.scene.area[j]));
                M[i * n + j] = rho * F * std::exp(cd(0.0, -w * p.steps(i, j)));
            }
        }
        const std::vector<cd> expected = denseComplexSolve(M, e, n);
        CAPTURE(f, w);
        // fp32 iterates summed in double: a few ulps of the largest value.
        CHECK(relativeError(complexOf(&sol.values[0].x, n, omegas.size(), f), expected) < 1e-5);
        // The pipeline's own solve (default tolerance 1e-6): totalEnergy = Re B^(0).
        if (f == 0) CHECK(relativeError(std::vector<cd>(r.totalEnergy.begin(), r.totalEnergy.end()), expected) < 1e-5);
    }
}

TEST_CASE("phasors: between two triangles each iteration adds one bounce of the series with its phase",
          "[phasors]") {
    const Plates p(0, 0.1);
    const SimulationResult r = test::simulate("cpu", p.scene, p.config, true, false);
    REQUIRE(p.scene.size() == 2);
    const std::size_t lo = p.upper(0) ? 1 : 0, hi = 1 - lo;
    const double F12 = std::min(1.0, double(r.K[lo * 2 + hi]) * p.scene.area[hi]);
    const double F21 = std::min(1.0, double(r.K[hi * 2 + lo]) * p.scene.area[lo]);
    REQUIRE(F12 > 0.1); // a strong coupling: many bounces matter
    const double rho1 = p.scene.reflectance[lo], rho2 = p.scene.reflectance[hi], steps = p.steps(lo, hi);
    const std::vector<float> omegas{0.0f, omegaOf(p.config, 20.0), omegaOf(p.config, 300.0)};
    const HostK K = HostK::fromDense(2, r.K);
    for (std::uint32_t k : {1u, 2u, 3u, 4u, 7u, 300u}) {
        PhasorSystem sys = systemOf(p, r.direct, omegas);
        sys.maxIterations = k;
        sys.tolerance = 1e-12; // run all k iterations (or until the fp32 iterate stops changing)
        const PhasorSolution sol = solvePhasorsCpu(p.scene, &K, sys);
        for (std::size_t f = 0; f < omegas.size(); ++f) {
            const double w = omegas[f];
            const cd D = std::exp(cd(0.0, -w * steps));
            const cd E1 = rho1 * double(r.direct.irradiance[lo]) * std::exp(cd(0.0, -w * double(r.direct.tLight[lo])));
            // A round trip multiplies by a = rho1 rho2 F12 F21 exp(-2 j Omega r); after k
            // iterations the lower plate holds the round trips up to k / 2, the upper up to (k - 1) / 2.
            const cd a = rho1 * rho2 * F12 * F21 * D * D;
            cd sum1 = 0.0, sum2 = 0.0, term = 1.0;
            for (std::uint32_t trips = 0; trips <= std::min(k, 200u); ++trips, term *= a) {
                if (2 * trips <= k) sum1 += term;
                if (2 * trips + 1 <= k) sum2 += term;
            }
            const std::vector<cd> expected{E1 * sum1, rho2 * F21 * D * E1 * sum2};
            const std::vector<cd> all = complexOf(&sol.values[0].x, 2, 3, f), got{all[lo], all[hi]};
            CAPTURE(k, f, got[0], expected[0], got[1], expected[1]);
            CHECK(relativeError(got, expected) < 1e-6); // fp32 iterates
            if (k == 300) CHECK(std::abs(got[0] - E1 / (1.0 - a)) < 1e-6 * std::abs(E1)); // the geometric series
        }
    }
}

TEST_CASE("phasors: invariant 12, the time-stepped transport's ranges at small dt converge to the phasors'",
          "[phasors][invariants]") {
    const BothTransports both({{"simulation.dt_ns", "0.05"}, {"simulation.timesteps", "4000"}}, false);
    const auto [diff, onlyOne] = differences(both.stepped.image.depth, both.phasors.image.depth);
    CHECK(onlyOne == 0);
    REQUIRE(diff.size() > both.phasors.image.depth.size() / 2);
    const double median = diff[diff.size() / 2], p95 = diff[diff.size() * 95 / 100];
    CAPTURE(median, p95, diff.size());
    // MODEL.md §11: the rounded pair delays (at most dt / 2 per bounce) and the window's tail.
    CHECK((median < 1e-3 && p95 < 3e-3));
}

TEST_CASE("phasors: with rounded delays they are the time-stepped transport's discrete-time transform",
          "[phasors][invariants]") {
    const BothTransports both({{"simulation.dt_ns", "0.1"}, {"simulation.timesteps", "3000"}}, true);
    // The image's phasors, to fp32 sums over 3000 bins and the iterate's rounding.
    const std::vector<float> &a = both.stepped.image.phasor, &b = both.phasors.image.phasor;
    REQUIRE(a.size() == b.size());
    const double error = relativeError(complexOf(b.data(), b.size() / 2), complexOf(a.data(), a.size() / 2));
    CAPTURE(error);
    CHECK(error < 1e-4);
    // The triangles' distances: the same phases, to fp32 (1e-5 rad is 0.01 mm at 20 MHz).
    const auto [diff, onlyOne] = differences(both.stepped.distance, both.phasors.distance);
    CAPTURE(diff.back(), diff.size(), onlyOne);
    CHECK((onlyOne == 0 && diff.size() > both.phasors.distance.size() / 4));
    CHECK(diff.back() < 1e-4);
}

TEST_CASE("phasors: poses solved together give each pose bit for bit what it gets alone", "[phasors][batch]") {
    const Room room;
    std::vector<PoseConfig> configs;
    for (const PoseDesc& p : {PoseDesc{"rig", {0.3, 1.5, 1.4}, {4.0, 1.4, 0.9}, std::nullopt, "pose 1"},
                              PoseDesc{"corner", {0.4, 0.4, 1.5}, {3.5, 2.5, 0.5}, std::nullopt, "pose 2"},
                              PoseDesc{"back", {3.7, 2.7, 1.2}, {0.5, 0.8, 1.0}, glm::dvec3(0, 0, 1), "pose 3"}})
        configs.push_back({p.where, makeSimConfig(applyPose(room.desc, p))});
    const auto b = test::makeTestBackend("cpu");
    PhaseTimes times;
    RunMetadata meta;
    std::vector<SimulationResult> together(configs.size());
    CHECK(simulateBatch(PhaseBackends::all(*b), room.scene, configs, RunOptions{}, times, meta,
                        [&](std::size_t p, SimulationResult& r, const PhaseTimes&) { together[p] = std::move(r); })
              .groups == 1);
    for (std::size_t p = 0; p < configs.size(); ++p) {
        CAPTURE(p);
        const SimulationResult alone = test::simulate("cpu", room.scene, configs[p].config, false, true);
        const SimulationResult& t = together[p];
        CHECK((t.phasors.groupPoses == 3 && alone.phasors.groupPoses == 1));
        CHECK(t.phasors.iterations == alone.phasors.iterations); // each column judged on its own
        CHECK(sameBits(t.totalEnergy, alone.totalEnergy));
        CHECK(sameBits(t.distance, alone.distance));
        CHECK(sameBits(t.image.depth, alone.image.depth));
        CHECK(sameBits(t.image.phasor, alone.image.phasor));
        CHECK(sameBits(t.image.taps, alone.image.taps));
        CHECK(std::count_if(t.distance.begin(), t.distance.end(), [](double d) { return std::isfinite(d); }) > 10);
    }
}

TEST_CASE("phasors: a square waveform's taps from its odd harmonics match the time-stepped correlation",
          "[phasors]") {
    const Room room;
    SceneDesc d = room.desc;
    d.sensor.waveform = "square";
    d.sensor.modulation_mhz = {20.0};
    d.sim.dt_ns = 0.05;
    d.sim.timesteps = 3000; // 150 ns: 22 bounces, 1e-5 of the light left
    d.sim.transport = Transport::Radiosity;
    const SensorImage stepped = room.run(d).image;
    d.sim.transport = Transport::Phasors;
    for (std::uint32_t N : {7u, 63u}) {
        d.sensor.harmonics = N;
        const SensorImage ph = room.run(d).image;
        REQUIRE(ph.taps.size() == stepped.taps.size());
        const std::size_t pixels = ph.amplitude.size(), K = ph.taps.size() / pixels;
        // MODEL.md §11: the harmonics above N hold at most about 0.41 / N of sum_t s (the DC).
        double worst = 0.0;
        for (std::size_t i = 0; i < ph.taps.size(); ++i)
            if (ph.amplitude[i / K] > 0.0f)
                worst = std::max(worst, std::abs(double(ph.taps[i]) - stepped.taps[i]) /
                                            (double(ph.amplitude[i / K]) * 0.41 / double(N)));
        const auto [diff, onlyOne] = differences(ph.readout.tapsRange, stepped.readout.tapsRange);
        CAPTURE(N, worst, diff.back(), onlyOne);
        CHECK((worst < 1.0 && onlyOne == 0));
        if (N == 63) CHECK(diff.back() < 5e-3);
    }
}

TEST_CASE("phasors: iterations, tolerance, the iteration cap and direct light alone", "[phasors]") {
    const Room room;
    SceneDesc d = room.desc;
    auto report = [&](double tolerance, std::uint32_t cap, bool indirect) {
        d.sim.phasor_tolerance = tolerance;
        d.sim.phasor_max_iterations = cap;
        d.sim.indirect = indirect;
        const SimulationResult r = room.run(d, false);
        REQUIRE(r.phasors.omegas.size() == 3); // 0, 20 and 50 MHz
        return std::make_pair(r.phasors, r);
    };
    std::vector<std::uint32_t> loose;
    for (const double tolerance : {1e-3, 1e-7}) {
        const PhasorReport rep = report(tolerance, 1000, true).first;
        CHECK((rep.converged && rep.sweeps == *std::max_element(rep.iterations.begin(), rep.iterations.end())));
        CHECK((rep.q > 0.0 && rep.q < 1.0)); // rho 0.6 times row sums near 1
        for (std::size_t f = 0; f < rep.omegas.size(); ++f) {
            CAPTURE(tolerance, f, rep.iterations[f]);
            CHECK((rep.iterations[f] >= 1 && rep.iterations[f] <= 1000));
            CHECK(rep.change[f] <= rep.tolerance[f]);
            if (!loose.empty()) CHECK(rep.iterations[f] > loose[f]); // a lower tolerance takes more
        }
        loose = rep.iterations;
    }
    const PhasorReport capped = report(1e-6, 2, true).first; // stopped unconverged
    CHECK((!capped.converged && capped.sweeps == 2 && capped.change[0] > capped.tolerance[0]));
    // Direct light alone: B^ = E^, no iteration; the steady state is rho Irr.
    const auto [rep, direct] = report(1e-6, 1000, false);
    CHECK((rep.sweeps == 0 && rep.converged));
    CHECK(rep.iterations == std::vector<std::uint32_t>(3, 0));
    std::vector<double> e(room.scene.size());
    for (std::size_t m = 0; m < e.size(); ++m) e[m] = room.scene.reflectance[m] * direct.direct.irradiance[m];
    CHECK(sameBits(direct.totalEnergy, e));
    CHECK(std::count_if(e.begin(), e.end(), [](double x) { return x > 0.0; }) > 10);
}

TEST_CASE("phasors: the scene file's keys and its errors", "[phasors][scene]") {
    test::TempDir dir;
    const std::string mesh = "[[mesh]]\npath = \"" + std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/room.obj\"\n";
    auto file = [&](const std::string& lights) { // no [output]: no time series by default
        test::writeFile(dir / "s.toml", "[simulation]\ntimesteps = 300\ntransport = \"phasors\"\n" + lights +
                                            "[sensor]\nposition = [0.25, 1.52, 1.5]\nlook_at = [4.0, 1.5, 1.0]\n"
                                            "mode = \"amcw\"\nresolution = [16, 12]\n" + mesh);
        return dir / "s.toml";
    };
    const auto one = file("[light]\nposition = [0.25, 1.48, 1.5]\n");
    auto load = [&](std::vector<SceneOverride> o) { return loadSceneFile(one, o); };
    const SceneDesc ok = load({{"simulation.phasor_tolerance", "1e-8"}, {"simulation.phasor_max_iterations", "50"},
                               {"simulation.phasor_delays", "\"rounded\""}, {"sensor.waveform", "\"square\""},
                               {"sensor.harmonics", "31"}});
    CHECK_FALSE(ok.output.timeseries);
    const SimConfig c = makeSimConfig(ok);
    CHECK((c.transport == Transport::Phasors && c.mode == SensorMode::Amcw));
    CHECK((c.phasors.tolerance == 1e-8 && c.phasors.maxIterations == 50 && c.phasors.roundedDelays));
    CHECK(phasorFrequencies(c).omegas.size() == 2 + 15); // 0, 20 MHz and its harmonics 3 .. 31
    CHECK_THROWS_WITH(load({{"sensor.mode", "\"pulsed\""}}), ContainsSubstring("[sensor] mode: simulation.transport"));
    CHECK_THROWS_WITH(load({{"sensor.mode", "\"gated\""}, {"light.pulse", "\"rectangular\""},
                            {"light.pulse_width_ns", "1.0"}}),
                      ContainsSubstring("[sensor] mode") && ContainsSubstring("phasors"));
    CHECK_THROWS_WITH(load({{"output.timeseries", "true"}}), ContainsSubstring("[output] timeseries"));
    CHECK_THROWS_WITH(load({{"output.transient", "true"}}), ContainsSubstring("[output] transient"));
    CHECK_THROWS_WITH(load({{"sensor.harmonics", "32"}}), ContainsSubstring("harmonics"));
    CHECK_THROWS_WITH(load({{"simulation.phasor_delays", "\"round\""}}), ContainsSubstring("phasor_delays"));
    CHECK_THROWS_WITH(loadSceneFile(file("[[light]]\nposition = [0.25, 1.48, 1.5]\n"
                                         "[[light]]\nposition = [0.25, 1.4, 1.5]\n")),
                      ContainsSubstring("[[light]]") && ContainsSubstring("phasors"));
}

// MODEL.md §11: a scene without a steady state (closed, rho = 1) is refused, not iterated to the cap.
TEST_CASE("phasors: a closed room of reflectance 1 has no steady state and is refused", "[phasors]") {
    test::SceneBuilder b;
    b.roomShell({0, 0, 0}, {4, 3, 2.5}, 2, b.material("white", 1.0f));
    CHECK_THROWS_WITH(test::simulate("cpu", b.prepare(), makeSimConfig(Room().desc), false, false),
                      ContainsSubstring("steady state"));
}
