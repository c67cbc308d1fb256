// SPDX-License-Identifier: MIT
// The `paths` transport (MODEL.md §10.2) on the CPU: analytic answers it must give exactly (a
// perfect mirror floor under a diffuse wall, by the image method), its known limit (a wall lit
// only through a mirror stays dark), and invariant 11 (on a Lambertian scene it estimates the
// radiosity pipeline's pixel signal).
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators_range.hpp>
#include <catch2/matchers/catch_matchers_floating_point.hpp>

#include "support/test_scenes.h"

using namespace rsim;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

MaterialModel mirror() {
    MaterialModel m;
    m.type = MaterialType::Conductor;
    m.specular = 1.0;
    m.roughness = 0.0;
    return m;
}

// A mirror floor z = 0 (x in [0, 4], y in [-2, 2]) and a diffuse wall x = 4 facing the camera at
// (0, 0, 1.5), which looks down at the floor.
struct MirrorScene {
    PreparedScene scene;
    SimConfig config;
    static constexpr double kWallRho = 0.6;

    explicit MirrorScene(const SceneDesc& desc) {
        test::SceneBuilder b;
        const std::uint32_t floor = b.material("mirror", mirror());
        const std::uint32_t wall = b.material("wall", float(kWallRho));
        b.group = 0;
        b.rectangle({0, -2, 0}, {4, 0, 0}, {0, 4, 0}, 4, 4, floor);
        b.group = 1;
        b.rectangle({4, -2, 0}, {0, 0, 3}, {0, 4, 0}, 4, 4, wall);
        scene = b.prepare();
        config = makeSimConfig(desc);
        config.transport = Transport::Paths;
        config.pixelSampling.perPixel = 4;
        config.pixelSampling.boxFilter = false;
    }
};

SceneDesc mirrorCamera() {
    SceneDesc d = test::basicScene({0, 0, 1.5}, {3, 0, 0});
    d.sim.timesteps = 1000;
    d.sim.dt_ns = 0.05;
    return d;
}

} // namespace

TEST_CASE("paths: a perfect mirror floor shows the wall at the mirrored path length (image method)", "[paths]") {
    // On the CPU and on every Vulkan ray path.
    std::vector<std::string> backends{"cpu"};
    for (const std::string& path : test::vulkanPathsAvailable()) backends.push_back(path);
    const std::string backend = GENERATE_COPY(from_range(backends));
    CAPTURE(backend);
    MirrorScene m(mirrorCamera());
    m.config.paths.maxBounces = 2; // the mirror's vertex and the wall's: one delay per pixel
    const SimulationResult r = test::simulate(backend, m.scene, m.config, false, true);
    const SimConfig& c = m.config;
    const glm::dvec3 S(c.sensor.position), L(c.light.position);
    const double I = double(c.light.intensity);
    int checked = 0;
    for (std::uint32_t py = 0; py < c.height; ++py)
        for (std::uint32_t px = 0; px < c.width; ++px) {
            const std::size_t p = py * c.width + px;
            const glm::dvec3 u(shared::rsimPixelDirection(c.sensor, px, py, c.width, c.height));
            if (!(u.z < 0.0)) continue;
            const glm::dvec3 M = S + (-S.z / u.z) * u; // on the floor plane
            if (M.x < 0.05 || M.x > 3.95 || std::abs(M.y) > 1.95) continue;
            const glm::dvec3 v(u.x, u.y, -u.z);      // mirrored
            const glm::dvec3 P = M + ((4.0 - M.x) / v.x) * v; // on the wall plane
            if (P.z < 0.05 || P.z > 2.95 || std::abs(P.y) > 1.95) continue;
            const double path = glm::length(M - S) + glm::length(P - M) + glm::length(L - P);
            const glm::dvec3 toLight = glm::normalize(L - P);
            const double expected = MirrorScene::kWallRho * I * toLight.x * -1.0 / glm::dot(L - P, L - P);
            INFO("pixel " << px << ", " << py);
            // The light reaches the wall's front (normal -x) from x < 4.
            REQUIRE(expected > 0.0);
            CHECK_THAT(double(r.image.amplitude[p]), WithinRel(expected, 1e-4));
            // Light and sensor coincide: the range is half the path.
            CHECK_THAT(double(r.image.depth[p]), WithinAbs(0.5 * path, 2e-4));
            ++checked;
        }
    CHECK(checked > 50);
}

