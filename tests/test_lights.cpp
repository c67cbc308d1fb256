// SPDX-License-Identifier: MIT
// Several emitters (issue 60, point 3; pipeline/lights_batch.h): [[light]] tables read with
// clear errors, two lights give the sum of each alone in every output (light adds linearly), a
// light's delay moves its echoes, both backends agree, and a pulsed camera's lens scattering
// acts on the summed histograms.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "scene/light_profile.h"
#include "scene/scene_config.h"
#include "support/run_command.h"
#include "support/test_scenes.h"
#include "util/error.h"

using namespace rsim;
using Catch::Matchers::ContainsSubstring;

namespace {

// A room with a box; the camera's own light and a second one beside it, aimed elsewhere.
struct Room : test::BoxRoom {
    LightDesc second;
    Room() {
        desc.sim.samples = 8;
        desc.light.pulse = PulseShape::Gaussian;
        desc.light.pulse_fwhm_ns = 1.0;
        second.position = {0.3, 1.1, 1.2};
        second.direction = glm::normalize(glm::dvec3(1.0, -0.4, -0.2));
        second.half_angle_deg = 40.0;
        second.power_w = 0.7;
    }
    SceneDesc only(const LightDesc& l) const {
        SceneDesc d = desc;
        const LightDesc pulse = desc.light;
        d.light = l;
        d.light.pulse = pulse.pulse;
        d.light.pulse_fwhm_ns = pulse.pulse_fwhm_ns;
        d.sensor.position = desc.light.position;
        return d;
    }
    SceneDesc both() const {
        SceneDesc d = desc;
        d.moreLights = {second};
        return d;
    }
};

SimulationResult run(const std::string& backend, const PreparedScene& scene, const SceneDesc& d) {
    SimConfig c = makeSimConfig(d);
    return test::simulate(backend, scene, c, false, true);
}

// The worst |a + b - ab| relative to max |ab| over one output.
double sumError(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& ab) {
    REQUIRE(a.size() == ab.size());
    REQUIRE(b.size() == ab.size());
    double worst = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < ab.size(); ++i) {
        worst = std::max(worst, std::abs(double(a[i]) + double(b[i]) - double(ab[i])));
        scale = std::max(scale, std::abs(double(ab[i])));
    }
    REQUIRE(scale > 0.0);
    return worst / scale;
}

} // namespace

TEST_CASE("lights: [[light]] tables, placed in the world or on the camera, with clear errors", "[lights][scene]") {
    test::TempDir dir;
    const std::string obj = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/room.obj";
    auto scene = [&](const std::string& lights, const std::string& sensorPosition = "position = [0.25, 1.52, 1.5]\n") {
        test::writeFile(dir / "s.toml", "[simulation]\ntimesteps = 300\n" + lights +
                                            "[sensor]\n" + sensorPosition +
                                            "look_at = [4.0, 1.5, 1.0]\nresolution = [16, 12]\n"
                                            "[[mesh]]\npath = \"" + obj + "\"\n");
        return dir / "s.toml";
    };
    const SceneDesc d = loadSceneFile(scene("[[light]]\nposition = [0.25, 1.48, 1.5]\npulse = \"gaussian\"\n"
                                            "[[light]]\noffset_camera = [0.0, 0.1, 0.0]\n"
                                            "direction_camera = [0.0, 0.0, 1.0]\npower_w = 0.5\ndelay_ns = 0.3\n"));
    REQUIRE(d.moreLights.size() == 1);
    CHECK(d.light.pulse == PulseShape::Gaussian);
    // 10 cm down in the camera's frame; aimed along the optical axis.
    const glm::dvec3 fwd = glm::normalize(glm::dvec3(4.0, 1.5, 1.0) - glm::dvec3(0.25, 1.52, 1.5));
    const glm::dvec3 right = glm::normalize(glm::cross(fwd, glm::dvec3(0, 0, 1)));
    const glm::dvec3 down = glm::cross(fwd, right);
    CHECK(glm::length(d.moreLights[0].position - (glm::dvec3(0.25, 1.52, 1.5) + 0.1 * down)) < 1e-9);
    CHECK(glm::length(d.moreLights[0].direction - fwd) < 1e-9);
    CHECK(d.moreLights[0].delay_ns == 0.3);
    const SimConfig c = makeSimConfig(d);
    REQUIRE(c.emitters.size() == 2);
    CHECK(c.emitters[1].light.intensity == Catch::Approx(0.5 / (4.0 * M_PI)));
    CHECK_THROWS_WITH(loadSceneFile(scene("[[light]]\nposition = [0.25, 1.48, 1.5]\n[[light]]\npulse = \"gaussian\"\n")),
                      ContainsSubstring("[[light]] #2") && ContainsSubstring("first [[light]]"));
    CHECK_THROWS_WITH(loadSceneFile(scene("[[light]]\nposition = [0.2, 1.4, 1.5]\noffset_camera = [0.0, 0.0, 0.0]\n")),
                      ContainsSubstring("not both"));
    CHECK_THROWS_WITH(loadSceneFile(scene("[[light]]\noffset_camera = [0.0, 0.1, 0.0]\n", "")),
                      ContainsSubstring("[sensor] position is required"));
    CHECK_THROWS_WITH(
        loadSceneFile(scene("[[light]]\nposition = [0.25, 1.48, 1.5]\n[[light]]\nposition = [0.25, 1.4, 1.5]\n"),
                      {{"simulation.transport", "\"paths\""}}),
        ContainsSubstring("radiosity"));
}

