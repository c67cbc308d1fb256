// SPDX-License-Identifier: MIT
// Unit tests of include/rsim/shared/physics.h: the formulas both backends share.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>

#include "scene/scene_config.h"
#include "rsim/shared/form_factor.h"
#include "rsim/shared/gpu_layout.h"
#include "rsim/shared/physics.h"
#include "rsim/shared/estimators.h"
#include "distance/cpu_distance.h"
#include "transport/sources.h"

using namespace rsim;
using namespace rsim::shared;

TEST_CASE("delay steps are floor(distance / (c dt) + 0.5), at least 1", "[shared]") {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> coord(-20.0f, 20.0f);
    const double cdt = 0.299792458 * 0.1;
    const float inv = float(1.0 / (cdt * cdt));
    for (int k = 0; k < 200000; ++k) {
        glm::vec3 a(coord(rng), coord(rng), coord(rng)), b(coord(rng), coord(rng), coord(rng));
        // Reference from the same fp32 x the formula sees, rounded exactly in double.
        glm::vec3 d = a - b;
        float x = (d.x * d.x + d.y * d.y + d.z * d.z) * inv;
        double expected = std::max(1.0, std::floor(std::sqrt(double(x)) + 0.5));
        if (expected >= 2048) continue; // exactness is documented below 2048 steps
        REQUIRE(rsimDelaySteps(a, b, inv) == std::uint32_t(expected));
    }
    // Exactly on a rounding boundary: (k + 0.5)^2 rounds up.
    CHECK(rsimDelaySteps(glm::vec3(0), glm::vec3(2.5f, 0, 0), 1.0f) == 3u);
    CHECK(rsimDelaySteps(glm::vec3(0), glm::vec3(0.1f, 0, 0), 1.0f) == 1u);
}

TEST_CASE("linear split and deposit conserve the amount", "[shared]") {
    glm::vec3 s = rsimLinearSplit(12.25f);
    CHECK(s.x == 12.0f);
    CHECK(s.y == 0.75f);
    CHECK(s.z == 0.25f);
    std::vector<float> pulse = makePulse(PulseShape::Gaussian, 7.0);
    double sum = 0.0;
    for (std::size_t t = 0; t <= pulse.size(); ++t) {
        float p0 = t < pulse.size() ? pulse[t] : 0.0f;
        float p1 = t >= 1 ? pulse[t - 1] : 0.0f;
        sum += rsimDeposit(2.0f, 5.3f, p0, p1);
    }
    CHECK(sum == Catch::Approx(2.0).epsilon(1e-6));
}

TEST_CASE("pulse shapes are normalised and symmetric", "[shared]") {
    CHECK(makePulse(PulseShape::Delta, 3.0) == std::vector<float>{1.0f});
    auto p = makePulse(PulseShape::Gaussian, 5.0);
    REQUIRE(p.size() % 2 == 1);
    double sum = 0.0;
    for (std::size_t k = 0; k < p.size(); ++k) {
        sum += p[k];
        CHECK(p[k] == p[p.size() - 1 - k]);
    }
    CHECK(sum == Catch::Approx(1.0).epsilon(1e-6));
    // FWHM: the value half a FWHM from the centre is half the peak.
    const double sigma = 5.0 / (2.0 * std::sqrt(2.0 * std::log(2.0)));
    CHECK(std::exp(-0.5 * (2.5 / sigma) * (2.5 / sigma)) == Catch::Approx(0.5));
}

TEST_CASE("R4 points lie in the unit cube and are uniform on the triangle", "[shared]") {
    Tri t{glm::vec3(0, 0, 0), glm::vec3(2, 0, 0), glm::vec3(0, 1, 0)};
    glm::dvec3 mean(0.0);
    const int S = 4096;
    glm::vec4 offset = rsimOffset4(rsimPairHash(3, 9, 1));
    for (int s = 0; s < S; ++s) {
        glm::vec4 u = rsimR4Point(std::uint32_t(s), offset);
        for (int k = 0; k < 4; ++k) REQUIRE((u[k] >= 0.0f && u[k] < 1.0f));
        glm::vec3 p = rsimPointOnTriangle(t, glm::vec2(u.x, u.y));
        REQUIRE(p.x >= -1e-6f);
        REQUIRE(p.y >= -1e-6f);
        REQUIRE(p.x / 2.0f + p.y <= 1.0f + 1e-6f);
        mean += glm::dvec3(p) / double(S);
    }
    // A uniform point's mean is the centroid (2/3, 1/3); QMC error at 4096 points is ~1e-3.
    CHECK(mean.x == Catch::Approx(2.0 / 3.0).margin(2e-3));
    CHECK(mean.y == Catch::Approx(1.0 / 3.0).margin(2e-3));
}