TEST_CASE("paths: a wall lit only through a perfect mirror stays dark (the known limit of MODEL.md §10.2)",
          "[paths]") {
    SceneDesc d = mirrorCamera();
    // The light shines down at the mirror only; the wall is outside its cone.
    d.light.direction = glm::normalize(glm::dvec3(0.3, 0, -1));
    d.light.half_angle_deg = 20.0;
    MirrorScene m(d);
    m.config.pixelSampling.perPixel = 16;
    const SimulationResult r = test::simulate("cpu", m.scene, m.config, false, true);
    int wallPixels = 0;
    for (std::size_t p = 0; p < r.image.triangle.size(); ++p) {
        const int i = r.image.triangle[p];
        if (i < 0 || m.scene.sourceMeshOfId[m.scene.id[std::size_t(i)]] != 1) continue;
        ++wallPixels;
        // Physically the mirror lights the wall; neither next-event estimation (the light's cone
        // misses the wall) nor BSDF sampling (the mirror is a delta lobe, the light a point) finds it.
        CHECK(r.image.amplitude[p] == 0.0f);
    }
    CHECK(wallPixels > 20);
}

namespace {

// A closed Lambertian room (3 x 2.5 x 2.4 m, `cells` x `cells` per face) with a box on its
// floor, seen from inside by an AMCW camera at 20 MHz (a frequency far below 1 / dt, whose phase
// the time binning keeps: MODEL.md §10.2, invariant 11).
struct LambertianRoom {
    PreparedScene scene;
    SimConfig config;

    LambertianRoom(int cells, Transport transport, std::uint32_t seed = 1) {
        test::SceneBuilder b;
        b.roomShell({0, 0, 0}, {3, 2.5, 2.4}, cells, b.material("walls", 0.7f));
        b.box({1.8, 0.9, 0}, {2.4, 1.6, 0.8}, std::max(1, cells / 4), b.material("box", 0.4f));
        scene = b.prepare();
        SceneDesc d = test::basicScene({0.3, 1.25, 1.5}, {3, 1.2, 0.8});
        d.sim.timesteps = 600;
        d.sim.seed = seed;
        d.sensor.mode = SensorMode::Amcw;
        d.sensor.modulation_mhz = {20.0};
        config = makeSimConfig(d);
        config.k.format = KFormat::Fp32;
        config.transport = transport;
        config.pixelSampling.perPixel = 64;
        config.pixelSampling.boxFilter = false;
    }
};

// The image's total signal, and the range of its summed 20 MHz phasor (MODEL.md §8: the phase
// of sum_t s(t) exp(-i w t) is the delay; c / (4 pi f) per radian of range).
struct ImageTotals {
    double signal = 0.0, range = 0.0;
};

ImageTotals totals(const SensorImage& image, const SimConfig& c) {
    ImageTotals t;
    double re = 0.0, im = 0.0;
    for (std::size_t p = 0; p < image.amplitude.size(); ++p) {
        t.signal += double(image.amplitude[p]);
        re += double(image.phasor[2 * p]);
        im += double(image.phasor[2 * p + 1]);
    }
    const double phase = std::atan2(-im, re); // the phasor of a delay tau is exp(-i w tau)
    t.range = phase / (4.0 * M_PI * c.modulationMhz[0] * 1e6) * 299792458.0;
    return t;
}

struct MeanAndError {
    double mean = 0.0, standardError = 0.0;
};

MeanAndError meanAndError(const std::vector<double>& v) {
    MeanAndError m;
    const double n = double(v.size());
    for (double x : v) m.mean += x / n;
    double var = 0.0;
    for (double x : v) var += (x - m.mean) * (x - m.mean) / (n - 1.0);
    m.standardError = std::sqrt(var / n);
    return m;
}

} // namespace

