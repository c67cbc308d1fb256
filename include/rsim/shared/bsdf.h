// SPDX-License-Identifier: MIT
// The materials of MODEL.md §10.1 (diffuse, plastic, conductor, thin dielectric) and the
// counter-based sample generator of the `paths` transport (§10.2), written once for the C++
// reference and the GLSL shaders. Directions are local to the shading frame as in bsdf_ggx.h:
// normal +z, w_o and w_i both pointing away from the surface, w_o.z > 0 guaranteed by the caller.
#ifndef RSIM_SHARED_BSDF_H
#define RSIM_SHARED_BSDF_H

#include "bsdf_ggx.h"

RSIM_SHARED_BEGIN

RSIM_CONST uint RSIM_MAT_DIFFUSE = 0u;
RSIM_CONST uint RSIM_MAT_PLASTIC = 1u;
RSIM_CONST uint RSIM_MAT_CONDUCTOR = 2u;
RSIM_CONST uint RSIM_MAT_DIELECTRIC = 3u; // a thin smooth sheet

// GGX lobes narrower than this alpha (roughness below 0.01) are treated as the smooth (delta)
// limit: their peak D = 1 / (pi alpha^2) would exceed 3e7 and fp32 directions could no longer
// resolve them. The limit of the rough formulas is the smooth one, so nothing jumps.
RSIM_CONST float RSIM_GGX_MIN_ALPHA = 1e-4f;

// One material's parameters (MODEL.md §10.1); scalars only, so it is one std430 record.
struct MaterialBsdf {
    uint type;     // RSIM_MAT_*
    float rho;     // diffuse: reflectance; plastic: the base's reflectance
    float eta;     // plastic and dielectric: ior, n_inside / n_outside
    float alpha;   // plastic and conductor: GGX alpha = roughness^2
    float f0;      // conductor: normal-incidence reflectance (`specular`)
    float fdrInt;  // plastic: F_dr,int = 1 - (1 - F_dr,ext) / eta^2, computed on the host
    uint twoSided; // 1: both faces are fronts (dielectrics always). Informative: the transports
                   // meet a two-sided surface's faces as reversed twin triangles, each a front
};

// One sampled continuation of a path.
struct BsdfSample {
    vec3 wi;      // the new direction, local frame
    float weight; // f cos_i / pdf (non-delta), the delta lobe's weight / its probability (delta); 0 ends the path
    float pdf;    // density in solid angle of w_i (non-delta), the lobe's selection probability (delta)
    uint delta;   // 1: w_i came from a delta lobe (next-event estimation cannot find it)
};

RSIM_FN bool rsimIsSmooth(MaterialBsdf m) { return m.alpha < RSIM_GGX_MIN_ALPHA; }

// Whether the material has a non-delta lobe that next-event estimation connects to (§10.2).
RSIM_FN bool rsimHasNonDeltaLobe(MaterialBsdf m) {
    if (m.type == RSIM_MAT_DIELECTRIC) return false;
    if (m.type == RSIM_MAT_CONDUCTOR) return !rsimIsSmooth(m);
    return true;
}

