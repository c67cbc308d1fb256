// SPDX-License-Identifier: MIT
// The phasors transport (MODEL.md §11) on Vulkan (lavapipe in CI, under the validation layer):
// with the CPU's K, the CPU's solution; several devices and a streamed K, one device's; and
// invariant 12 against the time-stepped transport on the device; a pose group's tiled gather.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <catch2/catch_test_macros.hpp>

#include "geometry/prepare.h"
#include "rsim/shared/phasors.h"
#include "scene/mesh_loader.h"
#include "scene/poses.h"
#include "support/test_scenes.h"

using namespace rsim;

namespace {

// The test::BoxRoom camera as AMCW at 20 and 50 MHz (square: their harmonics up to 7 too), by the
// phasors transport.
SceneDesc boxRoomPhasorsDesc(const test::BoxRoom& room) {
    SceneDesc d = room.desc;
    d.sensor.mode = SensorMode::Amcw;
    d.sensor.modulation_mhz = {20.0, 50.0};
    d.sensor.waveform = "square";
    d.sensor.harmonics = 7;
    d.sim.transport = Transport::Phasors;
    d.sim.phasor_tolerance = 1e-7;
    return d;
}
SimConfig boxRoomPhasors(const test::BoxRoom& room) { return makeSimConfig(boxRoomPhasorsDesc(room)); }

// The largest |a - b| over the largest |b|, of (re, im) pairs or values.
double relativeError(const std::vector<float>& a, const std::vector<float>& b) {
    REQUIRE(a.size() == b.size());
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
        scale = std::max(scale, std::abs(double(b[i])));
    }
    return worst / std::max(scale, 1e-30);
}

double relativeError(const std::vector<double>& a, const std::vector<double>& b) {
    return relativeError(std::vector<float>(a.begin(), a.end()), std::vector<float>(b.begin(), b.end()));
}

// The same iteration in fp32, other summation order: a few ulps of the largest value, so the
// columns stop within an iteration of each other.
void checkSameToRounding(const SimulationResult& r, const SimulationResult& reference) {
    REQUIRE(r.phasors.iterations.size() == reference.phasors.iterations.size());
    for (std::size_t f = 0; f < reference.phasors.iterations.size(); ++f) {
        CAPTURE(f);
        CHECK(std::abs(int(r.phasors.iterations[f]) - int(reference.phasors.iterations[f])) <= 1);
    }
    CHECK(relativeError(r.totalEnergy, reference.totalEnergy) < 1e-5);
    CHECK(relativeError(r.image.phasor, reference.image.phasor) < 1e-5);
    CHECK(relativeError(r.image.taps, reference.image.taps) < 1e-5);
}

template <class T>
bool sameBits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

std::unique_ptr<Backend> vulkanBackend(const std::string& devices, const std::string& stream) {
    return test::makeTestBackend(test::vulkanPathsAvailable().front(), [&](BackendChoice& c) {
        c.devices = devices;
        c.stream = stream;
    });
}

} // namespace

TEST_CASE("phasors on Vulkan: with the CPU's K, the CPU's solution", "[phasors][backends]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const test::BoxRoom room;
    const SimConfig c = boxRoomPhasors(room);
    const auto cpu = test::makeTestBackend("cpu");
    const auto gpu = vulkanBackend("0", "never");
    Backend *C = cpu.get(), *G = gpu.get();
    const SimulationResult alone = test::simulateOn(PhaseBackends::all(*C), room.scene, c, false, true);
    // K (and the direct terms, distances and primary rays) on the CPU, the solve on the device.
    const SimulationResult mixed = test::simulateOn({C, C, G, C, C, C}, room.scene, c, false, true);
    REQUIRE(alone.phasors.converged);
    CHECK(mixed.phasors.converged);
    checkSameToRounding(mixed, alone);
    std::size_t both = 0;
    for (std::size_t i = 0; i < alone.distance.size(); ++i) {
        CAPTURE(i);
        REQUIRE(std::isfinite(alone.distance[i]) == std::isfinite(mixed.distance[i]));
        if (!std::isfinite(alone.distance[i])) continue;
        ++both;
        CHECK(std::abs(alone.distance[i] - mixed.distance[i]) < 1e-5); // 10 um
    }
    CHECK(both > 10);
}