TEST_CASE("lights: two lights give the sum of each alone, in every output", "[lights]") {
    const Room room;
    for (const SensorMode mode : {SensorMode::Amcw, SensorMode::Pulsed}) {
        auto with = [&](SceneDesc d) {
            d.sensor.mode = mode;
            return run("cpu", room.scene, d);
        };
        const SimulationResult a = with(room.only(room.desc.light)), b = with(room.only(room.second)),
                               ab = with(room.both());
        CAPTURE(int(mode));
        CHECK(sumError(a.B, b.B, ab.B) < 1e-5);
        CHECK(sumError(a.image.amplitude, b.image.amplitude, ab.image.amplitude) < 1e-5);
        std::vector<double> energy(ab.totalEnergy.size());
        double worst = 0.0;
        for (std::size_t i = 0; i < energy.size(); ++i)
            worst = std::max(worst, std::abs(a.totalEnergy[i] + b.totalEnergy[i] - ab.totalEnergy[i]) /
                                        std::max(ab.totalEnergy[i], 1e-30));
        CHECK(worst < 1e-4);
        for (std::size_t t = 0; t < ab.signalFwd.size(); ++t)
            CHECK(ab.signalFwd[t] == Catch::Approx(a.signalFwd[t] + b.signalFwd[t]).margin(1e-6 * ab.signalFwd[t] + 1e-30));
        if (mode == SensorMode::Amcw) {
            CHECK(sumError(a.image.phasor, b.image.phasor, ab.image.phasor) < 1e-5);
            CHECK(sumError(a.image.taps, b.image.taps, ab.image.taps) < 1e-5);
        }
        // The camera's own outputs are its centre rays': the same whatever the lights.
        CHECK(ab.image.trueDepth == a.image.trueDepth);
        CHECK(ab.image.triangle == a.image.triangle);
    }
}

TEST_CASE("lights: a light's delay lengthens its echoes by c times the delay", "[lights]") {
    const Room room;
    SceneDesc d = room.desc;
    d.sim.indirect = false;
    d.light.pulse = PulseShape::Delta;
    const SensorImage now = run("cpu", room.scene, d).image;
    d.light.delay_ns = 0.8; // c x 0.8 ns = 24 cm of path: 12 cm of range for a co-located camera
    const SensorImage later = run("cpu", room.scene, d).image;
    std::size_t compared = 0;
    for (std::size_t p = 0; p < now.depth.size(); ++p) {
        if (!std::isfinite(now.directDepth[p]) || !std::isfinite(later.directDepth[p])) continue;
        ++compared;
        CHECK(later.directDepth[p] - now.directDepth[p] ==
              Catch::Approx(0.5 * 0.299792458 * 0.8).margin(2e-3));
    }
    CHECK(compared > now.depth.size() / 2);
}

TEST_CASE("lights: every backend sums the lights as the CPU does", "[lights][backends]") {
    const auto paths = test::vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    const Room room;
    SceneDesc d = room.both();
    d.sensor.mode = SensorMode::Amcw;
    d.moreLights[0].delay_ns = 0.4; // lights of different pulses run one at a time
    const SimulationResult cpu = run("cpu", room.scene, d);
    const SimulationResult gpu = run(paths.front(), room.scene, d);
    std::size_t differ = 0;
    for (std::size_t p = 0; p < cpu.image.depth.size(); ++p)
        differ += !(std::abs(cpu.image.depth[p] - gpu.image.depth[p]) < 2e-3f);
    CHECK(differ <= cpu.image.depth.size() / 100);
    CHECK(sumError(cpu.image.amplitude, std::vector<float>(cpu.image.amplitude.size(), 0.0f), gpu.image.amplitude) <
          1e-3);
}