TEST_CASE("paths: on a Lambertian room the path-traced pixel signal is the radiosity pipeline's, the gap closing "
          "as the mesh is refined (invariant 11)",
          "[paths][invariant]") {
    // Independent path-traced images (seeds): the mean of their totals and its standard error.
    std::vector<double> signals, ranges;
    for (std::uint32_t seed = 1; seed <= 8; ++seed) {
        const LambertianRoom r(4, Transport::Paths, seed);
        const ImageTotals t = totals(test::simulate("cpu", r.scene, r.config, false, true).image, r.config);
        signals.push_back(t.signal);
        ranges.push_back(t.range);
    }
    const MeanAndError signal = meanAndError(signals), range = meanAndError(ranges);
    // The radiosity pipeline on ever finer meshes: its total signal and range converge, and the
    // gap to the paths' is within the Monte Carlo error plus what the last refinement changed.
    std::vector<double> signalGap, rangeGap, radiositySignal;
    std::ostringstream report;
    for (int cells : {4, 8, 16}) {
        const LambertianRoom r(cells, Transport::Radiosity);
        const ImageTotals t = totals(test::simulate("cpu", r.scene, r.config, false, true).image, r.config);
        radiositySignal.push_back(t.signal);
        signalGap.push_back(signal.mean / t.signal - 1.0);
        rangeGap.push_back(range.mean - t.range);
        report << "cells " << cells << ": total signal paths / radiosity - 1 = " << signalGap.back()
               << " (standard error " << signal.standardError / signal.mean << "); range of the summed phasor paths - "
               << "radiosity = " << rangeGap.back() * 1e3 << " mm (standard error " << range.standardError * 1e3
               << " mm)\n";
    }
    INFO(report.str());
    // The radiosity pipeline converges as its mesh is refined (each refinement changes it less)...
    CHECK(std::abs(radiositySignal[2] - radiositySignal[1]) < std::abs(radiositySignal[1] - radiositySignal[0]));
    // ...towards the paths' estimate, which shares none of its discretisation.
    CHECK(std::abs(signalGap[2]) < 4.0 * signal.standardError / signal.mean + std::abs(signalGap[1] - signalGap[2]));
    CHECK(std::abs(rangeGap[2]) < 4.0 * range.standardError + std::abs(rangeGap[1] - rangeGap[2]));
}

namespace {

// The unpolarised Fresnel reflectance of one interface from air into glass of index eta, from
// Snell's law and the s and p amplitudes (written here apart from include/rsim/shared).
double fresnelFromAir(double cosI, double eta) {
    const double sinT = std::sqrt(1.0 - cosI * cosI) / eta, cosT = std::sqrt(1.0 - sinT * sinT);
    const double rs = (cosI - eta * cosT) / (cosI + eta * cosT), rp = (eta * cosI - cosT) / (eta * cosI + cosT);
    return 0.5 * (rs * rs + rp * rp);
}

// The signal in bins [t - 3, t + 3] around fractional time t, and its centroid.
struct Peak {
    double energy = 0.0, centroid = 0.0;
};
Peak peakAt(const std::vector<float>& s, double t) {
    Peak p;
    for (long k = long(t) - 3; k <= long(t) + 3; ++k) {
        p.energy += double(s[std::size_t(k)]);
        p.centroid += double(k) * double(s[std::size_t(k)]);
    }
    p.centroid /= p.energy;
    return p;
}

} // namespace