TEST_CASE("phasors on Vulkan: several devices and a streamed K give one device's results",
          "[phasors][backends][streaming]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const test::BoxRoom room;
    SimConfig c = boxRoomPhasors(room);
    c.k.chunkBytes = 8 << 10; // several chunks to share among the devices
    auto run = [&](const std::string& devices, const std::string& stream) {
        const auto b = vulkanBackend(devices, stream);
        RunMetadata meta;
        SimulationResult r = test::simulateOn(PhaseBackends::all(*b), room.scene, c, false, true, &meta);
        return std::make_pair(std::move(r), meta);
    };
    const auto [one, oneMeta] = run("0", "never");
    REQUIRE(oneMeta.k.chunks > 2);
    CHECK_FALSE(oneMeta.k.streaming);
    // Each row computed by one device with the same shader, the rows merged on the host: the
    // same bits; a streamed K is the same K read in place.
    for (const auto& [devices, stream] : {std::pair{"0,0", "never"}, {"0", "always"}, {"0,0,0", "always"}}) {
        CAPTURE(devices, stream);
        const auto [other, meta] = run(devices, stream);
        CHECK(meta.devices.size() == std::size_t(std::count(devices, devices + std::strlen(devices), ',') + 1));
        CHECK(meta.k.streaming == (std::string(stream) == "always"));
        CHECK(other.phasors.iterations == one.phasors.iterations);
        CHECK(sameBits(other.totalEnergy, one.totalEnergy));
        CHECK(sameBits(other.image.phasor, one.image.phasor));
        CHECK(sameBits(other.distance, one.distance));
    }
}

// Invariant 12 (MODEL.md §11) on the device: the time-stepped transport at dt = 0.05 ns and
// T = 4000 and the phasors give the tiny room's pixels ranges a median of 1 mm apart.
TEST_CASE("phasors on Vulkan: invariant 12, the time-stepped transport's ranges converge to the phasors'",
          "[phasors][invariants][backends]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    SceneDesc d = loadSceneFile(std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml",
                                {{"sensor.mode", "\"amcw\""}, {"sensor.resolution", "[80, 60]"},
                                 {"output.timeseries", "false"}, {"simulation.phasor_tolerance", "1e-7"},
                                 {"simulation.dt_ns", "0.05"}, {"simulation.timesteps", "4000"},
                                 {"simulation.samples", "4"}});
    const PreparedScene s = prepareScene(loadMeshes(d), d.sim.max_edge_m);
    const auto b = vulkanBackend("0", "never");
    HeldK held;
    RunOptions opt;
    opt.k.held = &held;
    opt.images = true;
    auto run = [&](Transport t) {
        d.sim.transport = t;
        PhaseTimes times;
        RunMetadata meta;
        SimulationResult r = simulate(PhaseBackends::all(*b), s, makeSimConfig(d), opt, times, meta);
        CHECK(meta.validationErrors == 0);
        return r;
    };
    const SimulationResult stepped = run(Transport::Radiosity), phasors = run(Transport::Phasors);
    REQUIRE(held.K); // the second run's K is the first's
    std::vector<double> diff;
    std::size_t onlyOne = 0;
    for (std::size_t i = 0; i < phasors.image.depth.size(); ++i) {
        const float a = stepped.image.depth[i], p = phasors.image.depth[i];
        onlyOne += std::isfinite(a) != std::isfinite(p);
        if (std::isfinite(a) && std::isfinite(p)) diff.push_back(std::abs(double(a) - double(p)));
    }
    REQUIRE(diff.size() > phasors.image.depth.size() / 2);
    std::sort(diff.begin(), diff.end());
    const double median = diff[diff.size() / 2], p95 = diff[diff.size() * 95 / 100];
    CAPTURE(median, p95, onlyOne);
    CHECK(onlyOne == 0);
    CHECK((median < 1e-3 && p95 < 3e-3));
}

// Nine poses of the box room's camera, in a 3 x 3 grid, each looking a little lower.
std::vector<PoseConfig> ninePoses(const SceneDesc& base) {
    std::vector<PoseConfig> configs;
    for (int p = 0; p < 9; ++p) {
        const PoseDesc pose{"p" + std::to_string(p), {0.3 + 0.15 * (p % 3), 1.2 + 0.3 * (p / 3), 1.4},
                            {4.0, 1.4 - 0.1 * p, 0.9}, std::nullopt, "pose " + std::to_string(p)};
        configs.push_back({pose.where, makeSimConfig(applyPose(base, pose))});
    }
    return configs;
}