TEST_CASE("lights: a pulsed camera's lens scattering pulls dark far pixels towards bright near ones",
          "[lights][scattering]") {
    test::SceneBuilder b;
    b.rectangle({6.0, 4.0, -3.0}, {0.0, -8.0, 0.0}, {0.0, 0.0, 6.0}, 8, 8, b.material("far", 0.05f));
    b.rectangle({1.5, 2.0, -2.0}, {0.0, -2.0, 0.0}, {0.0, 0.0, 4.0}, 4, 4, b.material("near", 0.9f));
    const PreparedScene scene = b.prepare();
    SceneDesc d = test::basicScene({0.0, 0.0, 0.0}, {1.0, 0.0, 0.0});
    d.sim.indirect = false;
    d.sim.timesteps = 600;
    d.light.pulse = PulseShape::Gaussian;
    d.light.pulse_fwhm_ns = 2.0;
    const SensorImage clean = run("cpu", scene, d).image;
    d.sensorModel.scattering_fractions = {0.05};
    d.sensorModel.scattering_sigmas_px = {6.0};
    const SensorImage scattered = run("cpu", scene, d).image;
    CHECK(scattered.readout.scattered);
    double before = 0.0, after = 0.0;
    std::size_t far = 0;
    for (std::size_t p = 0; p < clean.depth.size(); ++p) {
        if (!(clean.trueDepth[p] > 5.0f) || !std::isfinite(clean.depth[p])) continue;
        ++far;
        before += std::abs(clean.depth[p] - clean.trueDepth[p]);
        after += scattered.depth[p] - scattered.trueDepth[p];
    }
    before /= double(far);
    after /= double(far);
    INFO(far << " far pixels: mean |error| without scattering " << before << " m, mean error with " << after << " m");
    REQUIRE(far > clean.depth.size() / 4);
    CHECK(before < 0.01);
    CHECK(after < -0.05); // the near panel's light pulls the matched filter's centroid nearer
}

TEST_CASE("lights: a batch of poses sums each pose's lights as a run of that pose alone", "[lights][batch][cli]") {
    test::TempDir dir;
    const std::string obj = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/room.obj";
    test::writeFile(dir / "s.toml", "[simulation]\ntimesteps = 300\nsamples = 4\n"
                                    "[[light]]\nposition = [0.25, 1.48, 1.5]\ndirection = [1.0, 0.0, -0.1]\n"
                                    "half_angle_deg = 60.0\npulse = \"gaussian\"\npulse_fwhm_ns = 1.0\n"
                                    "[[light]]\noffset_camera = [0.0, 0.1, 0.0]\ndirection_camera = [0.0, 0.0, 1.0]\n"
                                    "power_w = 0.5\ndelay_ns = 0.3\n"
                                    "[sensor]\nposition = [0.25, 1.52, 1.5]\nlook_at = [4.0, 1.5, 1.0]\n"
                                    "resolution = [40, 30]\nmode = \"amcw\"\n[[mesh]]\npath = \"" + obj + "\"\n");
    const std::string header = "name,x,y,z,look_x,look_y,look_z\n";
    const std::string a = "a,1.5,1.5,1.5,3.5,1.5,1.2\n", b = "b,2.4,1.2,1.4,0.5,1.6,1.0\n";
    test::writeFile(dir / "both.csv", header + a + b);
    test::writeFile(dir / "a.csv", header + a);
    test::writeFile(dir / "b.csv", header + b);
    const std::string run = "run " + (dir / "s.toml").string() + " --backend cpu --no-k-cache -q --no-progress --poses ";
    for (const char* name : {"both", "a", "b"}) {
        const auto r = test::runRsim(run + (dir / (std::string(name) + ".csv")).string() + " -o " + (dir / name).string());
        INFO(r.output);
        REQUIRE(r.exitCode == 0);
    }
    for (const char* pose : {"a", "b"}) {
        const auto cmp = test::runRsim("compare " + (dir / "both" / pose).string() + " " + (dir / pose / pose).string() +
                                       " --tol-m 0 --max-fraction 0 --tol-rel 0 --ignore-settings");
        INFO(pose << ": " << cmp.output);
        CHECK(cmp.exitCode == 0);
    }
}

namespace {

// A light's profile from CSV text, as the scene reader makes it (scene/light_profile.h).
std::shared_ptr<const LightProfile> profileOf(const test::TempDir& dir, const std::string& csv, bool grid) {
    test::writeFile(dir / "p.csv", csv);
    std::shared_ptr<LightProfile> p =
        grid ? readGridProfile(dir / "p.csv", "test") : readRadialProfile(dir / "p.csv", "test");
    finishProfile(*p, "test");
    return p;
}

} // namespace