TEST_CASE("pair hash and offsets are deterministic and decorrelated", "[shared]") {
    CHECK(rsimPairHash(1, 2, 3) == rsimPairHash(1, 2, 3));
    CHECK(rsimPairHash(1, 2, 3) != rsimPairHash(2, 1, 3));
    CHECK(rsimPairHash(1, 2, 3) != rsimPairHash(1, 2, 4));
    glm::vec4 o = rsimOffset4(rsimPairHash(10, 20, 1));
    for (int k = 0; k < 4; ++k) CHECK((o[k] >= 0.0f && o[k] < 1.0f));
}

TEST_CASE("area-estimator samples cull back-facing directions", "[shared]") {
    Tri a{glm::vec3(0, 0, 0), glm::vec3(1, 0, 0), glm::vec3(0, 1, 0)}; // normal +z
    Tri b{glm::vec3(0, 0, 1), glm::vec3(0, 1, 1), glm::vec3(1, 0, 1)}; // normal -z
    glm::vec4 u(0.3f, 0.4f, 0.6f, 0.2f);
    RaySegment s = rsimAreaKernelSample(a, glm::vec3(0, 0, 1), b, glm::vec3(0, 0, -1), u, 1e-4f);
    CHECK(s.weight > 0.0f);
    CHECK(glm::length(s.dir) == Catch::Approx(1.0f));
    CHECK(s.tmax < glm::length(rsimPointOnTriangle(b, glm::vec2(u.z, u.w)) - s.origin));
    // Turn b around: nothing can be exchanged.
    RaySegment back = rsimAreaKernelSample(a, glm::vec3(0, 0, 1), b, glm::vec3(0, 0, 1), u, 1e-4f);
    CHECK(back.weight == 0.0f);
    CHECK(rsimCanFace(a, glm::vec3(0, 0, 1), b, glm::vec3(0, 0, -1)));
    CHECK_FALSE(rsimCanFace(a, glm::vec3(0, 0, 1), b, glm::vec3(0, 0, 1)));
    // Coplanar triangles never face each other.
    Tri c{glm::vec3(2, 0, 0), glm::vec3(3, 0, 0), glm::vec3(2, 1, 0)};
    CHECK_FALSE(rsimCanFace(a, glm::vec3(0, 0, 1), c, glm::vec3(0, 0, 1)));
}

TEST_CASE("sensor distance inverts the path of an offset light", "[shared]") {
    glm::vec3 pL(0.1f, 0.0f, 0.0f), pS(0.0f, 0.05f, 0.0f), x(2.0f, 1.0f, 0.5f);
    float L = glm::length(x - pL) + glm::length(x - pS);
    glm::vec3 u = glm::normalize(x - pS);
    CHECK(rsimSensorDistance(L, pS - pL, u) == Catch::Approx(glm::length(x - pS)).epsilon(1e-6));
    CHECK(rsimSensorDistance(4.0f, glm::vec3(0.0f), u) == 2.0f);
}

TEST_CASE("multi-frequency phase unwrapping", "[shared]") {
    const float truePath = 23.7f;
    float U[RSIM_MAX_FREQUENCIES] = {15.0f, 12.0f}; // 20 and 25 MHz in metres of path
    float L[RSIM_MAX_FREQUENCIES] = {std::fmod(truePath, U[0]), std::fmod(truePath, U[1])};
    CHECK(rsimUnwrapPath(L, U, 2, 59.0f) == Catch::Approx(truePath).margin(1e-4));
    // Commensurate frequencies (20 and 80 MHz) are only unambiguous to 15 m: with near-equal
    // agreement the first wrap must win, not a rounding-level favourite.
    float U2[RSIM_MAX_FREQUENCIES] = {15.0f, 3.75f};
    float L2[RSIM_MAX_FREQUENCIES] = {5.1f, std::fmod(5.1f, 3.75f) + 1e-6f};
    CHECK(rsimUnwrapPath(L2, U2, 2, 40.0f) == Catch::Approx(5.1f).margin(1e-4));
    // One frequency cannot resolve the ambiguity: the first wrap is reported.
    CHECK(rsimUnwrapPath(L, U, 1, 60.0f) == Catch::Approx(std::fmod(truePath, 15.0f)).margin(1e-5));
}

