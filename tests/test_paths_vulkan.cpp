// SPDX-License-Identifier: MIT
// The `paths` transport on every Vulkan ray path (ray queries, the RT pipeline, rsim's BVH),
// under the validation layer: the same sampler and steps as the CPU's, so the images agree with
// the CPU reference pixel by pixel but for the few paths a rounding sends elsewhere (MODEL.md
// §10.2), and the analytic mirror holds there too.
#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include "support/test_scenes.h"

using namespace rsim;

namespace {

// A room with one material of each type: a glossy plastic floor, a rough metal cabinet, a mirror
// panel on a wall and a glass sheet in the room, lit and seen from one corner.
struct MaterialRoom {
    PreparedScene scene;
    SimConfig config;

    MaterialRoom() {
        test::SceneBuilder b;
        MaterialModel floor, metal, mirror, glass;
        floor.type = MaterialType::Plastic;
        floor.reflectance = 0.3;
        floor.roughness = 0.15;
        metal.type = MaterialType::Conductor;
        metal.specular = 0.9;
        metal.roughness = 0.4;
        mirror.type = MaterialType::Conductor;
        mirror.specular = 0.95;
        mirror.roughness = 0.0;
        glass.type = MaterialType::Dielectric;
        b.roomShell({0, 0, 0}, {4, 3, 2.5}, 4, b.material("walls", 0.7f));
        b.rectangle({0, 0, 0.001}, {4, 0, 0}, {0, 3, 0}, 4, 4, b.material("floor", floor));
        b.box({2.6, 2.0, 0}, {3.4, 2.6, 1.4}, 2, b.material("cabinet", metal));
        b.rectangle({3.99, 0.5, 0.5}, {0, 0, 1.2}, {0, 1.2, 0}, 2, 2, b.material("mirror", mirror));
        b.rectangle({2.0, 0.6, 0.2}, {0, 0.8, 0}, {0, 0, 1.0}, 2, 2, b.material("glass", glass));
        scene = b.prepare();
        SceneDesc d = test::basicScene({0.3, 1.5, 1.5}, {4, 1.2, 0.6});
        d.sim.timesteps = 500;
        d.sensor.width = 24;
        d.sensor.height = 18;
        d.sensor.mode = SensorMode::Amcw;
        config = makeSimConfig(d);
        config.transport = Transport::Paths;
        config.pixelSampling.perPixel = 16;
        config.pixelSampling.boxFilter = true;
    }
};

} // namespace

TEST_CASE("paths: every Vulkan ray path traces the CPU's paths (materials of every type, box filter, AMCW)",
          "[paths][backends]") {
    const auto paths = test::vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    const std::string path = GENERATE_COPY(from_range(paths));
    CAPTURE(path);
    const MaterialRoom room;
    const SensorImage cpu = test::simulate("cpu", room.scene, room.config, false, true).image;
    const SensorImage gpu = test::simulate(path, room.scene, room.config, false, true).image;
    REQUIRE(gpu.depth.size() == cpu.depth.size());
    // The same sampler and the same steps: a pixel differs only where a path's hit point rounds
    // differently and the path goes elsewhere (a grazing ray, an edge). A few pixels may.
    std::size_t differing = 0, compared = 0;
    double total = 0.0, totalGpu = 0.0;
    for (std::size_t p = 0; p < cpu.depth.size(); ++p) {
        total += double(cpu.amplitude[p]);
        totalGpu += double(gpu.amplitude[p]);
        CHECK(std::isfinite(cpu.depth[p]) == std::isfinite(gpu.depth[p]));
        if (!std::isfinite(cpu.depth[p])) continue;
        ++compared;
        differing += !(std::abs(double(cpu.depth[p]) - gpu.depth[p]) <= 1e-3);
    }
    INFO(differing << " of " << compared << " pixels' ranges differ by more than 1 mm");
    CHECK(compared == cpu.depth.size());
    CHECK(differing <= compared / 50);
    CHECK_THAT(totalGpu, Catch::Matchers::WithinRel(total, 1e-3));
    CHECK(cpu.triangle == gpu.triangle);
}