TEST_CASE("lights: an angular profile from a CSV table, normalised to the light's power", "[lights][profile]") {
    const Room room;
    test::TempDir dir;
    SceneDesc d = room.desc;
    d.sim.indirect = false;
    auto amplitude = [&](const SceneDesc& s) { return run("cpu", room.scene, s).image.amplitude; };
    const std::vector<float> isotropic = amplitude(d);
    // A flat profile over every angle is the isotropic light.
    SceneDesc flat = d;
    flat.light.profile = profileOf(dir, "angle_deg,intensity\n0,1\n180,1\n", false);
    // cos(theta) on the front hemisphere, normalised to the power: 4 times a cos^1 falloff light,
    // whose P / (4 pi) only holds on the axis.
    std::string cosine = "angle_deg,intensity\n";
    for (int a = 0; a <= 180; ++a) cosine += std::to_string(a) + "," + std::to_string(std::max(0.0, std::cos(a * M_PI / 180))) + "\n";
    SceneDesc cos = d;
    cos.light.profile = profileOf(dir, cosine, false);
    SceneDesc falloff = d;
    falloff.light.falloff_exponent = 1.0;
    // A flat grid over +-89 degrees both ways: nearly the front hemisphere, so twice the isotropic light.
    SceneDesc grid = d;
    grid.light.profile = profileOf(dir, "v/h,-89,0,89\n-89,1,1,1\n0,1,1,1\n89,1,1,1\n", true);
    const std::vector<float> a = amplitude(flat), b = amplitude(cos), f = amplitude(falloff), g = amplitude(grid);
    std::size_t lit = 0;
    for (std::size_t p = 0; p < isotropic.size(); ++p) {
        if (!(isotropic[p] > 0.0f)) continue;
        ++lit;
        CHECK(a[p] == Catch::Approx(isotropic[p]).epsilon(1e-4));
        if (f[p] > 0.0f) CHECK(b[p] == Catch::Approx(4.0 * f[p]).epsilon(2e-3));
        CHECK(g[p] == Catch::Approx(2.0 * isotropic[p]).epsilon(0.03));
    }
    CHECK(lit > isotropic.size() / 2);
    // A window of the grid: no light beyond +-30 degrees horizontally of the light's axis (the image spans +-35).
    SceneDesc window = d;
    window.light.profile = profileOf(dir, "v/h,-30,-10,10,30\n-60,0,1,1,0\n60,0,1,1,0\n", true);
    const std::vector<float> w = amplitude(window);
    std::size_t inside = 0, outside = 0;
    for (float v : w) (v > 0.0f ? inside : outside) += 1;
    CHECK(inside > 0);
    CHECK(outside > 0);
}

TEST_CASE("lights: a profile's table is checked, each error naming the file", "[lights][profile][scene]") {
    test::TempDir dir;
    auto error = [&](const std::string& csv, bool grid) {
        test::writeFile(dir / "bad.csv", csv);
        try {
            auto p = grid ? readGridProfile(dir / "bad.csv", "t") : readRadialProfile(dir / "bad.csv", "t");
            finishProfile(*p, (dir / "bad.csv").string());
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    CHECK_THAT(error("angle_deg,intensity\n0,1\n30,1\n20,1\n", false), ContainsSubstring("angles must increase"));
    CHECK_THAT(error("angle_deg,intensity\n0,1\n30,-1\n", false), ContainsSubstring(">= 0"));
    CHECK_THAT(error("angle_deg,intensity\n0,0\n30,0\n", false), ContainsSubstring("zero in every direction"));
    CHECK_THAT(error("angle_deg,intensity\n0,1\n30,x\n", false), ContainsSubstring("bad.csv:3"));
    CHECK_THAT(error("v/h,-10,10\n-10,1\n10,1,1\n", true), ContainsSubstring("expected 3 columns"));
    CHECK_THAT(error("v/h,-10,10\n", true), ContainsSubstring("at least two rows"));
    CHECK_THROWS_WITH(readRadialProfile(dir / "missing.csv", "[light] profile"), ContainsSubstring("missing.csv"));
}

TEST_CASE("lights: every backend lights a profiled light as the CPU does", "[lights][profile][backends]") {
    const auto paths = test::vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    const Room room;
    test::TempDir dir;
    SceneDesc d = room.desc;
    d.light.profile = profileOf(dir, "v/h,-40,-10,10,40\n-30,0,1,1,0\n0,0.5,1,2,0.5\n30,0,1,1,0\n", true);
    const SimulationResult cpu = run("cpu", room.scene, d), gpu = run(paths.front(), room.scene, d);
    CHECK(sumError(cpu.image.amplitude, std::vector<float>(cpu.image.amplitude.size(), 0.0f), gpu.image.amplitude) <
          1e-3);
    CHECK(sumError(cpu.direct.irradiance, std::vector<float>(cpu.direct.irradiance.size(), 0.0f),
                   gpu.direct.irradiance) < 1e-3);
}
