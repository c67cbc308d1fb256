// SPDX-License-Identifier: MIT
// Unit tests of include/rsim/shared/bsdf.h and bsdf_ggx.h: the materials of MODEL.md §10.1
// against invariants 9 (white furnace; sampling matches the pdf by a chi-square test) and 10
// (reciprocity), and the counter-based sample generator of §10.2. Integrals over directions are
// deterministic Gauss-Legendre quadratures whose error (checked below on integrals known in
// closed form) is far below the tolerances; Monte Carlo checks use 5 standard errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>
#include <catch2/catch_test_macros.hpp>

#include "rsim/shared/bsdf.h"

using namespace rsim::shared;
using glm::vec3;

namespace {

constexpr double kPi = 3.14159265358979323846;
// Error bound of the quadratures of directional albedos below (they converge as the panels halve:
// the largest change from 60 to 120 panels is 7e-5, at cos_o = 0.05 where the lobe meets the horizon).
constexpr double kQuadratureTol = 2e-4;
const std::vector<float> kCosines = {0.05f, 0.1f, 0.2f, 0.35f, 0.5f, 0.7f, 0.85f, 1.0f};
const std::vector<float> kRoughness = {0.05f, 0.1f, 0.3f, 0.6f, 1.0f};
const std::vector<float> kIors = {1.3f, 1.5f, 2.5f};

// Composite 4-point Gauss-Legendre rule over [a1, b1] x [a2, b2] with n1 x n2 panels.
template <class G> double integrate2(G g, double a1, double b1, int n1, double a2, double b2, int n2) {
    static const double x[4] = {0.0694318442029737, 0.3300094782075719, 0.6699905217924281, 0.9305681557970263};
    static const double w[4] = {0.1739274225687269, 0.3260725774312731, 0.3260725774312731, 0.1739274225687269};
    const double d1 = (b1 - a1) / n1, d2 = (b2 - a2) / n2;
    double sum = 0.0;
    for (int i = 0; i < n1; ++i)
        for (int a = 0; a < 4; ++a)
            for (int j = 0; j < n2; ++j)
                for (int b = 0; b < 4; ++b)
                    sum += w[a] * w[b] * g(a1 + (i + x[a]) * d1, a2 + (j + x[b]) * d2);
    return sum * d1 * d2;
}

vec3 direction(double cosTheta, double phi) {
    double s = std::sqrt(std::max(0.0, 1.0 - cosTheta * cosTheta));
    return vec3(float(s * std::cos(phi)), float(s * std::sin(phi)), float(cosTheta));
}

// int g(w) dw over the upper hemisphere, in (cos theta, phi): dw = dcos dphi.
template <class G> double overHemisphere(G g, int nCos, int nPhi) {
    return integrate2([&](double c, double phi) { return g(direction(c, phi)); }, 0.0, 1.0, nCos, 0.0, 2 * kPi, nPhi);
}

// int g(h) dw_h over microfacet normals, through GGX's stretch: h = normalize(alpha sqrt(1 - s^2)
// cos phi, alpha sqrt(1 - s^2) sin phi, s), dw_h = alpha^2 (s^2 + alpha^2 (1 - s^2))^(-3/2) ds dphi.
// D dw_h is smooth in (s, phi), so the nodes sit where the lobe is. g must be even in phi (w_o in
// the xz-plane): phi runs over [0, pi], doubled. s is split at 10 alpha, the scale of the map.
template <class G> double overMicronormals(double alpha, G g, int n = 80) {
    double a2 = alpha * alpha, split = std::min(0.5, 10.0 * alpha);
    auto f = [&](double s, double phi) {
        double r = alpha * std::sqrt(1.0 - s * s);
        glm::dvec3 h = glm::normalize(glm::dvec3(r * std::cos(phi), r * std::sin(phi), s));
        return g(vec3(h)) * a2 / std::pow(s * s + a2 * (1.0 - s * s), 1.5);
    };
    return 2.0 * (integrate2(f, 0.0, split, n, 0.0, kPi, n) + integrate2(f, split, 1.0, n, 0.0, kPi, n));
}

vec3 outgoing(float cosO) { return vec3(std::sqrt(1.0f - cosO * cosO), 0.0f, cosO); }

// int lobe(w_o, w_i) cos_i dw_i of a reflection lobe, through w_i = reflect(w_o, h), dw_i = 4 (w_o.h) dw_h.
template <class L> double lobeAlbedo(L lobe, double alpha, vec3 wo) {
    return overMicronormals(alpha, [&](vec3 h) {
        double woh = glm::dot(wo, h);
        if (woh <= 0.0) return 0.0;
        vec3 wi = rsimReflectAbout(wo, h);
        return wi.z > 0.0f ? double(lobe(wo, wi)) * wi.z * 4.0 * woh : 0.0;
    });
}

double plasticDiffuseAlbedo(const MaterialBsdf& m, vec3 wo) {
    return overHemisphere([&](vec3 wi) { return double(rsimPlasticDiffuse(m, wo, wi)) * wi.z; }, 100, 2);
}

// The whole directional albedo at w_o, delta lobes included (their reflectances are closed forms).
double albedo(const MaterialBsdf& m, vec3 wo) {
    auto eval = [&](vec3 o, vec3 i) { return rsimBsdfEval(m, o, i); };
    if (m.type == RSIM_MAT_DIFFUSE) return overHemisphere([&](vec3 wi) { return double(eval(wo, wi)) * wi.z; }, 100, 2);
    if (m.type == RSIM_MAT_CONDUCTOR)
        return rsimIsSmooth(m) ? rsimFresnelSchlick(wo.z, m.f0) : lobeAlbedo(eval, m.alpha, wo);
    if (m.type == RSIM_MAT_PLASTIC) {
        double specular = rsimIsSmooth(m) ? rsimFresnelDielectric(wo.z, m.eta)
                                          : lobeAlbedo([&](vec3 o, vec3 i) { return rsimPlasticSpecular(m, o, i); }, m.alpha, wo);
        return specular + plasticDiffuseAlbedo(m, wo);
    }
    return 1.0; // the thin sheet: R + T
}

MaterialBsdf material(uint type, float rho, float eta, float roughness, float f0) {
    return rsimMakeMaterialBsdf(type, rho, eta, roughness, f0, false);
}

// Uniform floats in [0, 1) from a Mersenne twister (never 1, unlike uniform_real_distribution<float>).
struct Uniform {
    std::mt19937 rng;
    explicit Uniform(std::uint32_t seed) : rng(seed) {}
    float operator()() { return rsimUnitFloat(rng()); }
};

vec3 randomUpper(Uniform& u) { return direction(std::max(1e-3f, u()), 2 * kPi * u()); }

} // namespace

