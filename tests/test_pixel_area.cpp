// SPDX-License-Identifier: MIT
// Pixels with area in the radiosity pipeline (issue 60, point 2; MODEL.md §6): with
// sensor.pixel_samples P > 1 a pixel's signal is the mean of P rays over its square, so a pixel
// on a depth edge mixes the two surfaces and its range "flies" between them, while every other
// pixel keeps its range; range_true_m stays the centre ray's. Both backends cast the same rays.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "scene/scene_config.h"
#include "support/test_scenes.h"
#include "util/error.h"

using namespace rsim;
using Catch::Matchers::ContainsSubstring;

namespace {

// A wall 6 m ahead and a panel 2 m ahead covering the image's upper left part (+y, +z), direct
// light only:
// every pixel that sees one surface alone is a pure delay.
struct Edge {
    PreparedScene scene;
    SceneDesc desc;
    Edge() {
        test::SceneBuilder b;
        b.rectangle({6.0, 6.0, -4.0}, {0.0, -12.0, 0.0}, {0.0, 0.0, 8.0}, 6, 6, b.material("far", 0.5f));
        // Its edges (y = 0.13 m, z = -0.55 m) cross pixels rather than follow their borders.
        b.rectangle({2.0, 2.0, -0.55}, {0.0, -1.87, 0.0}, {0.0, 0.0, 2.6}, 4, 4, b.material("near", 0.5f));
        scene = b.prepare();
        desc = test::basicScene({0.0, 0.0, 0.0}, {1.0, 0.0, 0.0});
        desc.sim.indirect = false;
        desc.sim.timesteps = 600;
        desc.sensor.mode = SensorMode::Amcw;
        desc.sensor.modulation_mhz = {10.0};
        desc.sensor.width = 40;
        desc.sensor.height = 30;
    }
    SceneDesc withSamples(std::uint32_t P) const {
        SceneDesc d = desc;
        d.sensor.pixel_samples = P;
        d.sensor.pixel_filter_box = P > 1;
        return d;
    }
};

// The lowest and highest true range of pixel p's 3 x 3 neighbourhood, which holds its footprint.
std::pair<float, float> neighbourhood(const SensorImage& img, std::size_t p) {
    const int W = int(img.width), H = int(img.height), x = int(p % img.width), y = int(p / img.width);
    float lo = INFINITY, hi = -INFINITY;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            const int u = x + dx, v = y + dy;
            if (u < 0 || v < 0 || u >= W || v >= H) continue;
            const float t = img.trueDepth[std::size_t(v * W + u)];
            lo = std::min(lo, t);
            hi = std::max(hi, t);
        }
    return {lo, hi};
}

} // namespace

TEST_CASE("pixels with area: flying pixels at depth edges and nowhere else", "[pixels][radiosity]") {
    const Edge edge;
    const SensorImage one = test::simulate("cpu", edge.scene, makeSimConfig(edge.withSamples(1)), false, true).image;
    const SensorImage area = test::simulate("cpu", edge.scene, makeSimConfig(edge.withSamples(16)), false, true).image;
    REQUIRE(area.rays == one.rays * 17); // the centre ray and 16 over the square
    CHECK(area.trueDepth == one.trueDepth);
    CHECK(area.triangle == one.triangle);
    // A pixel off the edges averages one surface over its footprint: its range stays within half
    // its neighbourhood's spread of the centre's. One on an edge mixes the surfaces: it flies
    // between them, by more than 30 cm here.
    std::size_t flying = 0, edgePixels = 0, flyingOne = 0;
    for (std::size_t p = 0; p < area.depth.size(); ++p) {
        const auto [lo, hi] = neighbourhood(area, p);
        const float error = std::abs(area.depth[p] - area.trueDepth[p]);
        flyingOne += std::abs(one.depth[p] - one.trueDepth[p]) > 0.01f;
        INFO("pixel " << p << ": range " << area.depth[p] << " m, true " << area.trueDepth[p] << " m, neighbours "
                      << lo << " to " << hi << " m");
        if (hi - lo < 1.0f) {
            CHECK(error <= 0.5f * (hi - lo) + 2e-3f);
            continue;
        }
        ++edgePixels;
        if (!(error > 0.3f)) continue;
        ++flying;
        CHECK(area.depth[p] > lo); // between the two surfaces' ranges
        CHECK(area.depth[p] < hi);
    }
    INFO(flying << " flying pixels, " << edgePixels << " pixels on an edge");
    CHECK(flyingOne == 0);           // one ray per pixel: every pixel sees one surface
    CHECK(flying >= edgePixels / 4); // edge pixels mix (not all: an edge may follow pixels' borders)
    CHECK(flying > 0);
}

TEST_CASE("pixels with area: every backend casts the CPU's rays and averages them alike",
          "[pixels][radiosity][backends]") {
    const auto paths = test::vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    const Edge edge;
    SceneDesc d = edge.withSamples(4);
    d.sim.indirect = true; // the indirect part of each ray too
    const SimConfig c = makeSimConfig(d);
    const SensorImage cpu = test::simulate("cpu", edge.scene, c, false, true).image;
    for (const std::string& path : paths) {
        CAPTURE(path);
        const SensorImage gpu = test::simulate(path, edge.scene, c, false, true).image;
        REQUIRE(gpu.rays == cpu.rays);
        std::size_t differ = 0;
        for (std::size_t p = 0; p < cpu.depth.size(); ++p) {
            const bool same = (std::isnan(cpu.depth[p]) && std::isnan(gpu.depth[p])) ||
                              std::abs(cpu.depth[p] - gpu.depth[p]) < 2e-3f;
            differ += !same || std::abs(cpu.amplitude[p] - gpu.amplitude[p]) > 1e-3f * cpu.amplitude[p];
        }
        CHECK(differ <= cpu.depth.size() / 100); // a ray grazing an edge may see the other surface
    }
}

TEST_CASE("pixels with area: the scene file's pixel_samples and pixel_filter for the radiosity pipeline",
          "[pixels][scene]") {
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    const SceneDesc d = loadSceneFile(scene, {{"sensor.pixel_samples", "8"}});
    CHECK(d.sensor.pixel_samples == 8);
    CHECK(d.sensor.pixel_filter_box); // rays over the square by default
    CHECK(makeSimConfig(d).primaryRaysPerPixel() == 9);
    CHECK_THROWS_WITH(loadSceneFile(scene, {{"sensor.pixel_samples", "8"}, {"sensor.pixel_filter", "\"centre\""}}),
                      ContainsSubstring("same ray"));
    CHECK_THROWS_WITH(loadSceneFile(scene, {{"sensor.pixel_filter", "\"box\""}}), ContainsSubstring("pixel_samples"));
}
