// SPDX-License-Identifier: MIT
// The building blocks of the materials of MODEL.md §10.1, written once for the C++ reference
// and the GLSL shaders: the shading frame, the Fresnel terms, the GGX (Trowbridge-Reitz)
// microfacet distribution with Smith's height-correlated masking-shadowing, the sampling of its
// visible normals, and the cosine-weighted hemisphere. bsdf.h builds the materials from them.
//
// Every direction is in the local shading frame: the normal is +z, and both w_o (towards the
// previous vertex or the camera) and w_i (towards the light or the next vertex) point away from
// the surface. Callers guarantee w_o.z > 0 (they flip the frame of two-sided surfaces).
#ifndef RSIM_SHARED_BSDF_GGX_H
#define RSIM_SHARED_BSDF_GGX_H

#include "physics.h"

RSIM_SHARED_BEGIN

// ---- shading frame -------------------------------------------------------------------------

struct ShadingFrame {
    vec3 t; // tangent
    vec3 b; // bitangent
    vec3 n; // unit normal: local +z
};

// Orthonormal basis around the unit normal n without a branch on the normal's orientation
// (the construction of Duff et al. 2017, "Building an Orthonormal Basis, Revisited"): with
// s = sign(n.z) and a = -1 / (s + n.z), the tangents (1 + s n.x^2 a, s n.x n.y a, -s n.x) and
// (n.x n.y a, s + n.y^2 a, -n.y) are unit, orthogonal to n and to each other. s + n.z never
// cancels, so the basis stays accurate for normals near -z too.
RSIM_FN ShadingFrame rsimFrameFromNormal(vec3 n) {
    float s = n.z >= 0.0f ? 1.0f : -1.0f;
    float a = -1.0f / (s + n.z);
    float c = n.x * n.y * a;
    ShadingFrame f;
    f.t = vec3(1.0f + s * n.x * n.x * a, s * c, -s * n.x);
    f.b = vec3(c, s + n.y * n.y * a, -n.y);
    f.n = n;
    return f;
}

RSIM_FN vec3 rsimToLocal(ShadingFrame f, vec3 v) { return vec3(dot(v, f.t), dot(v, f.b), dot(v, f.n)); }

RSIM_FN vec3 rsimToWorld(ShadingFrame f, vec3 v) { return v.x * f.t + v.y * f.b + v.z * f.n; }

// The mirror direction of w about the normal +z (a perfect mirror, MODEL.md §10.1).
RSIM_FN vec3 rsimMirrorLocal(vec3 w) { return vec3(-w.x, -w.y, w.z); }

// The mirror direction of w about the microfacet normal m: 2 (w.m) m - w.
RSIM_FN vec3 rsimReflectAbout(vec3 w, vec3 m) { return 2.0f * dot(w, m) * m - w; }

// ---- Fresnel -------------------------------------------------------------------------------

// Exact unpolarised Fresnel reflectance of a dielectric interface, light arriving from the
// outside at cosine cosI; eta = n_inside / n_outside. The mean of the s- and p-polarised
// amplitude ratios squared, with Snell's law n_out sin_i = n_in sin_t. For eta >= 1 total
// reflection cannot happen from the outside; for eta < 1 (a denser outside) it returns 1 there.
RSIM_FN float rsimFresnelDielectric(float cosI, float eta) {
    float ci = clamp(cosI, 0.0f, 1.0f);
    float sinT2 = (1.0f - ci * ci) / (eta * eta);
    if (sinT2 >= 1.0f) return 1.0f;
    float ct = sqrt(1.0f - sinT2);
    float rs = (ci - eta * ct) / (ci + eta * ct);
    float rp = (eta * ci - ct) / (eta * ci + ct);
    return 0.5f * (rs * rs + rp * rp);
}

// Schlick's approximation from the normal-incidence reflectance f0: f0 + (1 - f0) (1 - cos)^5.
RSIM_FN float rsimFresnelSchlick(float cosI, float f0) {
    float m = 1.0f - clamp(cosI, 0.0f, 1.0f);
    float m2 = m * m;
    return f0 + (1.0f - f0) * (m2 * m2 * m);
}

// ---- GGX microfacets (MODEL.md §10.1: D is GGX with alpha = r^2, G Smith height-correlated) --

// D(h) for a unit microfacet normal h: 1 / (pi alpha^2 (cos^2 + sin^2 / alpha^2)^2). Written
// with h.x^2 + h.y^2 for sin^2 (not 1 - h.z^2), which keeps the peak of a narrow lobe accurate
// in fp32 where 1 - cos^2 would cancel.
RSIM_FN float rsimGgxD(vec3 h, float alpha) {
    if (h.z <= 0.0f) return 0.0f;
    float a2 = alpha * alpha;
    float k = (h.x * h.x + h.y * h.y) / a2 + h.z * h.z;
    return 1.0f / (RSIM_PI * a2 * k * k);
}

// Smith's Lambda(w) = (sqrt(1 + alpha^2 tan^2(theta_w)) - 1) / 2 for w above the surface.
RSIM_FN float rsimGgxLambda(vec3 w, float alpha) {
    float tan2 = (w.x * w.x + w.y * w.y) / (w.z * w.z);
    return 0.5f * (sqrt(1.0f + alpha * alpha * tan2) - 1.0f);
}