TEST_CASE("frustum and light cone", "[shared]") {
    PinholeSensor s{glm::vec3(0), glm::vec3(1, 0, 0), glm::vec3(0, -1, 0), glm::vec3(0, 0, 1),
                    std::tan(0.5f), std::tan(0.4f)};
    CHECK(rsimFrustumWeight(s, glm::vec3(1, 0, 0)) == 1.0f);
    CHECK(rsimFrustumWeight(s, glm::vec3(-1, 0, 0)) == 0.0f);
    CHECK(rsimFrustumWeight(s, glm::vec3(1, 0.6f, 0)) == 0.0f);
    CHECK(rsimFrustumWeight(s, glm::vec3(1, 0, 0.41f)) == 1.0f);
    CHECK(rsimFrustumWeight(s, glm::vec3(1, 0, 0.45f)) == 0.0f);
    glm::vec3 centre = rsimPixelDirection(s, 1, 1, 3, 3);
    CHECK(centre.x == Catch::Approx(1.0f));
    PointLight l{glm::vec3(0), glm::vec3(1, 0, 0), std::cos(0.5f), 0.0f, 2.0f};
    CHECK(rsimLightIntensity(l, glm::vec3(1, 0, 0)) == 2.0f);
    CHECK(rsimLightIntensity(l, glm::normalize(glm::vec3(1, 1, 0))) == 0.0f);
}

TEST_CASE("a gated camera's gate ratio gives a pure delay exactly (2 and 3 gates)", "[shared][gated]") {
    const std::uint32_t T = 400, W = 40, start = 30;
    const std::vector<float> pulse = makePulse(PulseShape::Rectangular, 0.0, double(W));
    REQUIRE(pulse.size() == W);
    auto none = [](std::uint32_t) { return 0.0f; };
    for (std::uint32_t gates : {2u, 3u})
        for (float tau = float(start); tau < float(start + (gates - 1) * W); tau += 0.37f) {
            std::vector<float> s(T, 0.0f);
            depositPulse(3.0f, tau, pulse, T, s.data());
            auto signal = [&s](std::uint32_t t) { return s[t]; };
            INFO(gates << " gates, tau " << tau);
            CHECK(rsimGatedPath(T, W, start, gates, signal, none) == Catch::Approx(tau).margin(2e-4));
        }
    // Nothing in the gates: no echo.
    std::vector<float> s(T, 0.0f);
    auto signal = [&s](std::uint32_t t) { return s[t]; };
    CHECK(rsimGatedPath(T, W, start, 2u, signal, none) == RSIM_NO_ECHO);
}

TEST_CASE("a visibility launch's pairs as one word and back: every pair, one index each, within the launch",
          "[shared]") {
    using rsim::shared::VisibilityPush;
    struct Shape {
        std::uint32_t n, rowBegin, rowEnd, colBegin, colEnd;
    };
    // An upper-triangle launch (columns after its first row), full rows (every column), a block of
    // columns, and a launch of one long row.
    for (const Shape s : {Shape{100, 10, 17, 11, 100}, Shape{100, 40, 48, 0, 100}, Shape{100, 0, 9, 30, 60},
                          Shape{300000, 5, 6, 6, 300000}}) {
        CAPTURE(s.n, s.rowBegin, s.rowEnd, s.colBegin, s.colEnd);
        VisibilityPush p{};
        p.n = s.n;
        p.rowBegin = s.rowBegin;
        p.rowEnd = s.rowEnd;
        p.colBegin = s.colBegin;
        p.colEnd = s.colEnd;
        const std::uint64_t width = s.colEnd - s.colBegin, pairs = width * (s.rowEnd - s.rowBegin);
        REQUIRE(rsim::shared::rsimLaunchWidth(p) == width);
        std::vector<bool> seen(pairs, false);
        for (std::uint32_t row = s.rowBegin; row < s.rowEnd; ++row)
            for (std::uint32_t col = s.colBegin; col < s.colEnd; ++col) {
                const std::uint32_t k = rsim::shared::rsimLaunchPairIndex(p, row, col);
                REQUIRE(k < pairs);
                CHECK_FALSE(seen[k]);
                seen[k] = true;
                const glm::uvec2 back = rsim::shared::rsimLaunchPair(p, k);
                REQUIRE(back.x == row);
                REQUIRE(back.y == col);
            }
    }
}

