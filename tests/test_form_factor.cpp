// SPDX-License-Identifier: MIT
// Unit tests of include/rsim/shared/form_factor.h, the K estimator of MODEL.md §2, against
// references written here in double precision: solid angles, the spherical-triangle sampler's
// support and density, the bilinear warp, and the unbiasedness of the per-sample weight against
// Lambert's exact point-to-polygon form factor.
#include <cmath>
#include <random>
#include <vector>

#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <glm/glm.hpp>

#include "rsim/shared/form_factor.h"

using namespace rsim::shared;

namespace {

double solidAngleRef(glm::dvec3 a, glm::dvec3 b, glm::dvec3 c) {
    const double la = glm::length(a), lb = glm::length(b), lc = glm::length(c);
    const double det = std::abs(glm::dot(a, glm::cross(b, c)));
    const double den =
        la * lb * lc + glm::dot(a, b) * lc + glm::dot(a, c) * lb + glm::dot(b, c) * la;
    return 2.0 * std::atan2(det, den);
}

// Lambert's form factor from a point x (normal n) to a planar polygon entirely in front of x's
// plane: F = 1/(2 pi) |sum_k angle(R_k, R_k+1) n . unit(R_k x R_k+1)|, R_k = p_k - x.
double lambertPolygon(glm::dvec3 x, glm::dvec3 n, const std::vector<glm::dvec3>& poly) {
    double sum = 0.0;
    for (std::size_t k = 0; k < poly.size(); ++k) {
        const glm::dvec3 r0 = poly[k] - x, r1 = poly[(k + 1) % poly.size()] - x;
        const glm::dvec3 c = glm::cross(r0, r1);
        const double len = glm::length(c);
        if (len == 0.0) continue;
        sum += std::atan2(len, glm::dot(r0, r1)) * glm::dot(n, c / len);
    }
    return std::abs(sum) / (2.0 * M_PI);
}

// The part of triangle t in front of the plane through x with normal n (Sutherland-Hodgman).
std::vector<glm::dvec3> clipToFront(const Tri& t, glm::dvec3 x, glm::dvec3 n) {
    const glm::dvec3 in[3] = {glm::dvec3(t.v0), glm::dvec3(t.v1), glm::dvec3(t.v2)};
    std::vector<glm::dvec3> out;
    for (int k = 0; k < 3; ++k) {
        const glm::dvec3 p = in[k], q = in[(k + 1) % 3];
        const double dp = glm::dot(n, p - x), dq = glm::dot(n, q - x);
        if (dp > 0) out.push_back(p);
        if ((dp > 0) != (dq > 0)) out.push_back(p + (q - p) * (dp / (dp - dq)));
    }
    return out;
}

glm::vec3 triNormal(const Tri& t) {
    return glm::normalize(glm::cross(t.v1 - t.v0, t.v2 - t.v0));
}
float triArea(const Tri& t) {
    return 0.5f * glm::length(glm::cross(t.v1 - t.v0, t.v2 - t.v0));
}

// Mean of the estimator's weight F(x -> o) at a point x, with the R4 points the pipeline uses.
// The emitter is a triangle 1e-7 m across around x, so every sample starts at x (to fp32).
double meanWeightAt(glm::vec3 x, glm::vec3 n, const Tri& o, bool shareVertex, int samples) {
    glm::vec3 t1 = glm::normalize(
        glm::cross(n, std::abs(n.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0)));
    glm::vec3 t2 = glm::cross(n, t1);
    const float s = 1e-7f;
    Tri e{x, x + s * t1, x + s * t2};
    const glm::vec3 ne = triNormal(e);
    double sum = 0.0;
    const glm::vec4 offset = rsimOffset4(rsimPairHash(4, 17, 3));
    for (int k = 0; k < samples; ++k) {
        RaySegment seg = rsimFormFactorSample(e, ne, o, triNormal(o), triArea(o), shareVertex,
                                              rsimR4Point(std::uint32_t(k), offset), 1e-6f);
        sum += seg.weight;
    }
    return sum / samples;
}

} // namespace