// Masking of one direction: G1(w) = 1 / (1 + Lambda(w)); 0 at and below the horizon.
RSIM_FN float rsimGgxG1(vec3 w, float alpha) {
    if (w.z <= 0.0f) return 0.0f;
    return 1.0f / (1.0f + rsimGgxLambda(w, alpha));
}

// Height-correlated masking-shadowing of a reflection: G2 = 1 / (1 + Lambda(w_o) + Lambda(w_i)).
// Symmetric in its two directions (reciprocity, invariant 10).
RSIM_FN float rsimGgxG2(vec3 wi, vec3 wo, float alpha) {
    if (wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
    return 1.0f / (1.0f + rsimGgxLambda(wo, alpha) + rsimGgxLambda(wi, alpha));
}

// The reflection's half vector normalize(w_i + w_o): the microfacet normal that mirrors one
// direction into the other. The sum is the same float for (w_i, w_o) and (w_o, w_i).
RSIM_FN vec3 rsimHalfVector(vec3 wi, vec3 wo) { return normalize(wi + wo); }

// The GGX reflection lobe without its Fresnel factor: D(h) G2(w_i, w_o) / (4 cos_i cos_o).
// The materials multiply by F(w_i . h) of their own Fresnel term.
RSIM_FN float rsimGgxReflectionNoFresnel(vec3 wo, vec3 wi, float alpha) {
    float cosines = 4.0f * wi.z * wo.z;
    if (wi.z <= 0.0f || wo.z <= 0.0f || cosines <= 0.0f) return 0.0f; // also where the product underflows
    vec3 h = rsimHalfVector(wi, wo);
    return rsimGgxD(h, alpha) * rsimGgxG2(wi, wo, alpha) / cosines;
}

// A microfacet normal drawn from the distribution of visible normals seen from w_o,
// D_wo(h) = G1(w_o) max(0, w_o . h) D(h) / w_o.z, by the method of Heitz 2018 ("Sampling the
// GGX Distribution of Visible Normals"): stretching by 1/alpha turns the GGX surface into a
// hemisphere of unit roughness, whose visible normals seen from the stretched view v are the
// hemisphere's projected area as seen from v. That projection is a unit disk: a half disk
// (the side of the hemisphere facing v) and a half ellipse of height v.z (its rim), so a
// uniform point of the disk is squeezed vertically onto that shape, lifted back onto the
// hemisphere along v, and unstretched.
RSIM_FN vec3 rsimGgxSampleVisibleNormal(vec3 wo, float alpha, float u1, float u2) {
    vec3 v = normalize(vec3(alpha * wo.x, alpha * wo.y, wo.z));
    float lenSq = v.x * v.x + v.y * v.y;
    vec3 e1 = lenSq > 0.0f ? vec3(-v.y, v.x, 0.0f) / sqrt(lenSq) : vec3(1.0f, 0.0f, 0.0f);
    vec3 e2 = cross(v, e1);
    float radius = sqrt(u1);
    float angle = 2.0f * RSIM_PI * u2;
    float d1 = radius * cos(angle);
    float d2 = radius * sin(angle);
    // Blend between the full disk (v.z = 1, seen from above) and the half disk (grazing view).
    float blend = 0.5f * (1.0f + v.z);
    d2 = (1.0f - blend) * sqrt(max(0.0f, 1.0f - d1 * d1)) + blend * d2;
    vec3 onHemisphere = d1 * e1 + d2 * e2 + sqrt(max(0.0f, 1.0f - d1 * d1 - d2 * d2)) * v;
    return normalize(vec3(alpha * onHemisphere.x, alpha * onHemisphere.y, max(0.0f, onHemisphere.z)));
}

// Density of rsimGgxSampleVisibleNormal in solid angle of h: G1(w_o) max(0, w_o . h) D(h) / w_o.z.
RSIM_FN float rsimGgxVisibleNormalPdf(vec3 wo, vec3 h, float alpha) {
    return rsimGgxG1(wo, alpha) * max(0.0f, dot(wo, h)) * rsimGgxD(h, alpha) / wo.z;
}

// Density in solid angle of w_i of a reflection about a visible normal: D_wo(h) / (4 w_o . h),
// the 1 / (4 w_o . h) the Jacobian of w_i = reflect(w_o, h). 0 for w_i below the horizon: such
// samples end the path, so this density integrates to less than 1 over the upper hemisphere.
RSIM_FN float rsimGgxReflectionPdf(vec3 wo, vec3 wi, float alpha) {
    if (wi.z <= 0.0f || wo.z <= 0.0f) return 0.0f;
    vec3 h = rsimHalfVector(wi, wo);
    float woh = dot(wo, h);
    if (woh <= 0.0f) return 0.0f;
    return rsimGgxVisibleNormalPdf(wo, h, alpha) / (4.0f * woh);
}

// ---- cosine-weighted hemisphere ------------------------------------------------------------

// w with density cos(theta) / pi: a uniform point of the unit disk (polar map) lifted onto the
// hemisphere (Malley's method). z = sqrt(1 - u1) > 0 for u1 < 1.
RSIM_FN vec3 rsimSampleCosineHemisphere(float u1, float u2) {
    float radius = sqrt(u1);
    float angle = 2.0f * RSIM_PI * u2;
    return vec3(radius * cos(angle), radius * sin(angle), sqrt(max(0.0f, 1.0f - u1)));
}

RSIM_FN float rsimCosineHemispherePdf(vec3 wi) { return max(0.0f, wi.z) / RSIM_PI; }

RSIM_SHARED_END

#endif