TEST_CASE("Fresnel terms match their definitions", "[bsdf]") {
    CHECK(std::abs(rsimFresnelDielectric(1.0f, 1.5f) - 0.04f) < 1e-6f);
    CHECK(rsimFresnelDielectric(0.0f, 1.5f) == 1.0f);
    CHECK(std::abs(rsimFresnelDielectric(0.3f, 1.0f)) < 1e-7f);
    // Against the textbook form with angles: R_s = sin^2(i - t) / sin^2(i + t), R_p = tan^2(i - t) / tan^2(i + t).
    for (float eta : kIors)
        for (int k = 1; k <= 200; ++k) {
            double ci = k / 200.0, ti = std::acos(ci), tt = std::asin(std::sin(ti) / eta);
            double rs = std::pow(std::sin(ti - tt) / std::sin(ti + tt), 2);
            double rp = k == 200 ? rs : std::pow(std::tan(ti - tt) / std::tan(ti + tt), 2);
            if (k == 200) rs = rp = std::pow((eta - 1.0) / (eta + 1.0), 2); // normal incidence: 0/0 above
            CHECK(std::abs(rsimFresnelDielectric(float(ci), eta) - 0.5 * (rs + rp)) < 2e-6);
        }
    CHECK(std::abs(rsimFresnelDiffuseReflectanceExt(1.5f) - 0.0918f) < 5e-4f);
    CHECK(std::abs(rsimFresnelDiffuseReflectanceInt(1.5f) - 0.5963f) < 5e-4f);
    CHECK(rsimFresnelSchlick(1.0f, 0.3f) == 0.3f);
    CHECK(rsimFresnelSchlick(0.0f, 0.3f) == 1.0f);
    CHECK(std::abs(rsimFresnelSchlick(0.5f, 0.3f) - (0.3f + 0.7f / 32.0f)) < 1e-7f);
    MaterialBsdf p = material(RSIM_MAT_PLASTIC, 0.5f, 1.5f, 0.3f, 0.0f);
    CHECK(std::abs(p.alpha - 0.09f) < 1e-7f);
    CHECK(p.fdrInt == rsimFresnelDiffuseReflectanceInt(1.5f));
}