// Plastic's diffuse term (1 - F(cos_i)) (1 - F(cos_o)) rho / (pi eta^2 (1 - F_dr,int)): light
// enters through the coating, scatters diffusely, and leaves through it; the normalisation makes
// its directional albedo exactly rho (1 - F(cos_o)), since 2 int (1 - F(mu)) mu dmu = 1 - F_dr,ext
// = eta^2 (1 - F_dr,int). Symmetric in w_i and w_o.
RSIM_FN float rsimPlasticDiffuse(MaterialBsdf m, vec3 wo, vec3 wi) {
    if (wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
    float enter = 1.0f - rsimFresnelDielectric(wi.z, m.eta);
    float leave = 1.0f - rsimFresnelDielectric(wo.z, m.eta);
    return enter * leave * m.rho / (RSIM_PI * m.eta * m.eta * (1.0f - m.fdrInt));
}

// Plastic's rough specular lobe D G2 F(w_i . h; eta) / (4 cos_i cos_o); 0 when smooth (delta).
RSIM_FN float rsimPlasticSpecular(MaterialBsdf m, vec3 wo, vec3 wi) {
    if (rsimIsSmooth(m) || wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
    vec3 h = rsimHalfVector(wi, wo);
    return rsimGgxReflectionNoFresnel(wo, wi, m.alpha) * rsimFresnelDielectric(dot(wi, h), m.eta);
}

// The probability of sampling plastic's specular lobe: the lobes' albedos at w_o (MODEL.md
// §10.1), of the smooth coating: specular F(cos_o), diffuse rho (1 - F(cos_o)). The rough lobe's
// albedo is somewhat below F(cos_o); the estimator stays unbiased for any probability in (0, 1),
// this one only sets the variance. 1 when both albedos are 0 (a black base with eta = 1).
RSIM_FN float rsimPlasticSpecularProbability(MaterialBsdf m, float cosO) {
    float fo = rsimFresnelDielectric(cosO, m.eta);
    float total = fo + m.rho * (1.0f - fo);
    return total > 0.0f ? fo / total : 1.0f;
}

// f(w_o, w_i) of the material's non-delta part (MODEL.md §10.1); 0 unless both directions are
// above the surface. Reciprocal (invariant 10).
RSIM_FN float rsimBsdfEval(MaterialBsdf m, vec3 wo, vec3 wi) {
    if (wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
    if (m.type == RSIM_MAT_DIFFUSE) return m.rho / RSIM_PI;
    if (m.type == RSIM_MAT_PLASTIC) return rsimPlasticSpecular(m, wo, wi) + rsimPlasticDiffuse(m, wo, wi);
    if (m.type == RSIM_MAT_CONDUCTOR && !rsimIsSmooth(m)) {
        vec3 h = rsimHalfVector(wi, wo);
        return rsimGgxReflectionNoFresnel(wo, wi, m.alpha) * rsimFresnelSchlick(dot(wi, h), m.f0);
    }
    return 0.0f; // a smooth conductor and the thin dielectric are delta only
}

// Density in solid angle of w_i of rsimBsdfSample's non-delta outcomes.
RSIM_FN float rsimBsdfPdf(MaterialBsdf m, vec3 wo, vec3 wi) {
    if (wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
    if (m.type == RSIM_MAT_DIFFUSE) return rsimCosineHemispherePdf(wi);
    if (m.type == RSIM_MAT_CONDUCTOR) return rsimIsSmooth(m) ? 0.0f : rsimGgxReflectionPdf(wo, wi, m.alpha);
    if (m.type == RSIM_MAT_PLASTIC) {
        float ps = rsimPlasticSpecularProbability(m, wo.z);
        float diffusePdf = (1.0f - ps) * rsimCosineHemispherePdf(wi);
        if (rsimIsSmooth(m)) return diffusePdf; // the specular outcome is a delta
        return ps * rsimGgxReflectionPdf(wo, wi, m.alpha) + diffusePdf;
    }
    return 0.0f;
}

RSIM_FN BsdfSample rsimNoSample() {
    BsdfSample s;
    s.wi = vec3(0.0f, 0.0f, 1.0f);
    s.weight = 0.0f;
    s.pdf = 0.0f;
    s.delta = 0u;
    return s;
}

// A non-delta outcome w_i with weight f cos_i / pdf of the strategy's (mixture) density.
RSIM_FN BsdfSample rsimNonDeltaSample(MaterialBsdf m, vec3 wo, vec3 wi) {
    BsdfSample s = rsimNoSample();
    s.wi = wi;
    s.pdf = rsimBsdfPdf(m, wo, wi);
    if (wi.z > 0.0f && s.pdf > 0.0f) s.weight = rsimBsdfEval(m, wo, wi) * wi.z / s.pdf;
    return s;
}

RSIM_FN BsdfSample rsimDeltaSample(vec3 wi, float weight, float probability) {
    BsdfSample s = rsimNoSample();
    s.wi = wi;
    s.weight = weight;
    s.pdf = probability;
    s.delta = 1u;
    return s;
}

// Reflectance of a thin smooth sheet (MODEL.md §10.1): both faces reflect F and the light
// bounces between them incoherently, R = F + (1 - F)^2 F (1 + F^2 + F^4 + ...) = 2F / (1 + F);
// the rest, (1 - F) / (1 + F), goes straight through, so R + T = 1.
RSIM_FN float rsimThinSheetReflectance(float cosO, float eta) {
    float f = rsimFresnelDielectric(cosO, eta);
    return 2.0f * f / (1.0f + f);
}

// Continues a path at a surface (MODEL.md §10.2). uLobe picks a lobe, u1 and u2 the direction
// (dimensions RSIM_DIM_LOBE, RSIM_DIM_DIRECTION_U and _V of rsimPathSample). Lobes are picked
// with the stated probabilities below (the lobes' albedos at w_o, §10.1) and divided by them.
RSIM_FN BsdfSample rsimBsdfSample(MaterialBsdf m, vec3 wo, float uLobe, float u1, float u2) {
    if (wo.z <= 0.0f) return rsimNoSample();
    if (m.type == RSIM_MAT_DIFFUSE) return rsimNonDeltaSample(m, wo, rsimSampleCosineHemisphere(u1, u2));
    if (m.type == RSIM_MAT_CONDUCTOR) {
        // One lobe (probability 1): a perfect mirror weighted by Schlick's F(cos_o), or GGX's
        // visible normals, whose weight F G2 / G1(w_o) is f cos_i / pdf.
        if (rsimIsSmooth(m)) return rsimDeltaSample(rsimMirrorLocal(wo), rsimFresnelSchlick(wo.z, m.f0), 1.0f);
        vec3 h = rsimGgxSampleVisibleNormal(wo, m.alpha, u1, u2);
        return rsimNonDeltaSample(m, wo, rsimReflectAbout(wo, h));
    }
    if (m.type == RSIM_MAT_PLASTIC) {
        // Specular with probability p_s = F(cos_o) / (F(cos_o) + rho (1 - F(cos_o))), else diffuse.
        float ps = rsimPlasticSpecularProbability(m, wo.z);
        bool specular = uLobe < ps;
        if (specular && rsimIsSmooth(m))
            return rsimDeltaSample(rsimMirrorLocal(wo), rsimFresnelDielectric(wo.z, m.eta) / ps, ps);
        vec3 wi = specular ? rsimReflectAbout(wo, rsimGgxSampleVisibleNormal(wo, m.alpha, u1, u2))
                           : rsimSampleCosineHemisphere(u1, u2);
        // Rough: both outcomes are non-delta, weighted by the mixture density p_s pdf_spec +
        // (1 - p_s) pdf_cos (rsimBsdfPdf). Smooth: the diffuse outcome's density is
        // (1 - p_s) pdf_cos and f is the diffuse term alone, so its weight is f_d cos / that.
        return rsimNonDeltaSample(m, wo, wi);
    }
    if (m.type == RSIM_MAT_DIELECTRIC) {
        // Reflect with probability R = 2F / (1 + F) (the sheet's reflectance), else transmit
        // straight through: each outcome's weight (R or T) divided by its probability is 1.
        float r = rsimThinSheetReflectance(wo.z, m.eta);
        if (uLobe < r) return rsimDeltaSample(rsimMirrorLocal(wo), 1.0f, r);
        return rsimDeltaSample(-wo, 1.0f, 1.0f - r);
    }
    return rsimNoSample();
}

// The directional-hemispherical albedo at normal incidence that the radiosity pipeline uses as a
// Lambertian rho (MODEL.md §10.1, last paragraph): diffuse rho; plastic F(1) + rho (1 - F(1))
// (specular plus the diffuse albedo rho (1 - F(cos_o)) at cos_o = 1); conductor F0; a dielectric
// sheet 2F/(1+F) at normal incidence, made opaque. For rough plastic and conductors GGX's
// single-scattering albedo at normal incidence is below F (energy lost between microfacets,
// §10.1); we use the smooth values above for every roughness: simple, independent of r, and
// the energy a rough surface would have with its multiple scattering restored.
RSIM_FN float rsimAlbedoNormalIncidence(MaterialBsdf m) {
    if (m.type == RSIM_MAT_PLASTIC) {
        float f = rsimFresnelDielectric(1.0f, m.eta);
        return f + m.rho * (1.0f - f);
    }
    if (m.type == RSIM_MAT_CONDUCTOR) return m.f0;
    if (m.type == RSIM_MAT_DIELECTRIC) return rsimThinSheetReflectance(1.0f, m.eta);
    return m.rho;
}

// ---- counter-based samples of the `paths` transport (MODEL.md §10.2) -------------------------

// Layout of the sample dimensions. Bounce 0 (the camera): the pixel jitter. Bounce k >= 1 (the
// continuation at path vertex x_k): the lobe choice, the direction, then Russian roulette.
RSIM_CONST uint RSIM_DIM_PIXEL_JITTER_X = 0u;
RSIM_CONST uint RSIM_DIM_PIXEL_JITTER_Y = 1u;
RSIM_CONST uint RSIM_DIM_LOBE = 0u;
RSIM_CONST uint RSIM_DIM_DIRECTION_U = 1u;
RSIM_CONST uint RSIM_DIM_DIRECTION_V = 2u;
RSIM_CONST uint RSIM_DIM_ROULETTE = 3u;
RSIM_CONST uint RSIM_PATH_SALT = 0x70617468u; // "path": keeps these apart from other hashes of the seed

// Sample `dimension` of bounce `bounce` of camera path `sampleIndex` of pixel `pixel`: a uniform
// float in [0, 1), the same on every backend. The key is hashed in a fixed order (seed, pixel,
// sample, bounce, dimension), each step mixing the next word into the previous hash with
// rsimHash32; the top 24 bits map to u = (h >> 8) 2^-24 (rsimUnitFloat).
RSIM_FN float rsimPathSample(uint seed, uint pixel, uint sampleIndex, uint bounce, uint dimension) {
    uint h = rsimHash32(seed ^ RSIM_PATH_SALT);
    h = rsimHash32(h ^ pixel);
    h = rsimHash32(h ^ sampleIndex);
    h = rsimHash32(h ^ bounce);
    h = rsimHash32(h ^ dimension);
    return rsimUnitFloat(h);
}

#ifdef __cplusplus
// F_dr,ext(eta) = 2 int_0^1 F(mu; eta) mu dmu, the Fresnel reflectance of the outside averaged
// over cosine-weighted incidence (MODEL.md §10.1; 0.0918 at eta = 1.5). Host only: the shaders
// receive F_dr,int in MaterialBsdf. Composite Simpson's rule on 2^14 intervals in double: F is
// smooth for eta >= 1, so the error is far below fp32's rounding of F.
inline float rsimFresnelDiffuseReflectanceExt(float eta) {
    const int n = 1 << 14;
    double sum = 0.0;
    for (int k = 0; k <= n; ++k) {
        double mu = double(k) / n;
        double w = (k == 0 || k == n) ? 1.0 : (k % 2 == 1 ? 4.0 : 2.0);
        sum += w * double(rsimFresnelDielectric(float(mu), eta)) * mu;
    }
    return float(2.0 * sum / (3.0 * n));
}

// F_dr,int = 1 - (1 - F_dr,ext) / eta^2 (0.5963 at eta = 1.5).
inline float rsimFresnelDiffuseReflectanceInt(float eta) {
    return float(1.0 - (1.0 - double(rsimFresnelDiffuseReflectanceExt(eta))) / (double(eta) * double(eta)));
}

// A material from the scene file's keys (MODEL.md §10.1): `reflectance`, `ior`, `roughness`,
// `specular` (keys a type does not use are ignored). alpha = roughness^2.
inline MaterialBsdf rsimMakeMaterialBsdf(uint type, float reflectance, float ior, float roughness, float specular,
                                         bool twoSided) {
    MaterialBsdf m;
    m.type = type;
    m.rho = reflectance;
    m.eta = ior;
    m.alpha = roughness * roughness;
    m.f0 = specular;
    m.fdrInt = type == RSIM_MAT_PLASTIC ? rsimFresnelDiffuseReflectanceInt(ior) : 0.0f;
    m.twoSided = (twoSided || type == RSIM_MAT_DIELECTRIC) ? 1u : 0u;
    return m;
}
#endif

RSIM_SHARED_END

#endif
