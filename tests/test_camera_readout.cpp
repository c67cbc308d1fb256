// SPDX-License-Identifier: MIT
// The camera's readout (issue 60, points 4 to 6; distance/camera_readout.h): the frame's exposure
// sets the ambient light whatever the time grid, the noisy raw data (taps, gates) averages to the
// noise-free raw data with the predicted variance, a gated camera flags the echoes past its
// gates, the taps' per-frequency ranges carry square waves' wiggling, and the lens's scattering
// keeps the light and pulls dark far pixels towards bright near ones.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include "distance/camera_readout.h"
#include "distance/lens_scattering.h"
#include "scene/scene_config.h"
#include "support/test_scenes.h"
#include "util/error.h"

using namespace rsim;
using Catch::Matchers::ContainsSubstring;

namespace {

// A room with a box, seen by a 32 x 24 camera (test_scenes.h).
struct Room : test::BoxRoom {
    Room() { desc.sim.samples = 8; }
};

SceneDesc gated(SceneDesc d, double widthNs) {
    d.light.pulse = PulseShape::Rectangular;
    d.light.pulse_width_ns = widthNs;
    d.sensor.mode = SensorMode::Gated;
    return d;
}

// A wall facing the camera at x = `distance` (direct light only: every pixel a pure delay), and
// a bright near panel covering the image's left part when `panel`.
struct Wall {
    PreparedScene scene;
    SceneDesc desc;
    Wall(double distance, float reflectance, bool panel = false) {
        test::SceneBuilder b;
        b.rectangle({distance, 4.0, -3.0}, {0.0, -8.0, 0.0}, {0.0, 0.0, 6.0}, 8, 8, b.material("far", reflectance));
        if (panel) b.rectangle({1.5, 2.0, -2.0}, {0.0, -2.0, 0.0}, {0.0, 0.0, 4.0}, 4, 4, b.material("near", 0.9f));
        scene = b.prepare();
        desc = test::basicScene({0.0, 0.0, 0.0}, {1.0, 0.0, 0.0});
        desc.sim.indirect = false;
        desc.sim.timesteps = 600;
    }
};

SensorImage imageOf(const PreparedScene& scene, const SceneDesc& d) {
    return test::simulate("cpu", scene, makeSimConfig(d), false, true).image;
}

} // namespace

TEST_CASE("sensor model: the exposure sets the ambient electrons, whatever T and dt", "[readout][noise]") {
    const Room room;
    for (const SensorMode mode : {SensorMode::Amcw, SensorMode::Gated}) {
        auto ambient = [&](double dtNs, std::uint32_t T) {
            SceneDesc d = mode == SensorMode::Gated ? gated(room.desc, 10.0) : room.desc;
            d.sensor.mode = mode;
            d.sim.dt_ns = dtNs;
            d.sim.timesteps = T;
            d.sensorModel.enabled = true;
            d.sensorModel.ambient_w_m2 = 2.0;
            return imageOf(room.scene, d).readout.ambientElectrons;
        };
        const std::vector<float> a = ambient(0.1, 300), b = ambient(0.1, 600), c = ambient(0.05, 600);
        REQUIRE(a.size() == b.size());
        REQUIRE(a.size() == c.size());
        std::size_t lit = 0;
        for (std::size_t p = 0; p < a.size(); ++p) {
            INFO("mode " << int(mode) << ", pixel " << p);
            CHECK(b[p] == Catch::Approx(a[p]).epsilon(1e-5));
            CHECK(c[p] == Catch::Approx(a[p]).epsilon(1e-5));
            lit += a[p] > 0.0f;
        }
        CHECK(lit == a.size()); // the room surrounds the camera
    }
    // AMCW: a tap integrates the whole exposure, rho E_amb cos^4 a^2 f QE t_exp / (4 N^2 h c / lambda).
    SceneDesc d = room.desc;
    d.sensor.mode = SensorMode::Amcw;
    d.sensorModel.enabled = true;
    d.sensorModel.ambient_w_m2 = 2.0;
    d.sensorModel.exposure_us = 250.0;
    const SimConfig c = makeSimConfig(d);
    const double photon = 6.62607015e-34 * 299792458.0 / 850e-9;
    CHECK(c.noise.ambientPerReadout ==
          Catch::Approx(2.0 * 1e-10 * 0.3 * 250e-6 / (4.0 * 1.2 * 1.2) / photon).epsilon(1e-9));
}