TEST_CASE("the shading frame is orthonormal and right-handed, also near -z", "[bsdf]") {
    Uniform u(11);
    std::vector<vec3> normals = {vec3(0, 0, 1), vec3(0, 0, -1), glm::normalize(vec3(1e-4f, -2e-4f, -1.0f))};
    for (int k = 0; k < 2000; ++k) normals.push_back(direction(2.0f * u() - 1.0f, 2 * kPi * u()));
    for (vec3 n : normals) {
        ShadingFrame f = rsimFrameFromNormal(n);
        CHECK(std::abs(glm::length(f.t) - 1.0f) < 1e-5f);
        CHECK(std::abs(glm::length(f.b) - 1.0f) < 1e-5f);
        CHECK(std::abs(glm::dot(f.t, f.b)) < 1e-5f);
        CHECK(std::abs(glm::dot(f.t, n)) < 1e-5f);
        CHECK(glm::length(glm::cross(f.t, f.b) - n) < 1e-5f);
        vec3 v(0.3f, -0.5f, 0.8f);
        CHECK(glm::length(rsimToWorld(f, rsimToLocal(f, v)) - v) < 1e-5f);
        CHECK(std::abs(rsimToLocal(f, n).z - 1.0f) < 1e-5f);
    }
}

TEST_CASE("GGX: D and the visible normals are normalised", "[bsdf]") {
    // int D(h) h.z dw_h = 1 and int D_wo(h) dw_h = 1 (the projected area of the microsurface seen
    // from w_o is that of the macrosurface): checks D, Lambda and G1 together, and the quadrature.
    for (float r : kRoughness) {
        float alpha = r * r;
        CHECK(std::abs(overMicronormals(alpha, [&](vec3 h) { return double(rsimGgxD(h, alpha)) * h.z; }) - 1.0) < 1e-5);
        for (float c : kCosines) {
            vec3 wo = outgoing(c);
            double visible = overMicronormals(alpha, [&](vec3 h) { return double(rsimGgxVisibleNormalPdf(wo, h, alpha)); });
            CHECK(std::abs(visible - 1.0) < 2e-5);
        }
    }
}

TEST_CASE("white furnace: diffuse albedo is rho", "[bsdf]") {
    for (float rho : {0.0f, 0.3f, 1.0f})
        for (float c : kCosines) CHECK(std::abs(albedo(material(RSIM_MAT_DIFFUSE, rho, 1.5f, 0.3f, 0.0f), outgoing(c)) - rho) < 1e-6);
}

TEST_CASE("white furnace: plastic's diffuse part is rho (1 - F(cos_o)), its total at most 1", "[bsdf]") {
    Uniform u(5);
    for (float eta : kIors)
        for (float c : kCosines) {
            vec3 wo = outgoing(c);
            float fo = rsimFresnelDielectric(c, eta);
            for (float rho : {0.0f, 0.5f, 1.0f}) {
                double diffuse = plasticDiffuseAlbedo(material(RSIM_MAT_PLASTIC, rho, eta, 0.3f, 0.0f), wo);
                CHECK(std::abs(diffuse - rho * (1.0 - fo)) < 1e-5);
            }
            for (float r : kRoughness) {
                MaterialBsdf m = material(RSIM_MAT_PLASTIC, 1.0f, eta, r, 0.0f);
                double total = albedo(m, wo);
                INFO("eta " << eta << " cos_o " << c << " roughness " << r << " albedo " << total);
                CHECK(total <= 1.001);
                CHECK(total >= 1.0 - fo); // the diffuse part alone (rho = 1)
                vec3 wi = randomUpper(u);  // eval is the sum of the two lobes
                CHECK(rsimBsdfEval(m, wo, wi) == rsimPlasticSpecular(m, wo, wi) + rsimPlasticDiffuse(m, wo, wi));
            }
        }
}