TEST_CASE("solid angles of known spherical triangles", "[shared][kernel]") {
    // One octant of the sphere: pi / 2.
    CHECK(rsimSolidAngle({1, 0, 0}, {0, 1, 0}, {0, 0, 1}) == Catch::Approx(M_PI / 2).epsilon(1e-6));
    // Winding does not matter.
    CHECK(rsimSolidAngle({1, 0, 0}, {0, 0, 1}, {0, 1, 0}) == Catch::Approx(M_PI / 2).epsilon(1e-6));
    // A large triangle just above its interior covers almost a hemisphere (past pi: atan2).
    const float om = rsimSolidAngle({-10, -10, -0.01f}, {10, -10, -0.01f}, {0, 10, -0.01f});
    CHECK(om > 6.2f);
    CHECK(om < 2.0f * float(M_PI));
    // A small far triangle: A cos / r^2.
    const float far = rsimSolidAngle({100, 0, 0}, {100, 0.1f, 0}, {100, 0, 0.1f});
    CHECK(far == Catch::Approx(0.005 / 1e4).epsilon(1e-3));
}

TEST_CASE("spherical-triangle samples are inside and uniform in solid angle", "[shared][kernel]") {
    struct Case {
        const char* name;
        glm::dvec3 x, v0, v1, v2;
    };
    const Case cases[] = {
        {"generic", {0, 0, 0}, {1, 0.2, 0.1}, {0.3, 1.0, 0.5}, {0.2, 0.1, 1.3}},
        {"large, seen from close", {0.3, 0.3, 0.02}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
        {"thin sliver", {0, 0, 1}, {-1, 0, 0}, {1, 0, 0}, {0, 0.02, 0}},
        {"next to a shared edge", {0.5, 0, 0.001}, {0, 0, 0}, {1, 0, 0}, {0.5, 0.8, -0.6}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const glm::dvec3 a = c.v0 - c.x, b = c.v1 - c.x, d = c.v2 - c.x;
        const double omega = solidAngleRef(a, b, d);
        const glm::vec3 A(glm::normalize(a)), B(glm::normalize(b)), C(glm::normalize(d));
        // Bins: the m^2 sub-triangles of the planar triangle's m x m grid, lower (i, j) and
        // upper (i, j, upper); a direction falls in the bin of the point where it crosses the
        // triangle's plane. Each bin's probability is its exact solid angle over omega.
        const int m = 4;
        const glm::dvec3 e1 = c.v1 - c.v0, e2 = c.v2 - c.v0, n = glm::cross(e1, e2);
        auto point = [&](double b1, double b2) { return c.v0 + b1 * e1 + b2 * e2; };
        auto binOf = [&](double b1, double b2) {
            const double s1 = b1 * m, s2 = b2 * m;
            int i = std::min(m - 1, std::max(0, int(std::floor(s1))));
            int j = std::min(m - 1, std::max(0, int(std::floor(s2))));
            const bool upper = (s1 - i) + (s2 - j) > 1.0;
            return (i * m + j) * 2 + (upper ? 1 : 0);
        };
        std::vector<double> prob(std::size_t(2 * m * m), 0.0);
        for (int i = 0; i < m; ++i)
            for (int j = 0; i + j < m; ++j) {
                auto P = [&](int di, int dj) {
                    return point(double(i + di) / m, double(j + dj) / m) - c.x;
                };
                prob[std::size_t((i * m + j) * 2)] =
                    solidAngleRef(P(0, 0), P(1, 0), P(0, 1)) / omega;
                if (i + j + 1 < m)
                    prob[std::size_t((i * m + j) * 2 + 1)] =
                        solidAngleRef(P(1, 0), P(1, 1), P(0, 1)) / omega;
            }
        double total = 0.0;
        for (double p : prob)
            total += p;
        REQUIRE(total == Catch::Approx(1.0).epsilon(1e-9));

        std::mt19937 rng(11);
        std::uniform_real_distribution<float> uni(0.0f, 1.0f);
        const int N = 100000;
        std::vector<double> count(prob.size(), 0.0);
        int outside = 0;
        for (int k = 0; k < N; ++k) {
            const glm::dvec3 w(
                rsimSampleSphericalTriangle(A, B, C, float(omega), glm::vec2(uni(rng), uni(rng))));
            REQUIRE(glm::length(w) == Catch::Approx(1.0).epsilon(1e-4)); // fp32 composition
            // Where the direction crosses the triangle's plane, in barycentrics.
            const double t = glm::dot(n, c.v0 - c.x) / glm::dot(n, w);
            const glm::dvec3 q = c.x + t * w - c.v0;
            const double d00 = glm::dot(e1, e1), d01 = glm::dot(e1, e2), d11 = glm::dot(e2, e2);
            const double d20 = glm::dot(q, e1), d21 = glm::dot(q, e2), den = d00 * d11 - d01 * d01;
            const double b1 = (d11 * d20 - d01 * d21) / den, b2 = (d00 * d21 - d01 * d20) / den;
            const double tol = 1e-4;
            if (!(t > 0 && b1 >= -tol && b2 >= -tol && b1 + b2 <= 1 + tol)) ++outside;
            count[std::size_t(binOf(std::max(0.0, b1), std::max(0.0, b2)))] += 1.0;
        }
        CHECK(outside == 0);
        // Pearson's chi-square over the bins with non-zero probability: 15 degrees of freedom
        // (16 bins), critical value 44 at p = 1e-4 for a correct sampler. A sampler that is off
        // by 1% of omega in one bin of ~6% probability adds ~N 0.01^2 / 0.06 = 17; a wrong formula
        // adds thousands.
        double chi2 = 0.0;
        int bins = 0;
        for (std::size_t k = 0; k < prob.size(); ++k) {
            if (prob[k] <= 0.0) {
                CHECK(count[k] == 0.0);
                continue;
            }
            const double e = prob[k] * N;
            chi2 += (count[k] - e) * (count[k] - e) / e;
            ++bins;
        }
        CAPTURE(chi2, bins);
        CHECK(bins == m * m);
        CHECK(chi2 < 44.0);
    }
}

TEST_CASE("the bilinear warp samples its own density", "[shared][kernel]") {
    const glm::vec4 w(0.9f, 0.9f, 0.01f, 0.4f);
    // The density integrates to 1 (midpoint rule on a fine grid).
    const int g = 200;
    double integral = 0.0;
    for (int i = 0; i < g; ++i)
        for (int j = 0; j < g; ++j) {
            const double x = (i + 0.5) / g, y = (j + 0.5) / g;
            const double v =
                (1 - x) * (1 - y) * w.x + x * (1 - y) * w.y + (1 - x) * y * w.z + x * y * w.w;
            integral += 4.0 * v / (w.x + w.y + w.z + w.w) / (g * g);
        }
    CHECK(integral == Catch::Approx(1.0).epsilon(1e-6));
    // Samples fall into the 4 x 4 cells in proportion to the density's integral over each cell,
    // and the returned pdf is the density at the returned point.
    const int m = 4, N = 200000;
    std::vector<double> count(m * m, 0.0), prob(m * m, 0.0);
    for (int i = 0; i < g; ++i)
        for (int j = 0; j < g; ++j) {
            const double x = (i + 0.5) / g, y = (j + 0.5) / g;
            const double v =
                (1 - x) * (1 - y) * w.x + x * (1 - y) * w.y + (1 - x) * y * w.z + x * y * w.w;
            prob[std::size_t(int(x * m) * m + int(y * m))] +=
                4.0 * v / (w.x + w.y + w.z + w.w) / (g * g);
        }
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> uni(0.0f, 1.0f);
    for (int k = 0; k < N; ++k) {
        const glm::vec3 s = rsimSampleBilinear(glm::vec2(uni(rng), uni(rng)), w);
        REQUIRE((s.x >= 0.0f && s.x <= 1.0f && s.y >= 0.0f && s.y <= 1.0f));
        const double v = (1 - s.x) * (1 - s.y) * w.x + s.x * (1 - s.y) * w.y +
                         (1 - s.x) * s.y * w.z + s.x * s.y * w.w;
        REQUIRE(s.z == Catch::Approx(4.0 * v / (w.x + w.y + w.z + w.w)).epsilon(1e-4));
        count[std::size_t(std::min(m - 1, int(s.x * m)) * m + std::min(m - 1, int(s.y * m)))] +=
            1.0;
    }
    double chi2 = 0.0;
    for (int k = 0; k < m * m; ++k)
        chi2 += (count[k] - prob[k] * N) * (count[k] - prob[k] * N) / (prob[k] * N);
    CAPTURE(chi2);
    CHECK(chi2 < 44.0); // 15 degrees of freedom, p = 1e-4
}

TEST_CASE("form-factor samples average to Lambert's exact point-to-triangle form factor",
          "[shared][kernel]") {
    struct Case {
        const char* name;
        glm::vec3 x, n;
        Tri o;
    };
    const Tri unitFloor{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}; // normal +z
    const Case cases[] = {
        {"opposed, parallel", {0.3f, 0.3f, 0.5f}, {0, 0, -1}, unitFloor},
        {"right angle, 1 mm from the common edge",
         {0.001f, 0.3f, 0.0f},
         {0, 0, 1},
         {{0, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
        {"right angle, 1 um from the common edge",
         {1e-6f, 0.3f, 0.0f},
         {0, 0, 1},
         {{0, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
        {"two corners in front of the emitter's plane (a quad)",
         {0.2f, 0.2f, 0.3f},
         {0, 0, -1},
         {{0, 0, 0.6f}, {1, 0, -0.4f}, {0, 1, -0.4f}}},
        {"one corner in front of the emitter's plane (a triangle)",
         {0.2f, 0.2f, 0.3f},
         {0, 0, -1},
         {{0, 0, 0.0f}, {1, 0, 0.8f}, {0, 1, 0.8f}}},
        {"a sliver standing on the other triangle, 0.5 mm from it",
         {0.0005f, 0.3f, 0.5f},
         {0, -1, 0},
         {{0, -0.005f, 0}, {0, 1, 0}, {0, -0.005f, 1.8f}}},
        {"grazing, nearly edge-on", {2.0f, 0.3f, 0.05f}, {-1, 0, 0}, unitFloor},
        {"wide angle, seen from close",
         {0.05f, 0.3f, 0.3f},
         {1, 0, 0},
         {{0.06f, -5, -5}, {0.06f, 5, -5}, {0.06f, 0, 5}}},
        {"far and small (area sampling)",
         {0, 0, 0},
         {1, 0, 0},
         {{40, 0, 0}, {40, 0.3f, 0}, {40, 0, 0.3f}}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        glm::vec3 no = triNormal(c.o);
        const Tri o = glm::dot(no, c.x - c.o.v0) > 0 ? c.o : Tri{c.o.v0, c.o.v2, c.o.v1}; // face x
        no = triNormal(o);
        const double exact = lambertPolygon(glm::dvec3(c.x), glm::dvec3(c.n),
                                            clipToFront(o, glm::dvec3(c.x), glm::dvec3(c.n)));
        REQUIRE(exact > 0.0);
        const double got = meanWeightAt(c.x, c.n, o, false, 65536);
        CAPTURE(exact, got);
        // 65536 R4 points of a bounded weight: QMC error well below 0.5% (observed < 0.05%).
        CHECK(std::abs(got - exact) < 5e-3 * exact);
        // With the shared-vertex flag (no area fallback) the estimate is the same quantity.
        CHECK(std::abs(meanWeightAt(c.x, c.n, o, true, 65536) - exact) < 5e-3 * exact);
    }
}

TEST_CASE("form-factor samples are 0 without a ray when nothing can be exchanged",
          "[shared][kernel]") {
    const Tri e{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}; // normal +z
    const Tri behind{{0, 0, -1}, {0, 1, -1}, {1, 0, -1}};
    const Tri facingAway{{0, 0, 1}, {1, 0, 1}, {0, 1, 1}}; // normal +z: x is behind its plane
    const glm::vec4 u(0.3f, 0.2f, 0.7f, 0.4f);
    CHECK(rsimFormFactorSample(e, triNormal(e), behind, triNormal(behind), 0.5f, false, u, 1e-5f)
              .weight == 0.0f);
    CHECK(rsimFormFactorSample(e, triNormal(e), facingAway, triNormal(facingAway), 0.5f, false, u,
                               1e-5f)
              .weight == 0.0f);
    // Coplanar neighbours that share an edge: x is on o's plane.
    const Tri neighbour{{1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    CHECK(
        rsimFormFactorSample(e, triNormal(e), neighbour, triNormal(neighbour), 0.5f, true, u, 1e-5f)
            .weight == 0.0f);
}

TEST_CASE("a pair's K is the same from either side, and rows share their points",
          "[shared][kernel]") {
    const Tri a{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};                     // floor, normal +z
    const Tri b{{0, 0, 0}, {0, 1, 0}, {0, 0, 1}};                     // wall on the common edge
    const Tri c{{0.2f, 0.2f, 1}, {0.2f, 0.8f, 1}, {0.8f, 0.2f, 1}};   // ceiling, normal -z
    const glm::vec3 na = triNormal(a), nb = triNormal(b), nc = triNormal(c);
    const std::uint32_t S = 16;
    const KSampling k{S, 4, 1, RSIM_K_ESTIMATOR_SOLID_ANGLE, 1e-5f};
    CHECK(rsimShareVertex(a, b));
    CHECK_FALSE(rsimShareVertex(a, c));
    // The wall on a's edge is near; so is the ceiling (1 m away, a's longest edge is 1.41 m).
    REQUIRE(rsimKSamplesPerSide(k, a, b) == S / 2 * 4);
    const Tri far{{5, 0, 1}, {5, 1, 1}, {6, 0, 1}};
    CHECK(rsimKSamplesPerSide(k, a, far) == S / 2);
    CHECK(rsimKSamplesPerSide(k, a, b) == rsimKSamplesPerSide(k, b, a));
    const std::uint32_t n = rsimKSamplesPerSide(k, a, b);
    // Side a -> b seen from the pair (a, b) and from the pair (b, a): the same offsets.
    const glm::vec4 fromA = rsimKSideOffset(3, 9, 1), fromB = rsimKSideOffset(9, 3, 1);
    CHECK(fromA != fromB);
    float sumA = 0.0f, sumB = 0.0f;
    const glm::uvec2 inOrder = rsimKSideStride(k, n, 3, 9);
    REQUIRE(inOrder == glm::uvec2(1, 0)); // near pairs take the row's points in order
    for (std::uint32_t s = 0; s < n; ++s) {
        const RaySegment sa = rsimKSideSample(a, na, b, nb, triArea(b), true, s, inOrder, fromA, 1e-5f);
        const RaySegment sb = rsimKSideSample(b, nb, a, na, triArea(a), true, s, inOrder, fromB, 1e-5f);
        sumA += sa.weight;
        sumB += sb.weight;
        // Every pair of a's row uses the same points on a.
        const RaySegment sc =
            rsimKSideSample(a, na, c, nc, triArea(c), false, s, inOrder, rsimKSideOffset(3, 4, 1), 1e-5f);
        CHECK(sc.origin == sa.origin);
    }
    const std::uint32_t est = RSIM_K_ESTIMATOR_SOLID_ANGLE;
    CHECK(rsimKPairValue(sumA, sumB, n, triArea(a), triArea(b), est) ==
          rsimKPairValue(sumB, sumA, n, triArea(b), triArea(a), est));
    // Perpendicular right triangles on their common leg exchange F = 0.2 or so: the estimate
    // from 32 samples per side is close, and each side alone estimates K times the other area.
    const float K = rsimKPairValue(sumA, sumB, n, triArea(a), triArea(b), est);
    CHECK(K * triArea(b) == Catch::Approx(sumA / n).epsilon(0.1));
    // At least one sample per side, for any S.
    CHECK(rsimKBaseSamplesPerSide(1) == 1u);
    CHECK(rsimKBaseSamplesPerSide(17) == 8u);
}

TEST_CASE("a row's far pairs take every nearFactor-th of its points, each from a phase of its own",
          "[shared][kernel]") {
    const Tri a{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const Tri b{{0, 0, 0}, {0, 1, 0}, {0, 0, 1}}; // near: on a's edge
    const Tri far{{5, 0, 1}, {5, 1, 1}, {6, 0, 1}};
    const glm::vec3 na = triNormal(a), nb = triNormal(b), nf = triNormal(far);
    const std::uint32_t S = 16, factor = 8, base = S / 2;
    const KSampling k{S, factor, 1, RSIM_K_ESTIMATOR_SOLID_ANGLE, 1e-5f};
    REQUIRE(rsimKSamplesPerSide(k, a, b) == base * factor);
    REQUIRE(rsimKSamplesPerSide(k, a, far) == base);
    // The far pairs of row 3 (other ids 100..299): stride = the factor, and every phase is used,
    // so that together they cover all the points the row's near pairs take.
    std::vector<int> phases(factor, 0);
    for (std::uint32_t other = 100; other < 300; ++other) {
        const glm::uvec2 st = rsimKSideStride(k, base, 3, other);
        REQUIRE(st.x == factor);
        REQUIRE(st.y < factor);
        ++phases[st.y];
    }
    for (std::uint32_t p = 0; p < factor; ++p) CHECK(phases[p] > 0);
    // The two sides of a pair draw their phases independently; the seed changes them.
    int sameSides = 0, sameSeeds = 0;
    for (std::uint32_t other = 100; other < 300; ++other) {
        sameSides += rsimKSideStride(k, base, 3, other) == rsimKSideStride(k, base, other, 3);
        sameSeeds += rsimKSideStride(k, base, 3, other) ==
                     rsimKSideStride(KSampling{S, factor, 2, RSIM_K_ESTIMATOR_SOLID_ANGLE, 1e-5f}, base, 3, other);
    }
    CHECK(sameSides < 60); // about 200 / 8 by chance
    CHECK(sameSeeds < 60);
    // Sample s of a far pair sits where sample s * factor + phase of a near pair of the same row
    // does: the points are the row's, only the directions are the pair's.
    const glm::uvec2 st = rsimKSideStride(k, base, 3, 7);
    for (std::uint32_t s = 0; s < base; ++s) {
        const RaySegment toFar = rsimKSideSample(a, na, far, nf, triArea(far), false, s, st, rsimKSideOffset(3, 7, 1), 1e-5f);
        const RaySegment toNear = rsimKSideSample(a, na, b, nb, triArea(b), true, s * factor + st.y, glm::uvec2(1, 0),
                                                  rsimKSideOffset(3, 5, 1), 1e-5f);
        CHECK(toFar.origin == toNear.origin);
    }
    // Without extra samples for near pairs, every pair takes the row's points in order.
    CHECK(rsimKSideStride(KSampling{S, 1, 1, RSIM_K_ESTIMATOR_SOLID_ANGLE, 1e-5f}, base, 3, 7) == glm::uvec2(1, 0));
}