TEST_CASE("sensor model: exposure, mean power and pulse rate in the scene file", "[readout][scene]") {
    test::TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    auto load = [&](std::vector<SceneOverride> o) { return loadSceneFile(scene, o); };
    const SceneDesc power = load({{"sensor_model.mean_power_w", "2.0"}, {"sensor_model.exposure_us", "500.0"}});
    CHECK(power.sensorModel.pulse_energy_uj == Catch::Approx(2.0 * 500.0 / 1000.0));
    const SceneDesc rate = load({{"sensor_model.pulse_rate_mhz", "0.5"}, {"sensor_model.exposure_us", "2000.0"}});
    CHECK(rate.sensorModel.pulses == 1000);
    CHECK_THROWS_WITH(load({{"sensor_model.pulses", "10"}, {"sensor_model.pulse_rate_mhz", "1.0"}}),
                      ContainsSubstring("pulse_rate_mhz") && ContainsSubstring("not both"));
    CHECK_THROWS_WITH(load({{"sensor_model.pulse_energy_uj", "1.0"}, {"sensor_model.mean_power_w", "1.0"}}),
                      ContainsSubstring("mean_power_w") && ContainsSubstring("not both"));
    CHECK_THROWS_WITH(load({{"sensor_model.pulse_rate_mhz", "1e-9"}}), ContainsSubstring("1 to 1e9 pulses"));
    // Lens scattering: one fraction per Gaussian, less than all the light.
    const std::vector<SceneOverride> amcw{{"sensor.mode", "\"amcw\""}};
    auto with = [&](std::vector<SceneOverride> o) {
        o.insert(o.begin(), amcw.begin(), amcw.end());
        return load(o);
    };
    CHECK(with({{"sensor_model.scattering_fractions", "[0.02, 0.01]"},
                {"sensor_model.scattering_sigmas_px", "[3.0, 30.0]"}})
              .sensorModel.scattering_sigmas_px.size() == 2);
    CHECK_THROWS_WITH(with({{"sensor_model.scattering_fractions", "[0.02]"},
                            {"sensor_model.scattering_sigmas_px", "[3.0, 30.0]"}}),
                      ContainsSubstring("as many entries"));
    CHECK_THROWS_WITH(with({{"sensor_model.scattering_fractions", "[0.6, 0.5]"},
                            {"sensor_model.scattering_sigmas_px", "[3.0, 30.0]"}}),
                      ContainsSubstring("less than 1"));
    // A pulsed camera's scattering acts on its histograms: the radiosity transport's sum of lights.
    CHECK(load({{"sensor_model.scattering_fractions", "[0.02]"}, {"sensor_model.scattering_sigmas_px", "[3.0]"}})
              .sensorModel.scattering_fractions.size() == 1);
    CHECK_THROWS_WITH(load({{"simulation.transport", "\"paths\""},
                            {"sensor_model.scattering_fractions", "[0.02]"},
                            {"sensor_model.scattering_sigmas_px", "[3.0]"}}),
                      ContainsSubstring("radiosity"));
}

TEST_CASE("sensor model: noisy taps and gates average to the noise-free raw data, with the predicted variance",
          "[readout][noise]") {
    const Room room;
    for (const SensorMode mode : {SensorMode::Amcw, SensorMode::Gated}) {
        SceneDesc d = mode == SensorMode::Gated ? gated(room.desc, 12.0) : room.desc;
        d.sensor.mode = mode;
        d.sensorModel.enabled = true;
        d.sensorModel.ambient_w_m2 = 0.05;
        d.sensorModel.read_noise_e = 4.0;
        d.sensorModel.pulse_energy_uj = 20.0;
        SimConfig c = makeSimConfig(d);
        const SensorImage image = imageOf(room.scene, d);
        const bool amcw = mode == SensorMode::Amcw;
        const std::vector<float>& clean = amcw ? image.taps : image.gates;
        const std::size_t pixels = image.amplitude.size();
        std::vector<double> sum(clean.size(), 0.0), sumSq(clean.size(), 0.0);
        const int draws = 200;
        for (int seed = 1; seed <= draws; ++seed) {
            c.noise.seed = std::uint32_t(seed);
            SensorImage copy = image;
            applyCameraReadout(copy, c, room.scene);
            const std::vector<float>& noisy = amcw ? copy.readout.noisyTaps : copy.readout.noisyGates;
            REQUIRE(noisy.size() == clean.size());
            for (std::size_t i = 0; i < noisy.size(); ++i) {
                sum[i] += noisy[i];
                sumSq[i] += double(noisy[i]) * noisy[i];
            }
        }
        // Each value's mean against its noise-free electrons, in standard errors of the mean of the
        // predicted variance: a tap's two buckets hold all the signal and ambient electrons and
        // two reads; a gate its own signal, the ambient and one read.
        double worstZ = 0.0, varianceRatio = 0.0;
        std::size_t counted = 0;
        for (std::size_t i = 0; i < clean.size(); ++i) {
            const std::size_t p = amcw ? (i / c.taps) % pixels : i % pixels;
            const double e = image.readout.electronsPerUnit.empty() ? 0.0 : image.readout.electronsPerUnit[p];
            REQUIRE(e > 0.0);
            const double expected = double(clean[i]) * e, ambient = image.readout.ambientElectrons[p];
            if (!(image.amplitude[p] > 0.0f)) continue;
            const double variance = amcw ? double(image.amplitude[p]) * e + ambient + 2.0 * 16.0
                                         : expected + ambient + 16.0;
            const double mean = sum[i] / draws, sample = sumSq[i] / draws - mean * mean;
            worstZ = std::max(worstZ, std::abs(mean - expected) / std::sqrt(variance / draws));
            varianceRatio += sample / variance;
            ++counted;
        }
        varianceRatio /= double(counted);
        INFO((amcw ? "taps" : "gates") << ": " << counted << " values, worst |z| " << worstZ
                                       << ", mean sample / predicted variance " << varianceRatio);
        REQUIRE(counted > pixels / 2);
        CHECK(worstZ < 5.5);
        CHECK(varianceRatio == Catch::Approx(1.0).margin(0.05));
    }
}