TEST_CASE("white furnace: conductor albedo between F0 E and 1, E the white GGX albedo >= 0.30", "[bsdf]") {
    // Stated lower bound: Schlick's F >= F0, so the albedo is at least F0 E(cos_o, r), where E is
    // the albedo of a white (F = 1) GGX lobe, which single scattering keeps above 0.30 for
    // roughness <= 1 (its minimum, about 0.307 at r = 1, cos_o = 1: MODEL.md §10.1's "about 0.31").
    for (float r : kRoughness)
        for (float c : kCosines) {
            vec3 wo = outgoing(c);
            double white = albedo(material(RSIM_MAT_CONDUCTOR, 0.0f, 1.5f, r, 1.0f), wo);
            INFO("roughness " << r << " cos_o " << c << " white albedo " << white);
            CHECK(white <= 1.0 + kQuadratureTol);
            CHECK(white >= 0.30);
            for (float f0 : {0.0f, 0.04f, 0.5f, 0.9f}) {
                double a = albedo(material(RSIM_MAT_CONDUCTOR, 0.0f, 1.5f, r, f0), wo);
                CHECK(a <= 1.0 + kQuadratureTol);
                CHECK(a >= f0 * white - kQuadratureTol);
            }
        }
    CHECK(std::abs(albedo(material(RSIM_MAT_CONDUCTOR, 0.0f, 1.5f, 1.0f, 1.0f), outgoing(1.0f)) - 0.31) < 0.01);
    CHECK(albedo(material(RSIM_MAT_CONDUCTOR, 0.0f, 1.5f, 0.05f, 1.0f), outgoing(0.5f)) > 0.999); // near a mirror
}

TEST_CASE("thin dielectric: R = 2F / (1 + F) from the incoherent bounces, R + T = 1", "[bsdf]") {
    for (float eta : kIors)
        for (float c : kCosines) {
            double f = rsimFresnelDielectric(c, eta), r = f, t = 0.0, inside = 1.0 - f; // light in the sheet
            for (int k = 0; k < 200; ++k) {                                            // bounces between the faces
                t += inside * (1.0 - f);
                r += inside * f * (1.0 - f);
                inside *= f * f;
            }
            CHECK(std::abs(rsimThinSheetReflectance(c, eta) - r) < 1e-6);
            CHECK(std::abs(r + t - 1.0) < 1e-6);
        }
    MaterialBsdf m = material(RSIM_MAT_DIELECTRIC, 0.0f, 1.5f, 0.0f, 0.0f);
    CHECK(m.twoSided == 1u);
    CHECK_FALSE(rsimHasNonDeltaLobe(m));
    vec3 wo = outgoing(0.2f);
    const int n = 400000;
    int reflected = 0;
    Uniform u(3);
    for (int k = 0; k < n; ++k) {
        BsdfSample s = rsimBsdfSample(m, wo, u(), u(), u());
        REQUIRE(s.delta == 1u);
        REQUIRE(s.weight == 1.0f); // each outcome's R or T over its probability: R + T = 1
        REQUIRE((s.wi == rsimMirrorLocal(wo) || s.wi == -wo));
        reflected += s.wi == rsimMirrorLocal(wo);
    }
    double r = rsimThinSheetReflectance(wo.z, 1.5f), sigma = std::sqrt(r * (1 - r) / n);
    CHECK(std::abs(double(reflected) / n - r) < 5 * sigma);
    CHECK(rsimBsdfEval(m, wo, vec3(0, 0, 1)) == 0.0f);
}

