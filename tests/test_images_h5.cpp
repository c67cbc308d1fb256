// SPDX-License-Identifier: MIT
// images.h5 (MODEL.md §8): each pixel output re-derived from its definition on the tiny room,
// independently of rsim's own ray casting: the true range by a brute-force ray cast written
// here, through the camera the file itself describes (camera/K, camera/world_from_camera).
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <hdf5.h>

#include "support/h5_read.h"
#include "support/run_command.h"
#include "support/test_scenes.h"
#include "vulkan/instance.h"

using namespace rsim::test;
namespace fs = std::filesystem;

namespace {

using Vec = std::array<double, 3>;
Vec sub(Vec a, Vec b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec cross(Vec a, Vec b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
double dot(Vec a, Vec b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// Möller–Trumbore: the ray's parameter at the triangle, or infinity.
double intersect(Vec o, Vec d, Vec a, Vec b, Vec c) {
    const Vec e1 = sub(b, a), e2 = sub(c, a), p = cross(d, e2);
    const double det = dot(e1, p);
    if (std::abs(det) < 1e-14) return INFINITY;
    const Vec s = sub(o, a);
    const double u = dot(s, p) / det;
    if (u < 0.0 || u > 1.0) return INFINITY;
    const Vec q = cross(s, e1);
    const double v = dot(d, q) / det;
    if (v < 0.0 || u + v > 1.0) return INFINITY;
    const double t = dot(e2, q) / det;
    return t > 0.0 ? t : INFINITY;
}

} // namespace

TEST_CASE("images.h5: true range from an independent ray cast, z-depth, ids, direct-only range", "[images][cli]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    const auto run = runRsim("run " + scene + " --backend cpu --timesteps 400 --samples 4 --no-progress -q -o " +
                             (dir / "out").string());
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    const fs::path images = dir / "out" / "images.h5", series = dir / "out" / "timeseries.h5";
    REQUIRE(fs::is_regular_file(images));

    std::vector<hsize_t> dims;
    const auto rangeTrue = readAll<float>(images, "range_true_m", H5T_NATIVE_FLOAT, &dims);
    REQUIRE(dims.size() == 2);
    const std::size_t H = dims[0], W = dims[1];
    const auto range = readAll<float>(images, "range_m", H5T_NATIVE_FLOAT);
    const auto rangeError = readAll<float>(images, "range_error_m", H5T_NATIVE_FLOAT);
    const auto rangeDirect = readAll<float>(images, "range_direct_m", H5T_NATIVE_FLOAT);
    const auto zTrue = readAll<float>(images, "z_depth_true_m", H5T_NATIVE_FLOAT);
    const auto triangle = readAll<std::int32_t>(images, "triangle_id", H5T_NATIVE_INT32);
    const auto K = readAll<double>(images, "camera/K", H5T_NATIVE_DOUBLE);
    const auto M = readAll<double>(images, "camera/world_from_camera", H5T_NATIVE_DOUBLE);
    // The triangles in id order, from timeseries.h5.
    const auto vertices = readAll<double>(series, "geometry/vertices", H5T_NATIVE_DOUBLE);
    const std::size_t n = vertices.size() / 9;
    REQUIRE(n == 566);

    const Vec origin = {M[3], M[7], M[11]}, forward = {M[2], M[6], M[10]};
    std::size_t checked = 0, hits = 0, directChecked = 0;
    for (std::size_t y = 0; y < H; y += 7)
        for (std::size_t x = 0; x < W; x += 5) {
            const std::size_t p = y * W + x;
            // The pixel's ray from the file's camera: K^-1 (x, y, 1), then to the world.
            const Vec cam = {(double(x) - K[2]) / K[0], (double(y) - K[5]) / K[4], 1.0};
            Vec d = {M[0] * cam[0] + M[1] * cam[1] + M[2] * cam[2], M[4] * cam[0] + M[5] * cam[1] + M[6] * cam[2],
                     M[8] * cam[0] + M[9] * cam[1] + M[10] * cam[2]};
            const double len = std::sqrt(dot(d, d));
            for (double& c : d) c /= len;
            double best = INFINITY, second = INFINITY;
            std::size_t bestId = 0;
            for (std::size_t id = 0; id < n; ++id) {
                const double* v = &vertices[id * 9];
                const double t = intersect(origin, d, {v[0], v[1], v[2]}, {v[3], v[4], v[5]}, {v[6], v[7], v[8]});
                if (t < best) {
                    second = best;
                    best = t;
                    bestId = id;
                } else if (t < second) {
                    second = t;
                }
            }
            ++checked;
            INFO("pixel (" << x << ", " << y << ")");
            if (!std::isfinite(best)) {
                CHECK(std::isnan(rangeTrue[p]));
                CHECK(triangle[p] == -1);
                continue;
            }
            ++hits;
            CHECK(std::abs(double(rangeTrue[p]) - best) <= 1e-4 * best);
            // The triangle seen, unless the ray meets two at the same distance (an edge, a twin).
            if (second - best > 1e-5) CHECK(triangle[p] == std::int32_t(bestId));
            CHECK(std::abs(double(zTrue[p]) - best * dot(d, forward)) <= 1e-4 * best);
            if (!std::isnan(range[p])) CHECK(rangeError[p] == range[p] - rangeTrue[p]);
            // The direct signal alone is a pure delay: its estimate is the true range (MODEL.md §6).
            if (!std::isnan(rangeDirect[p])) {
                ++directChecked;
                CHECK(std::abs(double(rangeDirect[p]) - best) <= 1e-3);
            }
        }
    CHECK(checked > 400);
    CHECK(hits == checked); // a closed room
    CHECK(directChecked > hits / 2);
}

TEST_CASE("images.h5 on the Vulkan backend matches the CPU reference's", "[images][vulkan][cli]") {
    if (vulkanPathsAvailable().empty()) SKIP("no Vulkan device with ray tracing");
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    for (const char* backend : {"cpu", "vulkan"}) {
        const auto run = runRsim("run " + scene + " --backend " + std::string(backend) +
                                 " --timesteps 400 --samples 4 --no-progress -q --no-timeseries -o " +
                                 (dir / backend).string());
        INFO(run.output);
        REQUIRE(run.exitCode == 0);
    }
    const fs::path a = dir / "cpu" / "images.h5", b = dir / "vulkan" / "images.h5";
    const auto idA = readAll<std::int32_t>(a, "triangle_id", H5T_NATIVE_INT32);
    const auto idB = readAll<std::int32_t>(b, "triangle_id", H5T_NATIVE_INT32);
    REQUIRE(idA.size() == idB.size());
    std::size_t sameId = 0;
    for (std::size_t p = 0; p < idA.size(); ++p) sameId += idA[p] == idB[p];
    CHECK(sameId >= idA.size() - idA.size() / 1000); // rays along shared edges may pick either
    for (const char* name : {"range_true_m", "range_direct_m", "z_depth_true_m"}) {
        const auto x = readAll<float>(a, name, H5T_NATIVE_FLOAT), y = readAll<float>(b, name, H5T_NATIVE_FLOAT);
        std::size_t mismatch = 0;
        for (std::size_t p = 0; p < x.size(); ++p)
            if (std::isnan(x[p]) != std::isnan(y[p]) || std::abs(x[p] - y[p]) > 1e-4f) ++mismatch;
        INFO(name);
        CHECK(mismatch <= x.size() / 1000);
    }
    // AMCW raw data and transients (square modulation: the taps are summed, not derived).
    for (const char* backend : {"cpu", "vulkan"}) {
        const auto run = runRsim("run " + scene + " --backend " + std::string(backend) +
                                 " --timesteps 400 --samples 4 --no-progress -q --no-timeseries " +
                                 "--set sensor.mode='\"amcw\"' --set sensor.waveform='\"square\"' " +
                                 "--set output.transient=true --set 'output.transient_roi=[40, 30, 20, 10]' -o " +
                                 (dir / (std::string(backend) + "-amcw")).string());
        INFO(run.output);
        REQUIRE(run.exitCode == 0);
    }
    const fs::path c = dir / "cpu-amcw" / "images.h5", g = dir / "vulkan-amcw" / "images.h5";
    // The transients agree bin by bin; the AMCW sums integrate the whole multipath tail, where
    // two ray tracers' K differ most (docs/model-choices.md, "AMCW and K's edge pairs"): on a
    // GPU against Embree, phasors differ by up to 0.8% of the largest (7e-5 on lavapipe).
    for (auto [name, tolerance] : {std::pair{"transient", 1e-3f}, {"amcw/phasor", 2e-2f}, {"amcw/taps", 2e-2f}}) {
        const auto x = readAll<float>(c, name, H5T_NATIVE_FLOAT), y = readAll<float>(g, name, H5T_NATIVE_FLOAT);
        REQUIRE(x.size() == y.size());
        float peak = 0.0f;
        for (float v : x) peak = std::max(peak, std::abs(v));
        std::size_t mismatch = 0;
        for (std::size_t p = 0; p < x.size(); ++p) mismatch += std::abs(x[p] - y[p]) > tolerance * peak;
        INFO(name);
        CHECK(peak > 0.0f);
        CHECK(mismatch <= x.size() / 1000);
    }
}

namespace {

// The phase a K-tap camera computes (MODEL.md §8), from taps c_k at theta_k = 2 pi k / K.
double tapsPhase(const std::vector<double>& c) {
    double re = 0.0, im = 0.0;
    for (std::size_t k = 0; k < c.size(); ++k) {
        const double theta = 2.0 * M_PI * double(k) / double(c.size());
        re += c[k] * std::cos(theta);
        im += c[k] * std::sin(theta);
    }
    const double phi = std::atan2(im, re);
    return phi - 2.0 * M_PI * std::floor(phi / (2.0 * M_PI));
}

double angleDiff(double a, double b) { return std::abs(std::remainder(a - b, 2.0 * M_PI)); }

} // namespace

TEST_CASE("images.h5: AMCW phasors, phases and taps re-derived from the pixel transients", "[images][amcw][cli]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    for (const std::string waveform : {"sinusoidal", "square"}) {
        const fs::path out = dir / waveform;
        // A delta pulse: the phases below carry no pulse phase.
        const auto run = runRsim("run " + scene + " --backend cpu --timesteps 600 --samples 4 --no-progress -q " +
                                 "--set light.pulse=delta " +
                                 "--no-timeseries --set sensor.mode='\"amcw\"' --set 'sensor.modulation_mhz=[20.0, 50.0]' " +
                                 "--set sensor.taps=5 --set sensor.waveform='\"" + waveform + "\"' " +
                                 "--set output.transient=true -o " + out.string());
        INFO(run.output);
        REQUIRE(run.exitCode == 0);
        const fs::path file = out / "images.h5";
        std::vector<hsize_t> dims;
        const auto transient = readAll<float>(file, "transient", H5T_NATIVE_FLOAT, &dims);
        REQUIRE(dims.size() == 3);
        const std::size_t pixels = dims[0] * dims[1], T = dims[2];
        CHECK(T == 600);
        const auto mhz = readAll<float>(file, "amcw/frequencies_mhz", H5T_NATIVE_FLOAT);
        REQUIRE(mhz.size() == 2);
        const auto phasor = readAll<float>(file, "amcw/phasor", H5T_NATIVE_FLOAT);
        const auto phase = readAll<float>(file, "amcw/phase_rad", H5T_NATIVE_FLOAT);
        const auto taps = readAll<float>(file, "amcw/taps", H5T_NATIVE_FLOAT, &dims);
        const auto fromTaps = readAll<float>(file, "amcw/phase_from_taps_rad", H5T_NATIVE_FLOAT);
        REQUIRE(dims.back() == 5);
        const std::size_t K = 5;
        // The whole-signal sums must match the pixel amplitude too.
        const auto amplitude = readAll<float>(file, "amplitude", H5T_NATIVE_FLOAT);
        double maxDiffWaveforms = 0.0;
        for (std::size_t f = 0; f < 2; ++f) {
            const double omega = 2.0 * M_PI * double(mhz[f]) * 1e-3 * 0.1; // dt = 0.1 ns
            double peak = 0.0;
            for (std::size_t p = 0; p < pixels; ++p)
                peak = std::max(peak, std::hypot(double(phasor[(f * pixels + p) * 2]), double(phasor[(f * pixels + p) * 2 + 1])));
            REQUIRE(peak > 0.0);
            std::size_t compared = 0;
            for (std::size_t p = 0; p < pixels; p += 3) {
                const float* s = &transient[p * T];
                double re = 0.0, im = 0.0, sum = 0.0;
                std::vector<double> c(K, 0.0);
                for (std::size_t t = 0; t < T; ++t) {
                    re += double(s[t]) * std::cos(omega * double(t));
                    im -= double(s[t]) * std::sin(omega * double(t));
                    sum += double(s[t]);
                    for (std::size_t k = 0; k < K; ++k) {
                        const double x = omega * double(t) / (2.0 * M_PI) - double(k) / double(K);
                        const double frac = x - std::floor(x);
                        c[k] += double(s[t]) * (waveform == "square" ? 1.0 - 4.0 * std::min(frac, 1.0 - frac)
                                                                     : std::cos(2.0 * M_PI * x));
                    }
                }
                INFO(waveform << " f " << mhz[f] << " pixel " << p);
                if (f == 0) CHECK(std::abs(sum - double(amplitude[p])) <= 1e-5 * std::max(1.0, std::abs(sum)));
                CHECK(std::abs(re - double(phasor[(f * pixels + p) * 2])) <= 1e-5 * peak);
                CHECK(std::abs(im - double(phasor[(f * pixels + p) * 2 + 1])) <= 1e-5 * peak);
                for (std::size_t k = 0; k < K; ++k) CHECK(std::abs(c[k] - double(taps[(f * pixels + p) * K + k])) <= 1e-5 * peak);
                // Phases only where the signal is well above rounding (a delta pulse: no pulse phase).
                if (std::hypot(re, im) < 1e-3 * peak) continue;
                ++compared;
                const double phi = std::atan2(-im, re);
                CHECK(angleDiff(phi, phase[f * pixels + p]) <= 1e-4);
                CHECK(angleDiff(tapsPhase(c), fromTaps[f * pixels + p]) <= 1e-4);
                maxDiffWaveforms = std::max(maxDiffWaveforms, angleDiff(phase[f * pixels + p], fromTaps[f * pixels + p]));
            }
            CHECK(compared > pixels / 10);
        }
        // Sinusoidal taps carry the phasor's phase exactly; square modulation's taps do not
        // (its correlation has odd harmonics: the "wiggling" error of real cameras).
        if (waveform == "sinusoidal") CHECK(maxDiffWaveforms <= 1e-4);
        else CHECK(maxDiffWaveforms > 1e-2);
    }
}

TEST_CASE("images.h5: the transient's window and region are a slice of the whole one", "[images][cli]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    const std::string common = "run " + scene + " --backend cpu --timesteps 300 --samples 4 --no-progress -q " +
                               "--no-timeseries --set output.transient=true ";
    REQUIRE(runRsim(common + "-o " + (dir / "whole").string()).exitCode == 0);
    const auto part = runRsim(common + "--set output.transient_start=100 --set output.transient_bins=50 " +
                              "--set 'output.transient_roi=[10, 20, 30, 40]' -o " + (dir / "part").string());
    INFO(part.output);
    REQUIRE(part.exitCode == 0);
    std::vector<hsize_t> wd, pd;
    const auto whole = readAll<float>(dir / "whole" / "images.h5", "transient", H5T_NATIVE_FLOAT, &wd);
    const auto slice = readAll<float>(dir / "part" / "images.h5", "transient", H5T_NATIVE_FLOAT, &pd);
    REQUIRE(pd == std::vector<hsize_t>{40, 30, 50});
    std::size_t differ = 0;
    for (std::size_t y = 0; y < 40; ++y)
        for (std::size_t x = 0; x < 30; ++x)
            for (std::size_t b = 0; b < 50; ++b)
                differ += slice[(y * 30 + x) * 50 + b] != whole[((y + 20) * wd[1] + x + 10) * wd[2] + 100 + b];
    CHECK(differ == 0);
    // Outside the image, or past the window: refused before any work, naming the key.
    const auto bad = runRsim(common + "--set 'output.transient_roi=[150, 0, 20, 10]' -o " + (dir / "bad").string());
    CHECK(bad.exitCode == 2);
    CHECK(bad.output.find("transient_roi") != std::string::npos);
    const auto late = runRsim(common + "--set output.transient_start=300 -o " + (dir / "late").string());
    CHECK(late.exitCode == 2);
    CHECK(late.output.find("transient_start") != std::string::npos);
}

TEST_CASE("images.h5: a gated camera's range of a pure delay is the true range", "[images][gated][cli]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    // Two 40 ns gates from t = 0 cover every round trip of the tiny room.
    const std::string gated = "--set light.pulse='\"rectangular\"' --set light.pulse_width_ns=40 "
                              "--set sensor.mode='\"gated\"' ";
    const auto run = runRsim("run " + scene + " --backend cpu --samples 4 --no-progress -q --no-timeseries " + gated +
                             "--set simulation.indirect=false -o " + (dir / "direct").string());
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    const fs::path file = dir / "direct" / "images.h5";
    const auto range = readAll<float>(file, "range_m", H5T_NATIVE_FLOAT);
    const auto truth = readAll<float>(file, "range_true_m", H5T_NATIVE_FLOAT);
    std::size_t measured = 0;
    for (std::size_t p = 0; p < range.size(); ++p) {
        if (std::isnan(range[p])) continue;
        ++measured;
        INFO("pixel " << p);
        CHECK(std::abs(range[p] - truth[p]) <= 1e-4f);
    }
    CHECK(measured > range.size() / 2);
    // With the room's multipath, the second gate collects late light: ranges come out long.
    const auto multi = runRsim("run " + scene + " --backend cpu --samples 4 --no-progress -q --no-timeseries " + gated +
                               "-o " + (dir / "multipath").string());
    REQUIRE(multi.exitCode == 0);
    const auto longer = readAll<float>(dir / "multipath" / "images.h5", "range_error_m", H5T_NATIVE_FLOAT);
    std::size_t positive = 0, finite = 0;
    for (float e : longer)
        if (!std::isnan(e)) {
            ++finite;
            positive += e > 0.01f;
        }
    CHECK(positive > finite / 2);
}

TEST_CASE("images.h5: the sensor model's electrons, shot noise scaling and seeds", "[images][noise][cli]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    auto run = [&](const std::string& name, const std::string& options) {
        // A delta pulse, as the scaling below was measured with.
        const auto r = runRsim("run " + scene + " --backend cpu --samples 4 --timesteps 400 --no-progress -q " +
                               "--no-timeseries --set light.pulse=delta " + options + " -o " + (dir / name).string());
        INFO(r.output);
        REQUIRE(r.exitCode == 0);
        return dir / name / "images.h5";
    };
    const std::string model = "--set sensor_model.enabled=true --set sensor_model.read_noise_e=0 "
                              "--set sensor_model.f_number=2 --set sensor_model.pixel_pitch_um=5 ";
    const fs::path clean = run("clean", ""), weak = run("weak", model + "--set sensor_model.pulse_energy_uj=2"),
                   strong = run("strong", model + "--set sensor_model.pulse_energy_uj=200"),
                   again = run("again", model + "--set sensor_model.pulse_energy_uj=2"),
                   other = run("other", model + "--set sensor_model.pulse_energy_uj=2 --set sensor_model.seed=9");
    // The noise-free outputs stay as they were.
    CHECK(readAll<float>(clean, "range_m", H5T_NATIVE_FLOAT) == readAll<float>(weak, "range_m", H5T_NATIVE_FLOAT));
    // One seed, one draw; another seed, another.
    const auto w = readAll<float>(weak, "noise/range_m", H5T_NATIVE_FLOAT);
    const auto a = readAll<float>(again, "noise/range_m", H5T_NATIVE_FLOAT);
    const auto o = readAll<float>(other, "noise/range_m", H5T_NATIVE_FLOAT);
    std::size_t same = 0, differ = 0;
    for (std::size_t p = 0; p < w.size(); ++p) {
        same += (w[p] == a[p]) || (std::isnan(w[p]) && std::isnan(a[p]));
        differ += !(w[p] == o[p]);
    }
    CHECK(same == w.size());
    CHECK(differ > w.size() / 2);
    // Electrons from the radiometric chain (MODEL.md §8): amplitude x (Q / P) x pitch^2 x fill
    // x QE / (4 N^2) / (h c / lambda) x pulses x cos^4 of the ray's angle.
    const auto amplitude = readAll<float>(weak, "amplitude", H5T_NATIVE_FLOAT);
    const auto electrons = readAll<float>(weak, "noise/signal_electrons", H5T_NATIVE_FLOAT);
    const auto K = readAll<double>(weak, "camera/K", H5T_NATIVE_DOUBLE);
    std::vector<hsize_t> dims;
    readAll<float>(weak, "range_m", H5T_NATIVE_FLOAT, &dims);
    const std::size_t W = dims[1];
    const double photon = 6.62607015e-34 * 299792458.0 / 850e-9;
    const double perUnit = (2e-6 / 1.0) * 25e-12 * 1.0 * 0.3 / (4.0 * 4.0) / photon * 1000.0;
    for (std::size_t p = 0; p < amplitude.size(); p += 997) {
        const double x = (double(p % W) - K[2]) / K[0], y = (double(p / W) - K[5]) / K[4];
        const double cos2 = 1.0 / (1.0 + x * x + y * y);
        INFO("pixel " << p);
        CHECK(double(electrons[p]) == Catch::Approx(double(amplitude[p]) * perUnit * cos2 * cos2).epsilon(1e-4));
    }
    // Shot noise: 100 times the light (14 and 1,400 electrons per pixel in the median), a tenth
    // of the error (RMS over the pixels; 11.3 when written).
    const auto rangeClean = readAll<float>(clean, "range_m", H5T_NATIVE_FLOAT);
    const auto s = readAll<float>(strong, "noise/range_m", H5T_NATIVE_FLOAT);
    auto rms = [&](const std::vector<float>& v) {
        double sum = 0.0;
        std::size_t count = 0;
        for (std::size_t p = 0; p < v.size(); ++p)
            if (!std::isnan(v[p]) && !std::isnan(rangeClean[p])) {
                sum += double(v[p] - rangeClean[p]) * double(v[p] - rangeClean[p]);
                ++count;
            }
        REQUIRE(count > v.size() / 2);
        return std::sqrt(sum / double(count));
    };
    const double ratio = rms(w) / rms(s);
    INFO("RMS error, weak / strong light: " << ratio);
    CHECK(ratio > 7.0);
    CHECK(ratio < 15.0);
}