TEST_CASE("gated: an echo past the gates is flagged, counted and has no range; one within them is measured",
          "[readout][gated]") {
    // Two gates of 10 ns from t = 0 measure paths of 0 to 3 m: a wall at 1 m (paths of 2 to 2.7 m),
    // but not at 2 m (4 to 5.3 m: the second gate's light alone).
    for (const double distance : {1.0, 2.0}) {
        const Wall wall(distance, 0.5f);
        const SensorImage img = imageOf(wall.scene, gated(wall.desc, 10.0));
        std::size_t hit = 0, measured = 0, flagged = 0;
        for (std::size_t p = 0; p < img.depth.size(); ++p) {
            if (img.triangle[p] < 0) continue;
            ++hit;
            measured += std::isfinite(img.depth[p]) && std::abs(img.depth[p] - img.trueDepth[p]) < 1e-3f;
            flagged += img.readout.outOfRangeMask[p] == 1 && std::isnan(img.depth[p]);
        }
        INFO("wall at " << distance << " m: " << hit << " pixels hit, " << measured << " measured, " << flagged
                        << " flagged");
        REQUIRE(hit > img.depth.size() / 2);
        CHECK(img.readout.outOfRange == flagged);
        if (distance < 1.5) {
            CHECK(measured == hit);
            CHECK(flagged == 0);
        } else {
            CHECK(flagged == hit);
            CHECK_THAT(outOfRangeWarning(img, makeSimConfig(gated(wall.desc, 10.0))), ContainsSubstring("NaN"));
        }
    }
}

TEST_CASE("AMCW: the taps' ranges equal the phasor's for sinusoids and carry square waves' wiggling",
          "[readout][amcw]") {
    const Wall wall(3.0, 0.5f);
    SceneDesc d = wall.desc;
    d.sensor.mode = SensorMode::Amcw;
    const SensorImage sine = imageOf(wall.scene, d);
    d.sensor.waveform = "square";
    const SensorImage square = imageOf(wall.scene, d);
    double sineWorst = 0.0, squareWorst = 0.0, squareDepthWorst = 0.0;
    for (std::size_t p = 0; p < sine.depth.size(); ++p) {
        if (!std::isfinite(sine.depth[p])) continue;
        sineWorst = std::max(sineWorst, double(std::abs(sine.readout.tapsRange[p] - sine.depth[p])));
        squareWorst = std::max(squareWorst, double(std::abs(square.readout.tapsRange[p] - square.trueDepth[p])));
        squareDepthWorst = std::max(squareDepthWorst, double(std::abs(square.depth[p] - square.trueDepth[p])));
    }
    INFO("worst |taps' range - range|: sinusoidal " << sineWorst << " m; square: taps " << squareWorst
                                                    << " m, phasor " << squareDepthWorst << " m");
    CHECK(sineWorst < 2e-3);
    CHECK(squareDepthWorst < 2e-3); // the phasor's estimate has no wiggling
    CHECK(squareWorst > 0.01);      // the taps' has (4 taps of a square wave: centimetres at 20 MHz)
    CHECK(squareWorst < 0.5);
}