TEST_CASE("sample weights average to the albedo (the sampler is unbiased)", "[bsdf]") {
    std::vector<MaterialBsdf> materials = {material(RSIM_MAT_DIFFUSE, 0.7f, 1.5f, 0.0f, 0.0f)};
    for (float r : {0.0f, 0.3f, 1.0f}) {
        materials.push_back(material(RSIM_MAT_PLASTIC, 0.6f, 1.5f, r, 0.0f));
        materials.push_back(material(RSIM_MAT_PLASTIC, 0.2f, 2.5f, r, 0.0f));
        materials.push_back(material(RSIM_MAT_CONDUCTOR, 0.0f, 1.5f, r, 0.6f));
    }
    const std::uint32_t n = 200000;
    for (const MaterialBsdf& m : materials)
        for (float c : {0.1f, 0.5f, 0.95f}) {
            vec3 wo = outgoing(c);
            double sum = 0.0, sumSq = 0.0;
            for (std::uint32_t k = 0; k < n; ++k) {
                float u0 = rsimPathSample(9u, 0u, k, 1u, RSIM_DIM_LOBE);
                float u1 = rsimPathSample(9u, 0u, k, 1u, RSIM_DIM_DIRECTION_U);
                float u2 = rsimPathSample(9u, 0u, k, 1u, RSIM_DIM_DIRECTION_V);
                double w = rsimBsdfSample(m, wo, u0, u1, u2).weight;
                sum += w;
                sumSq += w * w;
            }
            double mean = sum / n, stdErr = std::sqrt(std::max(0.0, sumSq / n - mean * mean) / n);
            double expected = albedo(m, wo);
            INFO("type " << m.type << " alpha " << m.alpha << " cos_o " << c << " mean " << mean << " +- " << stdErr
                         << " albedo " << expected);
            // 5 standard errors, the quadrature's error and fp32 rounding of the weights.
            CHECK(std::abs(mean - expected) < 5 * stdErr + kQuadratureTol + 1e-6);
        }
}

TEST_CASE("reciprocity: f(w_i, w_o) = f(w_o, w_i) for the non-delta types", "[bsdf]") {
    std::vector<MaterialBsdf> materials = {material(RSIM_MAT_DIFFUSE, 0.7f, 1.5f, 0.0f, 0.0f),
                                           material(RSIM_MAT_PLASTIC, 0.5f, 1.5f, 0.0f, 0.0f)};
    for (float r : kRoughness) {
        materials.push_back(material(RSIM_MAT_PLASTIC, 0.5f, 1.7f, r, 0.0f));
        materials.push_back(material(RSIM_MAT_CONDUCTOR, 0.0f, 1.5f, r, 0.3f));
    }
    Uniform u(17);
    for (const MaterialBsdf& m : materials)
        for (int k = 0; k < 20000; ++k) {
            vec3 a = randomUpper(u), b = randomUpper(u);
            float fab = rsimBsdfEval(m, a, b), fba = rsimBsdfEval(m, b, a);
            REQUIRE(fab >= 0.0f);
            REQUIRE(std::abs(fab - fba) <= 1e-5f * std::max(fab, fba)); // fp32 rounding only
        }
}

TEST_CASE("sampled weights are f cos / pdf; the pdf integrates to 1", "[bsdf]") {
    Uniform u(23);
    for (uint type : {RSIM_MAT_DIFFUSE, RSIM_MAT_PLASTIC, RSIM_MAT_CONDUCTOR})
        for (float r : {0.0f, 0.05f, 0.3f, 0.6f, 1.0f})
            for (float c : {0.1f, 0.6f, 1.0f}) {
                MaterialBsdf m = material(type, 0.5f, 1.5f, r, 0.4f);
                vec3 wo = outgoing(c);
                const int n = 100000;
                int below = 0; // non-delta samples that left below the horizon (weight 0)
                for (int k = 0; k < n; ++k) {
                    BsdfSample s = rsimBsdfSample(m, wo, u(), u(), u());
                    REQUIRE(s.weight >= 0.0f);
                    if (s.delta == 1u) { // the mirror: Schlick(cos_o), or plastic's F(cos_o) / p_s
                        REQUIRE(s.wi == rsimMirrorLocal(wo));
                        float ps = rsimPlasticSpecularProbability(m, c);
                        float expected = type == RSIM_MAT_CONDUCTOR ? rsimFresnelSchlick(c, m.f0) : rsimFresnelDielectric(c, m.eta) / ps;
                        REQUIRE(std::abs(s.weight - expected) <= 1e-6f * expected);
                        continue;
                    }
                    if (s.wi.z <= 0.0f) {
                        REQUIRE(s.weight == 0.0f);
                        ++below;
                        continue;
                    }
                    float pdf = rsimBsdfPdf(m, wo, s.wi), f = rsimBsdfEval(m, wo, s.wi);
                    REQUIRE(s.pdf == pdf);
                    REQUIRE(std::abs(s.weight - f * s.wi.z / pdf) <= 1e-5f * s.weight);
                }
                if (!rsimHasNonDeltaLobe(m) || r == 0.05f) continue; // r = 0.05: too narrow for the grid below
                double mass = overHemisphere([&](vec3 wi) { return double(rsimBsdfPdf(m, wo, wi)); }, 400, 200);
                double expected = 1.0; // the density's mass plus what the delta lobe and the horizon take
                if (type == RSIM_MAT_PLASTIC && rsimIsSmooth(m)) expected -= rsimPlasticSpecularProbability(m, c);
                double pb = double(below) / n;
                INFO("type " << type << " roughness " << r << " cos_o " << c << " mass " << mass << " below " << pb);
                CHECK(std::abs(mass + pb - expected) < 5 * std::sqrt(pb * (1 - pb) / n) + kQuadratureTol);
            }
}