TEST_CASE("paths: a glass sheet returns its reflection and its transmission at their exact delays, weighted by "
          "Fresnel, on every backend",
          "[paths]") {
    std::vector<std::string> backends{"cpu"};
    for (const std::string& path : test::vulkanPathsAvailable()) backends.push_back(path);
    const std::string backend = GENERATE_COPY(from_range(backends));
    CAPTURE(backend);
    // A 45-degree sheet at (2, 0, 0) in front of the camera's one pixel: its reflection shows wall A
    // (y = 2), its transmission wall B (x = 4); the light, above the camera, lights both walls past
    // the sheet.
    test::SceneBuilder b;
    MaterialModel glass;
    glass.type = MaterialType::Dielectric;
    glass.ior = 1.5;
    const double rhoA = 0.5, rhoB = 0.8;
    const std::uint32_t sheet = b.material("glass", glass), wallA = b.material("A", float(rhoA)),
                        wallB = b.material("B", float(rhoB));
    const glm::dvec3 along = glm::normalize(glm::dvec3(1, 1, 0));
    b.rectangle(glm::dvec3(2, 0, -0.3) - 0.3 * along, 0.6 * along, {0, 0, 0.6}, 2, 2, sheet);
    b.rectangle({0, 2, -2}, {4, 0, 0}, {0, 0, 4}, 4, 4, wallA); // front -y
    b.rectangle({4, -2, -2}, {0, 0, 4}, {0, 4, 0}, 4, 4, wallB); // front -x
    const PreparedScene scene = b.prepare();
    SceneDesc d = test::basicScene({0, 0, 1}, {4, 0, 0});
    d.sensor.position = glm::dvec3(0.0);
    d.sensor.look_at = {4, 0, 0};
    d.sensor.width = d.sensor.height = 1;
    d.sensor.fov_h_deg = d.sensor.fov_v_deg = 1.0;
    d.sim.timesteps = 400;
    d.output.transient = true;
    SimConfig c = makeSimConfig(d);
    c.transport = Transport::Paths;
    c.pixelSampling.perPixel = 20000;
    c.pixelSampling.boxFilter = false;
    c.paths.maxBounces = 2;
    const SimulationResult r = test::simulate(backend, scene, c, false, true);
    REQUIRE(r.image.transient.size() == c.timesteps);

    const glm::dvec3 S(0.0), L(0, 0, 1), X(2, 0, 0), A(2, 2, 0), B(4, 0, 0);
    const double I = double(c.light.intensity);
    auto lit = [&](glm::dvec3 P, glm::dvec3 n, double rho) {
        const glm::dvec3 toLight = L - P;
        return rho * I * glm::dot(n, glm::normalize(toLight)) / glm::dot(toLight, toLight);
    };
    const double F = fresnelFromAir(std::cos(M_PI / 4.0), 1.5), R = 2.0 * F / (1.0 + F);
    const double n = double(c.pixelSampling.perPixel), sigmaR = std::sqrt(R * (1.0 - R) / n);
    const double tA = (glm::length(X - S) + glm::length(A - X) + glm::length(L - A)) / c.cdtM;
    const double tB = (glm::length(B - S) + glm::length(L - B)) / c.cdtM;
    const Peak a = peakAt(r.image.transient, tA), bPeak = peakAt(r.image.transient, tB);
    INFO("F = " << F << ", R = " << R << "; reflection " << a.energy << " at " << a.centroid << " (expected about "
                << R * lit(A, {0, -1, 0}, rhoA) << " at " << tA << "), transmission " << bPeak.energy << " at "
                << bPeak.centroid << " (" << (1.0 - R) * lit(B, {-1, 0, 0}, rhoB) << " at " << tB << ")");
    // Each path reflects with probability R: the fraction that did is binomial (5 sigma).
    CHECK_THAT(a.energy / lit(A, {0, -1, 0}, rhoA), WithinAbs(R, 5.0 * sigmaR));
    CHECK_THAT(bPeak.energy / lit(B, {-1, 0, 0}, rhoB), WithinAbs(1.0 - R, 5.0 * sigmaR));
    // The linear split puts each return's centroid at its delay (MODEL.md §3), up to fp32 rounding.
    CHECK_THAT(a.centroid, WithinAbs(tA, 1e-3));
    CHECK_THAT(bPeak.centroid, WithinAbs(tB, 1e-3));
    // Nothing else: the two returns are the whole signal.
    double total = 0.0;
    for (float v : r.image.transient) total += double(v);
    CHECK_THAT(total, WithinRel(a.energy + bPeak.energy, 1e-5));
    // Vertex 1 is a delta surface: no direct estimate (MODEL.md §10.2).
    CHECK(std::isnan(r.image.directDepth[0]));
}