// The CPU computes the pulsed estimator's matched filter for every t at once (distance/
// cpu_distance.cpp); it must give rsimPathSteps's answer bit for bit: echoes anywhere in the
// window (at its start, cut off at its end), several echoes, noise below zero, no signal, and
// pulses of 1 to 41 bins; and its matched filter is rsimMatchedFilter's at every t.
TEST_CASE("the CPU's pulsed estimator is rsimPathSteps's, bit for bit", "[shared][distance]") {
    std::mt19937 rng(7);
    std::normal_distribution<float> noise(0.0f, 1e-3f);
    SimConfig c;
    c.mode = SensorMode::Pulsed;
    c.timesteps = 300;
    const std::uint32_t T = c.timesteps;
    int cases = 0, echoes = 0, cutOffs = 0;
    for (const auto& pulse : {makePulse(PulseShape::Delta, 1.0), makePulse(PulseShape::Gaussian, 3.0),
                              makePulse(PulseShape::Gaussian, 10.0), makePulse(PulseShape::Rectangular, 1.0, 7.0)}) {
        c.pulse = pulse;
        for (int trial = 0; trial < 40; ++trial) {
            std::vector<float> s(T, 0.0f);
            // Echoes at the start, at the end, anywhere; none in the last trial.
            const int count = trial == 39 ? 0 : 1 + trial % 3;
            for (int e = 0; e < count; ++e) {
                const float at = trial % 10 == 0 ? 0.3f : trial % 10 == 1 ? float(T) - 1.5f
                                                                            : float(rng() % (T - 1)) + 0.25f;
                const float amount = 0.1f + 0.01f * float(rng() % 90);
                const std::uint32_t k = std::uint32_t(at);
                s[k] += amount * (1.0f - (at - float(k)));
                s[k + 1] += amount * (at - float(k));
            }
            if (trial % 2 == 1)
                for (float& v : s) v += noise(rng);
            auto signal = [&s](std::uint32_t t) { return s[t]; };
            auto pulseAt = [&c](std::uint32_t k) { return c.pulse[k]; };
            const glm::vec4 none(0.0f);
            const float delay = 0.5f * float(trial);
            const double want = shared::rsimPathSteps(shared::RSIM_MODE_PULSED, T, std::uint32_t(pulse.size()), none,
                                                      none, 0, glm::uvec2(0), delay, signal, pulseAt);
            std::vector<float> padded, m;
            matchedFilterAll(s.data(), T, pulse, padded, m);
            REQUIRE(m.size() == T + pulse.size() - 1);
            int filterDiffers = 0;
            for (int t = 1 - int(pulse.size()); t < int(T); ++t)
                filterDiffers += m[std::size_t(t - 1 + int(pulse.size()))] !=
                                 shared::rsimMatchedFilter(t, T, std::uint32_t(pulse.size()), signal, pulseAt);
            CHECK(filterDiffers == 0);
            bool cutOff = false;
            const double got = pathSteps(s.data(), T, c, delay, &cutOff, true);
            CAPTURE(pulse.size(), trial, want, got);
            if (want < 0.0) {
                CHECK(std::isnan(got));
                CHECK(cutOff == (want == double(shared::RSIM_ECHO_CUT_OFF)));
                cutOffs += cutOff;
            } else {
                CHECK(got == want);
                ++echoes;
            }
            ++cases;
        }
    }
    CHECK(cases == 160);
    CHECK(echoes > 100);
    CHECK(cutOffs > 0);
}