TEST_CASE("images.exr holds images.h5's float images, row 0 at the top", "[images][cli]") {
    TempDir dir;
    const std::string scene = std::string(RSIM_SOURCE_DIR) + "/scenes/tiny-room/scene.toml";
    const auto run = runRsim("run " + scene + " --backend cpu --timesteps 300 --samples 4 --no-progress -q " +
                             "--no-timeseries -o " + (dir / "out").string());
    INFO(run.output);
    REQUIRE(run.exitCode == 0);
    Imf::InputFile exr((dir / "out" / "images.exr").c_str());
    const auto window = exr.header().dataWindow();
    const int W = window.max.x - window.min.x + 1, H = window.max.y - window.min.y + 1;
    REQUIRE(W == 160);
    REQUIRE(H == 120);
    for (const char* name : {"range_m", "range_true_m", "range_direct_m", "Z"})
        CHECK(exr.header().channels().findChannel(name) != nullptr);
    std::vector<float> range(std::size_t(W) * std::size_t(H)), z(range.size());
    Imf::FrameBuffer frame;
    frame.insert("range_m", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(range.data()), sizeof(float), sizeof(float) * std::size_t(W)));
    frame.insert("Z", Imf::Slice(Imf::FLOAT, reinterpret_cast<char*>(z.data()), sizeof(float), sizeof(float) * std::size_t(W)));
    exr.setFrameBuffer(frame);
    exr.readPixels(window.min.y, window.max.y);
    const auto h5Range = readAll<float>(dir / "out" / "images.h5", "range_m", H5T_NATIVE_FLOAT);
    const auto h5Z = readAll<float>(dir / "out" / "images.h5", "z_depth_m", H5T_NATIVE_FLOAT);
    std::size_t equal = 0;
    for (std::size_t p = 0; p < range.size(); ++p)
        equal += (range[p] == h5Range[p] || (std::isnan(range[p]) && std::isnan(h5Range[p]))) && (z[p] == h5Z[p] || (std::isnan(z[p]) && std::isnan(h5Z[p])));
    CHECK(equal == range.size());
}