namespace {

constexpr int kChiSquareTests = 17; // the configurations of the test below
constexpr int kCosCells = 40, kPhiCells = 40;

// Chi-square test of rsimBsdfSample against rsimBsdfPdf (as Mitsuba's ChiSquareTest): sampled
// directions are counted in (cos theta, phi) cells plus one cell for samples that left below the
// horizon; expected counts integrate the pdf over each cell (and 1 minus its total for the
// horizon). Cells expected below 5 are pooled. Returns the p-value; 0 if a cell expected to be
// empty is not.
double chiSquarePValue(const MaterialBsdf& m, vec3 wo, int n, std::uint32_t seed) {
    const int cells = kCosCells * kPhiCells;
    std::vector<double> observed(cells + 1, 0.0), expected(cells + 1, 0.0);
    Uniform u(seed);
    for (int k = 0; k < n; ++k) {
        BsdfSample s = rsimBsdfSample(m, wo, u(), u(), u());
        REQUIRE(s.delta == 0u);
        if (s.wi.z <= 0.0f) {
            observed[cells] += 1;
            continue;
        }
        double phi = std::atan2(double(s.wi.y), double(s.wi.x));
        int i = std::min(kCosCells - 1, int(s.wi.z * kCosCells));
        int j = std::min(kPhiCells - 1, int((phi < 0 ? phi + 2 * kPi : phi) / (2 * kPi) * kPhiCells));
        observed[i * kPhiCells + j] += 1;
    }
    double total = 0.0;
    for (int i = 0; i < kCosCells; ++i)
        for (int j = 0; j < kPhiCells; ++j) {
            auto pdf = [&](double c, double phi) { return double(rsimBsdfPdf(m, wo, direction(c, phi))); };
            double p = integrate2(pdf, double(i) / kCosCells, double(i + 1) / kCosCells, 2,
                                  2 * kPi * j / kPhiCells, 2 * kPi * (j + 1) / kPhiCells, 2);
            expected[i * kPhiCells + j] = n * p;
            total += p;
        }
    REQUIRE(total <= 1.0 + 1e-4); // a density cannot hold more than all the samples
    expected[cells] = n * std::max(0.0, 1.0 - total);
    // Pool the cells, smallest expected first, until each pooled cell expects at least 5.
    std::vector<int> order(cells + 1);
    for (int k = 0; k <= cells; ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return expected[a] < expected[b]; });
    double stat = 0.0, poolObs = 0.0, poolExp = 0.0;
    int dof = -1;
    for (int k : order) {
        if (expected[k] == 0.0 && observed[k] > 0.0) return 0.0;
        poolObs += observed[k];
        poolExp += expected[k];
        if (poolExp < 5.0) continue;
        stat += (poolObs - poolExp) * (poolObs - poolExp) / poolExp;
        ++dof;
        poolObs = poolExp = 0.0;
    }
    if (poolObs > 0.0) return 0.0; // samples where (almost) nothing was expected
    boost::math::chi_squared dist(dof);
    return boost::math::cdf(boost::math::complement(dist, stat));
}

} // namespace