namespace {

// GGX with Smith's height-correlated masking, written here apart from include/rsim/shared
// (MODEL.md §10.1), in double: D, Lambda, and the exact unpolarised Fresnel term from air.
double ggxD(double cosH, double alpha) {
    const double a2 = alpha * alpha, d = cosH * cosH * (a2 - 1.0) + 1.0;
    return a2 / (M_PI * d * d);
}
double ggxLambda(double cosT, double alpha) {
    const double tan2 = (1.0 - cosT * cosT) / (cosT * cosT);
    return 0.5 * (-1.0 + std::sqrt(1.0 + alpha * alpha * tan2));
}
double fresnelDielectric(double cosI, double eta) {
    const double sinT = std::sqrt(1.0 - cosI * cosI) / eta, cosT = std::sqrt(1.0 - sinT * sinT);
    const double rs = (cosI - eta * cosT) / (cosI + eta * cosT), rp = (eta * cosI - cosT) / (eta * cosI + cosT);
    return 0.5 * (rs * rs + rp * rp);
}

} // namespace

TEST_CASE("paths: next-event estimation on a rough conductor and a rough plastic gives pi f cos I / r^2, f "
          "from an independent GGX",
          "[paths]") {
    const glm::dvec3 S(-0.5, 0.0, 1.0), L(1.0, 0.3, 1.2), X(0.3, 0.0, 0.0);
    const double roughness = 0.4, alpha = roughness * roughness, F0 = 0.8, rho = 0.35, eta = 1.5;
    MaterialModel conductor, plastic;
    conductor.type = MaterialType::Conductor;
    conductor.specular = F0;
    conductor.roughness = roughness;
    plastic.type = MaterialType::Plastic;
    plastic.reflectance = rho;
    plastic.ior = eta;
    plastic.roughness = roughness;
    // The geometry of the one pixel's one vertex X, in double.
    const glm::dvec3 n(0, 0, 1), wo = glm::normalize(S - X), wi = glm::normalize(L - X), h = glm::normalize(wo + wi);
    const double cosO = wo.z, cosI = wi.z, r2 = glm::dot(L - X, L - X);
    const double G = 1.0 / (1.0 + ggxLambda(cosO, alpha) + ggxLambda(cosI, alpha));
    const double specularNoFresnel = ggxD(h.z, alpha) * G / (4.0 * cosI * cosO);
    const double schlick = F0 + (1.0 - F0) * std::pow(1.0 - glm::dot(wi, h), 5.0);
    double fdrExt = 0.0; // 2 int_0^1 F(mu) mu dmu, midpoint rule
    for (int k = 0; k < 200000; ++k) {
        const double mu = (k + 0.5) / 200000.0;
        fdrExt += 2.0 * fresnelDielectric(mu, eta) * mu / 200000.0;
    }
    const double fdrInt = 1.0 - (1.0 - fdrExt) / (eta * eta);
    const double fConductor = specularNoFresnel * schlick;
    const double fPlastic = specularNoFresnel * fresnelDielectric(glm::dot(wi, h), eta) +
                            (1.0 - fresnelDielectric(cosI, eta)) * (1.0 - fresnelDielectric(cosO, eta)) * rho /
                                (M_PI * eta * eta * (1.0 - fdrInt));
    std::vector<std::string> backends{"cpu"};
    for (const std::string& path : test::vulkanPathsAvailable()) backends.push_back(path);
    const std::string backend = GENERATE_COPY(from_range(backends));
    for (const auto& [model, f] : {std::pair{conductor, fConductor}, std::pair{plastic, fPlastic}}) {
        test::SceneBuilder b;
        b.rectangle({-5, -5, 0}, {10, 0, 0}, {0, 10, 0}, 1, 1, b.material("surface", model));
        const PreparedScene scene = b.prepare();
        SceneDesc d = test::basicScene(L, X);
        d.sensor.position = S;
        d.sensor.look_at = X;
        d.sensor.width = d.sensor.height = 1;
        d.sensor.fov_h_deg = d.sensor.fov_v_deg = 1.0;
        SimConfig c = makeSimConfig(d);
        c.transport = Transport::Paths;
        c.pixelSampling.perPixel = 1;
        c.pixelSampling.boxFilter = false;
        c.paths.maxBounces = 1; // the first vertex's next-event estimate alone: no randomness
        const SensorImage image = test::simulate(backend, scene, c, false, true).image;
        const double expected = M_PI * f * cosI * double(c.light.intensity) / r2;
        INFO(backend << ", " << materialTypeName(model.type) << ": f = " << f);
        CHECK_THAT(double(image.amplitude[0]), WithinRel(expected, 2e-4));
    }
}
