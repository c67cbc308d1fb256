// SPDX-License-Identifier: MIT
// The lens model of [sensor] intrinsics and distortion (issue 60, OpenCV's model): the field of
// view and its equivalent intrinsics give the same images, a distorted camera's rays reproject to
// their pixels through OpenCV's equations (written here in double, apart from
// include/rsim/shared/physics.h), the frustum is the image's, every backend casts the same rays,
// and bad keys are errors.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "support/test_scenes.h"
#include "util/error.h"

using namespace rsim;

namespace {

struct Lens {
    double fx, fy, cx, cy, k1, k2, p1, p2, k3;
};
constexpr Lens kLens{30.0, 31.5, 15.7, 11.2, -0.21, 0.06, 0.0012, -0.0021, 0.011};

// OpenCV's projection of normalised coordinates (x, y) to a pixel, in double.
glm::dvec2 project(const Lens& l, double x, double y) {
    const double r2 = x * x + y * y, radial = 1.0 + r2 * (l.k1 + r2 * (l.k2 + r2 * l.k3));
    const double xd = x * radial + 2.0 * l.p1 * x * y + l.p2 * (r2 + 2.0 * x * x);
    const double yd = y * radial + l.p1 * (r2 + 2.0 * y * y) + 2.0 * l.p2 * x * y;
    return {l.fx * xd + l.cx, l.fy * yd + l.cy};
}

using Room = test::BoxRoom;

SceneDesc withLens(SceneDesc d, const Lens& l) {
    d.sensor.intrinsics = std::array<double, 4>{l.fx, l.fy, l.cx, l.cy};
    d.sensor.distortion = {l.k1, l.k2, l.p1, l.p2, l.k3};
    return d;
}

} // namespace

TEST_CASE("lens: a field of view and its equivalent intrinsics give the same images", "[lens]") {
    const Room room;
    const SimConfig fov = makeSimConfig(room.desc);
    const double W = fov.width, H = fov.height;
    SceneDesc d = room.desc;
    d.sensor.intrinsics = std::array<double, 4>{W / (2.0 * std::tan(0.5 * d.sensor.fov_h_deg * M_PI / 180.0)),
                                                H / (2.0 * std::tan(0.5 * d.sensor.fov_v_deg * M_PI / 180.0)),
                                                0.5 * W - 0.5, 0.5 * H - 0.5};
    const SimConfig lens = makeSimConfig(d);
    const SensorImage a = test::simulate("cpu", room.scene, fov, false, true).image;
    const SensorImage b = test::simulate("cpu", room.scene, lens, false, true).image;
    std::size_t sameTriangle = 0;
    double worst = 0.0;
    for (std::size_t p = 0; p < a.depth.size(); ++p) {
        if (a.triangle[p] != b.triangle[p]) continue;
        ++sameTriangle;
        worst = std::max(worst, std::abs(double(a.trueDepth[p]) - b.trueDepth[p]));
        if (std::isfinite(a.depth[p])) worst = std::max(worst, std::abs(double(a.depth[p]) - b.depth[p]));
    }
    INFO(sameTriangle << " of " << a.depth.size() << " pixels see the same triangle; worst difference " << worst << " m");
    // The two compute each ray with other roundings: a ray that grazes an edge may pick its neighbour.
    CHECK(sameTriangle >= a.depth.size() * 99 / 100);
    CHECK(worst < 1e-4);
}

TEST_CASE("lens: a distorted camera's rays reproject to their pixels through OpenCV's model", "[lens]") {
    const Room room;
    const SimConfig c = makeSimConfig(withLens(room.desc, kLens));
    const shared::PinholeSensor& s = c.sensor;
    double worst = 0.0;
    for (std::uint32_t py = 0; py < c.height; ++py)
        for (std::uint32_t px = 0; px < c.width; ++px) {
            const glm::dvec3 dir(shared::rsimPixelDirection(s, px, py, c.width, c.height));
            const double z = glm::dot(dir, glm::dvec3(s.forward));
            const glm::dvec2 uv = project(kLens, glm::dot(dir, glm::dvec3(s.right)) / z, -glm::dot(dir, glm::dvec3(s.up)) / z);
            worst = std::max({worst, std::abs(uv.x - px), std::abs(uv.y - py)});
            // The ray's points are inside the sensor's frustum; past the image's border they are not.
            CHECK(shared::rsimFrustumWeight(s, s.position + 2.0f * glm::vec3(dir)) == 1.0f);
        }
    INFO("worst reprojection error " << worst << " pixels");
    CHECK(worst < 1e-3);
    for (const glm::dvec2 outside : {glm::dvec2(-1.5, 5.0), glm::dvec2(c.width + 0.6, 3.0), glm::dvec2(7.0, -0.9),
                                     glm::dvec2(4.0, c.height + 1.0)}) {
        // The ray through an image point outside the image, found by inverting the projection numerically.
        glm::dvec2 xy((outside.x - kLens.cx) / kLens.fx, (outside.y - kLens.cy) / kLens.fy);
        for (int k = 0; k < 200; ++k) {
            const glm::dvec2 uv = project(kLens, xy.x, xy.y);
            xy += glm::dvec2((outside.x - uv.x) / kLens.fx, (outside.y - uv.y) / kLens.fy);
        }
        const glm::vec3 p = s.position + 2.0f * (s.forward + float(xy.x) * s.right - float(xy.y) * s.up);
        CHECK(shared::rsimFrustumWeight(s, p) == 0.0f);
    }
}

TEST_CASE("lens: every backend casts a distorted camera's rays as the CPU does", "[lens][backends]") {
    const auto paths = test::vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    const std::string path = GENERATE_COPY(from_range(paths));
    CAPTURE(path);
    const Room room;
    const SimConfig c = makeSimConfig(withLens(room.desc, kLens));
    const SensorImage cpu = test::simulate("cpu", room.scene, c, false, true).image;
    const SensorImage gpu = test::simulate(path, room.scene, c, false, true).image;
    std::size_t same = 0;
    for (std::size_t p = 0; p < cpu.triangle.size(); ++p)
        same += cpu.triangle[p] == gpu.triangle[p] && std::abs(cpu.trueDepth[p] - gpu.trueDepth[p]) < 1e-4f;
    CHECK(same >= cpu.triangle.size() * 99 / 100);
}

TEST_CASE("lens: intrinsics and distortion are checked, each error naming its key", "[lens][scene][errors]") {
    test::TempDir dir;
    auto errorOf = [&](const std::string& sensorKeys) {
        std::string text = test::readFile(std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml");
        const std::string anchor = "mode = \"pulsed\"";
        text.replace(text.find(anchor), anchor.size(), anchor + "\n" + sensorKeys);
        const auto mesh = text.find("path = \"room.obj\"");
        text.replace(mesh, std::string("path = \"room.obj\"").size(),
                     "path = \"" + std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/room.obj\"");
        test::writeFile(dir / "scene.toml", text);
        try {
            loadSceneFile(dir / "scene.toml");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    using Catch::Matchers::ContainsSubstring;
    CHECK_THAT(errorOf("intrinsics = [100.0, 100.0, 79.5, 59.5]"), ContainsSubstring("either fov_deg or intrinsics"));
    const std::string noFov = "";
    CHECK_THAT(errorOf("distortion = [0.1, 0.0, 0.0]"), ContainsSubstring("distortion") && ContainsSubstring("5 numbers"));
    CHECK_THAT(errorOf("distortion = [1000.0, 0.0, 0.0, 0.0, 0.0]"), ContainsSubstring("at most 100"));
}