TEST_CASE("chi-square: sampled directions follow the pdf", "[bsdf]") {
    struct Case { uint type; float roughness; float cosO; };
    std::vector<Case> cases = {{RSIM_MAT_DIFFUSE, 0.0f, 0.3f}, {RSIM_MAT_DIFFUSE, 0.0f, 1.0f}};
    for (float c : {0.15f, 0.6f, 1.0f}) {
        for (float r : {0.4f, 0.7f, 1.0f}) cases.push_back({RSIM_MAT_CONDUCTOR, r, c});
        for (float r : {0.4f, 1.0f}) cases.push_back({RSIM_MAT_PLASTIC, r, c});
    }
    REQUIRE(cases.size() == kChiSquareTests);
    std::uint32_t seed = 100;
    for (const Case& t : cases) {
        double p = chiSquarePValue(material(t.type, 0.5f, 1.5f, t.roughness, 0.7f), outgoing(t.cosO), 1000000, ++seed);
        INFO("type " << t.type << " roughness " << t.roughness << " cos_o " << t.cosO << " p-value " << p);
        CHECK(p > 1e-3 / kChiSquareTests);
    }
}

TEST_CASE("albedo at normal incidence for the radiosity pipeline", "[bsdf]") {
    CHECK(rsimAlbedoNormalIncidence(material(RSIM_MAT_DIFFUSE, 0.4f, 1.5f, 0.3f, 0.0f)) == 0.4f);
    CHECK(std::abs(rsimAlbedoNormalIncidence(material(RSIM_MAT_PLASTIC, 0.5f, 1.5f, 0.3f, 0.0f)) - 0.52f) < 1e-6f);
    CHECK(rsimAlbedoNormalIncidence(material(RSIM_MAT_CONDUCTOR, 0.0f, 1.5f, 0.3f, 0.8f)) == 0.8f);
    CHECK(std::abs(rsimAlbedoNormalIncidence(material(RSIM_MAT_DIELECTRIC, 0.0f, 1.5f, 0.0f, 0.0f)) - 0.08f / 1.04f) < 1e-6f);
}

TEST_CASE("path samples: in the unit interval, 24-bit, keyed by every argument, repeatable", "[bsdf]") {
    std::set<float> seen;
    double sum = 0.0;
    int count = 0;
    for (uint seed : {0u, 1u})
        for (uint pixel = 0; pixel < 16; ++pixel)
            for (uint sample = 0; sample < 16; ++sample)
                for (uint bounce = 0; bounce < 4; ++bounce)
                    for (uint dim = 0; dim < 4; ++dim) {
                        float v = rsimPathSample(seed, pixel, sample, bounce, dim);
                        REQUIRE(v >= 0.0f);
                        REQUIRE(v < 1.0f);
                        REQUIRE(v * 16777216.0f == std::floor(v * 16777216.0f)); // u = (h >> 8) 2^-24
                        REQUIRE(v == rsimPathSample(seed, pixel, sample, bounce, dim));
                        seen.insert(v);
                        sum += v;
                        ++count;
                    }
    // 8192 keys in 2^24 values: about 2 collide by chance; an ignored argument would merge thousands.
    CHECK(count - int(seen.size()) <= 10);
    CHECK(std::abs(sum / count - 0.5) < 5 * std::sqrt(1.0 / 12.0 / count));
    // Changing any one argument changes the value.
    float base = rsimPathSample(7u, 1000u, 3u, 2u, 1u);
    CHECK(rsimPathSample(8u, 1000u, 3u, 2u, 1u) != base);
    CHECK(rsimPathSample(7u, 1001u, 3u, 2u, 1u) != base);
    CHECK(rsimPathSample(7u, 1000u, 4u, 2u, 1u) != base);
    CHECK(rsimPathSample(7u, 1000u, 3u, 3u, 1u) != base);
    CHECK(rsimPathSample(7u, 1000u, 3u, 2u, 2u) != base);
    // The order of the key matters: swapping two arguments gives another sample.
    CHECK(rsimPathSample(7u, 3u, 1000u, 2u, 1u) != base);
}