// A group of RSIM_PHASOR_TILED_POSES poses or more takes the tiled gather (shaders/
// phasors_tiled.comp), a pose alone the plain one: the same sums in another order. Nine poses fill
// a block of 16 partly (two poses an invocation), and the square wave's nine frequencies take two
// passes of eight; eight poses are one block of one pose an invocation.
TEST_CASE("phasors on Vulkan: a pose group's tiled gather gives each pose what it gets alone",
          "[phasors][backends][batch]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const test::BoxRoom room;
    SceneDesc base = boxRoomPhasorsDesc(room);
    base.sim.phasor_tolerance = 1e-6; // the default: 1e-7 is within fp32's rounding of the changes
    const std::vector<PoseConfig> configs = ninePoses(base);
    REQUIRE(configs.size() >= shared::RSIM_PHASOR_TILED_POSES);
    const auto b = vulkanBackend("0", "never");
    HeldK held;
    RunOptions opt;
    opt.k.held = &held;
    opt.images = true;
    PhaseTimes times;
    RunMetadata meta;
    std::vector<SimulationResult> together(configs.size());
    simulateBatch(PhaseBackends::all(*b), room.scene, configs, opt, times, meta,
                  [&](std::size_t p, SimulationResult& r, const PhaseTimes&) { together[p] = std::move(r); });
    CHECK(meta.validationErrors == 0);
    REQUIRE(held.K);
    for (std::size_t p = 0; p < configs.size(); ++p) {
        CAPTURE(p);
        RunMetadata aloneMeta;
        const SimulationResult alone = simulate(PhaseBackends::all(*b), room.scene, configs[p].config, opt, times, aloneMeta);
        const SimulationResult& t = together[p];
        REQUIRE((t.phasors.groupPoses == configs.size() && alone.phasors.groupPoses == 1));
        REQUIRE(t.phasors.converged);
        checkSameToRounding(t, alone);
        std::size_t both = 0;
        for (std::size_t i = 0; i < alone.distance.size(); ++i) {
            if (!std::isfinite(alone.distance[i]) || !std::isfinite(t.distance[i])) continue;
            ++both;
            CHECK(std::abs(alone.distance[i] - t.distance[i]) < 1e-5); // 10 um
        }
        CHECK(both > 10);
    }
    // Eight poses: one an invocation (nine take two), the same sums in the same order.
    const std::vector<PoseConfig> eight(configs.begin(), configs.begin() + 8);
    std::vector<SimulationResult> byEight(eight.size());
    simulateBatch(PhaseBackends::all(*b), room.scene, eight, opt, times, meta,
                  [&](std::size_t p, SimulationResult& r, const PhaseTimes&) { byEight[p] = std::move(r); });
    CHECK(meta.validationErrors == 0);
    for (std::size_t p = 0; p < eight.size(); ++p) {
        CAPTURE(p);
        REQUIRE(byEight[p].phasors.groupPoses == eight.size());
        checkSameToRounding(byEight[p], together[p]);
    }
}

// K stored as segments (issue 63): the plain gather (one pose) and the tiled one (nine) go through
// each tile's segments instead of every source, and give dense K's answers to fp32 order.
TEST_CASE("phasors on Vulkan read K stored as segments: the plain and the tiled gather give dense K's",
          "[phasors][backends][segments]") {
    if (test::vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    const test::BoxRoom room;
    SceneDesc base = boxRoomPhasorsDesc(room);
    base.sim.phasor_tolerance = 1e-6;
    const auto b = vulkanBackend("0", "never");
    const auto run = [&](std::vector<PoseConfig> configs, KLayout layout, std::string& storedAs) {
        for (PoseConfig& c : configs) c.config.k.layout = layout;
        RunOptions opt;
        opt.images = true;
        PhaseTimes times;
        RunMetadata meta;
        std::vector<SimulationResult> out(configs.size());
        simulateBatch(PhaseBackends::all(*b), room.scene, configs, opt, times, meta,
                      [&](std::size_t p, SimulationResult& r, const PhaseTimes&) { out[p] = std::move(r); });
        CHECK(meta.validationErrors == 0);
        storedAs = meta.k.layout;
        return out;
    };
    const std::vector<PoseConfig> nine = ninePoses(base);
    for (const std::size_t poses : {std::size_t(1), nine.size()}) {
        CAPTURE(poses);
        const std::vector<PoseConfig> configs(nine.begin(), nine.begin() + std::ptrdiff_t(poses));
        std::string dense, segments;
        const std::vector<SimulationResult> a = run(configs, KLayout::Dense, dense);
        const std::vector<SimulationResult> c = run(configs, KLayout::Segments, segments);
        CHECK(dense == "dense");
        CHECK(segments == "segments");
        for (std::size_t p = 0; p < poses; ++p) {
            CAPTURE(p);
            REQUIRE(c[p].phasors.converged);
            checkSameToRounding(c[p], a[p]);
        }
    }
}