TEST_CASE("lens scattering keeps the light on the sensor and spreads it as its Gaussians", "[readout][scattering]") {
    const std::uint32_t W = 81, H = 61;
    SimConfig::Scattering s;
    s.fractions = {0.1, 0.05};
    s.sigmasPx = {2.0, 6.0};
    // Two interleaved channels: a spot in the first, nothing in the second.
    std::vector<float> img(std::size_t(W) * H * 2, 0.0f);
    const std::size_t centre = std::size_t(30) * W + 40;
    img[centre * 2] = 1000.0f;
    scatterLight(img, W, H, 2, s);
    double total = 0.0, second = 0.0, moment = 0.0;
    for (std::size_t p = 0; p < std::size_t(W) * H; ++p) {
        total += img[p * 2];
        second += img[p * 2 + 1];
        const double dx = double(p % W) - 40.0, dy = double(p / W) - 30.0;
        moment += img[p * 2] * (dx * dx + dy * dy);
    }
    CHECK(total == Catch::Approx(1000.0).epsilon(1e-5));
    CHECK(second == 0.0);
    CHECK(img[centre * 2] > 850.0f); // the delta's 85 % stays, plus the Gaussians' peaks
    // The spread's second moment: sum_k f_k 2 sigma_k^2 (x and y).
    CHECK(moment / 1000.0 == Catch::Approx(0.1 * 2 * 4.0 + 0.05 * 2 * 36.0).epsilon(5e-3));
}

TEST_CASE("lens scattering pulls the depth of dark far pixels towards a bright near surface", "[readout][scattering]") {
    const Wall scene(6.0, 0.05f, true);
    SceneDesc d = scene.desc;
    d.sensor.mode = SensorMode::Amcw;
    d.sensor.modulation_mhz = {10.0}; // unambiguous to 15 m
    d.sensor.width = 64;
    d.sensor.height = 48;
    const SensorImage clean = imageOf(scene.scene, d);
    d.sensorModel.scattering_fractions = {0.05};
    d.sensorModel.scattering_sigmas_px = {8.0};
    const SensorImage scattered = imageOf(scene.scene, d);
    CHECK(scattered.readout.scattered);
    // Far-wall pixels: the clean estimate is the true range; scattered, it is pulled shorter.
    double cleanWorst = 0.0, bias = 0.0, amplitudeBefore = 0.0, amplitudeAfter = 0.0;
    std::size_t far = 0;
    for (std::size_t p = 0; p < clean.depth.size(); ++p) {
        amplitudeBefore += clean.amplitude[p];
        amplitudeAfter += scattered.amplitude[p];
        if (!(clean.trueDepth[p] > 5.0f)) continue;
        ++far;
        cleanWorst = std::max(cleanWorst, double(std::abs(clean.depth[p] - clean.trueDepth[p])));
        bias += scattered.depth[p] - scattered.trueDepth[p];
    }
    bias /= double(far);
    INFO(far << " far pixels: clean worst error " << cleanWorst << " m, scattered mean error " << bias << " m");
    REQUIRE(far > clean.depth.size() / 4);
    CHECK(cleanWorst < 5e-3);
    CHECK(bias < -0.1);
    // Light only leaves past the sensor's edges.
    CHECK(amplitudeAfter <= amplitudeBefore * (1.0 + 1e-5));
    CHECK(amplitudeAfter > amplitudeBefore * 0.95);
}

TEST_CASE("gated: the GPU's gates are the CPU's", "[readout][gated][vulkan]") {
    const auto paths = test::vulkanPathsAvailable();
    if (paths.empty()) SKIP("no Vulkan device with ray tracing");
    const Room room;
    const SceneDesc d = gated(room.desc, 12.0);
    const SimConfig c = makeSimConfig(d);
    const SensorImage cpu = test::simulate("cpu", room.scene, c, false, true).image;
    const SensorImage gpu = test::simulate(paths.front(), room.scene, c, false, true).image;
    REQUIRE(gpu.gates.size() == cpu.gates.size());
    REQUIRE(!cpu.gates.empty());
    const double scale = *std::max_element(cpu.gates.begin(), cpu.gates.end());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < cpu.gates.size(); ++i) differ += std::abs(gpu.gates[i] - cpu.gates[i]) > 2e-3 * scale;
    CHECK(differ <= cpu.gates.size() / 100); // a ray grazing an edge may see the neighbour
    CHECK(gpu.readout.outOfRange == Catch::Approx(double(cpu.readout.outOfRange)).margin(cpu.gates.size() / 100.0));
}
