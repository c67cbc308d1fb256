// SPDX-License-Identifier: MIT
// The K_ij estimator of MODEL.md §2, written once for the C++ reference (src/visibility) and the
// visibility shaders (shaders/visibility.glsl, ray-query and ray-tracing-pipeline builds).
//
// K_ij = (G_ij + G_ji) / (2 A_i A_j): from each side, a point x on the emitting triangle and a
// direction uniform in the solid angle that the other triangle subtends at x (Arvo's
// spherical-triangle sampling, with a bilinear warp towards the emitter's cosine). The weight
// Omega cos / (pi pdf) is bounded, unlike the area-sampling kernel cos cos / (pi r^2), whose
// variance is infinite where two triangles meet at an angle. How callers loop over a pair's
// samples: see "a pair" below.
#ifndef RSIM_SHARED_FORM_FACTOR_H
#define RSIM_SHARED_FORM_FACTOR_H

#include "physics.h"

RSIM_SHARED_BEGIN

// Which estimator computes K (simulation.k_estimator). SOLID_ANGLE is MODEL.md §2's sampling
// with the two sides combined by area (rsimKPairValue); SOLID_ANGLE_MEAN combines them as
// MODEL.md writes it, (G_ij + G_ji) / 2; AREA is the estimator MODEL.md specified before its
// section 2 was revised. The last two are kept for comparisons (docs/model-choices.md).
RSIM_CONST uint RSIM_K_ESTIMATOR_SOLID_ANGLE = 0u;
RSIM_CONST uint RSIM_K_ESTIMATOR_AREA = 1u;
RSIM_CONST uint RSIM_K_ESTIMATOR_SOLID_ANGLE_MEAN = 2u;

// Below this solid angle (sr), and when the two triangles share no vertex, y is sampled by area
// on the other triangle: the weight is bounded there and Arvo's formulas lose fp32 precision.
RSIM_CONST float RSIM_MIN_SPHERICAL_SOLID_ANGLE = 1e-3f;
// Floor of the cosine weights of the bilinear warp, so that no direction gets zero density.
RSIM_CONST float RSIM_WARP_MIN_COS = 0.01f;
// Salt of the points on the emitting triangle, shared by every pair of its row (MODEL §2.4).
RSIM_CONST uint RSIM_SALT_ROW_POINTS = 0x726f7773u; // "rows"

// ---- facing cull and the former estimator ------------------------------------------------

// False when the triangles cannot face each other: every vertex of one lies on or behind the
// plane of the other. Such pairs are 0 without rays. Exact dots keep the candidate pairs (and
// counts) identical across backends for nearly coplanar triangles.
RSIM_FN bool rsimCanFace(Tri a, vec3 na, Tri b, vec3 nb) {
    bool bInFrontOfA = rsimDotExact(na, b.v0 - a.v0) > 0.0f ||
                       rsimDotExact(na, b.v1 - a.v0) > 0.0f || rsimDotExact(na, b.v2 - a.v0) > 0.0f;
    bool aInFrontOfB = rsimDotExact(nb, a.v0 - b.v0) > 0.0f ||
                       rsimDotExact(nb, a.v1 - b.v0) > 0.0f || rsimDotExact(nb, a.v2 - b.v0) > 0.0f;
    return bInFrontOfA && aInFrontOfB;
}

// The former estimator (simulation.k_estimator = "area"): x on a, y on b, both by area, from
// one 4-D point u; weight = cos_a cos_b / (pi r^2), or 0 (no ray). K_ab is the mean weight over
// S samples. Its variance is unbounded near a shared edge (docs/model-choices.md).
RSIM_FN RaySegment rsimAreaKernelSample(Tri a, vec3 na, Tri b, vec3 nb, vec4 u, float eps) {
    vec3 x = rsimPointOnTriangle(a, vec2(u.x, u.y));
    vec3 y = rsimPointOnTriangle(b, vec2(u.z, u.w));
    vec3 d = y - x;
    float r2 = dot(d, d);
    float r = sqrt(r2);
    RaySegment seg;
    seg.origin = x;
    seg.dir = r > 0.0f ? d / r : vec3(0.0f, 0.0f, 1.0f);
    seg.tmin = eps;
    seg.tmax = max(r - eps, eps); // closer than 2 eps: nothing can occlude (V = 1)
    float cosA = dot(na, seg.dir);
    float cosB = -dot(nb, seg.dir);
    seg.weight = 0.0f;
    if (cosA > RSIM_COS_EPS && cosB > RSIM_COS_EPS && r2 > 0.0f)
        seg.weight = cosA * cosB / (RSIM_PI * r2);
    return seg;
}

// ---- spherical triangles -----------------------------------------------------------------

// Solid angle (sr) of the triangle with vertices p + a, p + b, p + c seen from p
// (Van Oosterom and Strackee): tan(Omega / 2) = |a.(b x c)| / (|a||b||c| + (a.b)|c| + (a.c)|b| +
// (b.c)|a|), with the unit vectors A = a / |a| etc. and det = |a.(b x c)| given by the caller.
// atan2 keeps it right past a hemisphere, where the denominator turns negative. det is the
// precision-critical term: for a far or grazing triangle a, b, c are nearly parallel and
// a.(b x c) cancels, while 2 area * height (height: p's distance to the plane) does not.
RSIM_FN float rsimSolidAngleOf(vec3 A, vec3 B, vec3 C, float la, float lb, float lc, float det) {
    return 2.0f * atan(det / (la * lb * lc), 1.0f + dot(A, B) + dot(A, C) + dot(B, C));
}

RSIM_FN float rsimSolidAngle(vec3 a, vec3 b, vec3 c) {
    float la = length(a), lb = length(b), lc = length(c);
    return rsimSolidAngleOf(a / la, b / lb, c / lc, la, lb, lc, abs(dot(a, cross(b - a, c - a))));
}

// A direction uniform in the spherical triangle of the unit vectors A, B, C, whose solid angle
// is omega, from u in [0,1)^2 (Arvo 1995). u.x picks the sub-triangle A B C' of area u.x omega
// (C' on the arc from A to C), u.y the point on the arc from B (u.y = 0) to C'. B is the apex.
// Arvo finds C' from the cosine of the arc b' = |A C'|, which loses the arc to fp32 rounding
// when b' is small (sqrt(1 - q^2)): next to a shared edge that moved directions by 1e-2 rad.
// Here b' comes from the spherical excess of two sides and their angle,
// tan(E/2) = tan(b'/2) tan(c/2) sin(alpha) / (1 + tan(b'/2) tan(c/2) cos(alpha)), solved for
// b' with E = u.x omega: tan(b'/2) = sin(E/2) / (tan(c/2) sin(alpha - E/2)), and
// tan(c/2) = |A - B| / |A + B|. Every term is well conditioned (about 1e-5 rad in fp32), and
// the only transcendental functions are one sine and cosine of E/2.
RSIM_FN vec3 rsimSampleSphericalTriangle(vec3 A, vec3 B, vec3 C, float omega, vec2 u) {
    // Angle alpha at A between the planes (A, B) and (A, C): |(A x B) x (A x C)| = |A.(B x C)|.
    float sinScaled = abs(dot(A, cross(B, C)));
    float cosScaled = dot(cross(A, B), cross(A, C));
    float hyp = sqrt(sinScaled * sinScaled + cosScaled * cosScaled);
    vec3 toC = C - dot(C, A) * A; // tangent at A towards C
    float toCLength = length(toC);
    if (!(hyp > 0.0f) || !(toCLength > 0.0f)) return B; // degenerate: no direction to choose
    float sinAlpha = sinScaled / hyp, cosAlpha = cosScaled / hyp;

    float halfArea = 0.5f * u.x * omega;
    float sh = sin(halfArea), ch = cos(halfArea);
    float sinAlphaMinusHalf = sinAlpha * ch - cosAlpha * sh; // > 0: E/2 < alpha for every triangle
    // tan(b'/2) = num / den; cos b' and sin b' from the half-angle tangent, without trig.
    float num = sh * length(A + B);
    float den = length(A - B) * max(0.0f, sinAlphaMinusHalf);
    float norm = num * num + den * den;
    if (!(norm > 0.0f)) return B;
    vec3 cPrime =
        ((den * den - num * num) / norm) * A + ((2.0f * num * den / norm) / toCLength) * toC;

    // z = cos of the arc from B, uniform in [cos |B C'|, 1]: 1 - z = u.y (1 - C'.B), with
    // 1 - C'.B = |C' - B|^2 / 2 (no cancellation).
    vec3 dBC = cPrime - B;
    float oneMinusZ = u.y * 0.5f * dot(dBC, dBC);
    float z = 1.0f - oneMinusZ;
    float sinTheta = sqrt(max(0.0f, oneMinusZ * (2.0f - oneMinusZ)));
    vec3 toCPrime = cPrime - dot(cPrime, B) * B;
    float toCPrimeLength = length(toCPrime);
    if (!(toCPrimeLength > 0.0f)) return B;
    return z * B + (sinTheta / toCPrimeLength) * toCPrime;
}

// x in [0, 1] with density proportional to mix(a, b, x) (a, b > 0), from u in [0, 1):
// the root of (b - a) x^2 / 2 + a x = u (a + b) / 2 in the form that does not cancel.
RSIM_FN float rsimSampleLinear(float u, float a, float b) {
    float x = u * (a + b) / (a + sqrt(mix(a * a, b * b, u)));
    return min(x, 1.0f);
}

// Warps u by the bilinear density on [0,1]^2 with corner weights w = (w00, w10, w01, w11), the
// first index along u.x. Returns (x, y, pdf): y from the marginal, x from the conditional.
RSIM_FN vec3 rsimSampleBilinear(vec2 u, vec4 w) {
    float y = rsimSampleLinear(u.y, w.x + w.y, w.z + w.w);
    float x = rsimSampleLinear(u.x, mix(w.x, w.z, y), mix(w.y, w.w, y));
    float value =
        (1.0f - x) * (1.0f - y) * w.x + x * (1.0f - y) * w.y + (1.0f - x) * y * w.z + x * y * w.w;
    return vec3(x, y, 4.0f * value / (w.x + w.y + w.z + w.w));
}

// ---- the estimator of MODEL §2 -----------------------------------------------------------

// True when the triangles have a vertex in common (bitwise equal positions). Such pairs always
// sample directions: the area weight would be unbounded at the shared vertex.
RSIM_FN bool rsimHasVertex(Tri t, vec3 p) {
    return t.v0 == p || t.v1 == p || t.v2 == p;
}
RSIM_FN bool rsimShareVertex(Tri a, Tri b) {
    return rsimHasVertex(b, a.v0) || rsimHasVertex(b, a.v1) || rsimHasVertex(b, a.v2);
}

// The part of triangle o on or in front of the plane through p with normal n: 0, 3 or 4
// vertices (v0..v3) in o's winding. Heights use exact dots, like the facing cull.
struct FrontPolygon {
    vec3 v0;
    vec3 v1;
    vec3 v2;
    vec3 v3;
    uint count;
};

RSIM_FN vec3 rsimPlaneCrossing(vec3 p, float hp, vec3 q, float hq) {
    return p + (hp / (hp - hq)) * (q - p);
}

RSIM_FN FrontPolygon rsimClipToFront(Tri o, vec3 n, vec3 p) {
    float h0 = rsimDotExact(n, o.v0 - p), h1 = rsimDotExact(n, o.v1 - p),
          h2 = rsimDotExact(n, o.v2 - p);
    FrontPolygon poly;
    poly.v0 = o.v0;
    poly.v1 = o.v1;
    poly.v2 = o.v2;
    poly.v3 = o.v0;
    poly.count = 3u;
    bool f0 = h0 >= 0.0f, f1 = h1 >= 0.0f, f2 = h2 >= 0.0f;
    if (f0 && f1 && f2) return poly;
    if (!(max(h0, max(h1, h2)) > 0.0f)) {
        poly.count = 0u;
        return poly;
    }
    // Rotate (cyclically, keeping the winding) so that v0 is the vertex on its own side.
    Tri t = o;
    float a = h0, b = h1, c = h2;
    if (f1 != f0 && f1 != f2) {
        t = Tri(o.v1, o.v2, o.v0);
        a = h1;
        b = h2;
        c = h0;
    } else if (f2 != f0 && f2 != f1) {
        t = Tri(o.v2, o.v0, o.v1);
        a = h2;
        b = h0;
        c = h1;
    }
    if (a >= 0.0f) { // only v0 in front: a triangle
        poly.v0 = t.v0;
        poly.v1 = rsimPlaneCrossing(t.v0, a, t.v1, b);
        poly.v2 = rsimPlaneCrossing(t.v2, c, t.v0, a);
    } else { // only v0 behind: a quad
        poly.v0 = rsimPlaneCrossing(t.v0, a, t.v1, b);
        poly.v1 = t.v1;
        poly.v2 = t.v2;
        poly.v3 = rsimPlaneCrossing(t.v2, c, t.v0, a);
        poly.count = 4u;
    }
    return poly;
}

// A direction towards the spherical triangle of the unit vectors A, B, C (solid angle omega),
// warped towards the cosine about ne: returns (direction, pdf of the warp), the density in
// solid angle being pdf / omega.
RSIM_FN vec4 rsimSampleTowardsTriangle(vec3 A, vec3 B, vec3 C, vec3 ne, float omega, vec2 u) {
    // Each vertex with its cosine about ne. Relabel cyclically so that Arvo's apex B is the
    // vertex of largest cosine: the warp then weighs it at two corners of the square, whatever
    // the triangle's orientation.
    vec4 a = vec4(A, dot(ne, A)), b = vec4(B, dot(ne, B)), c = vec4(C, dot(ne, C));
    if (a.w >= b.w && a.w >= c.w) {
        vec4 t = c;
        c = b;
        b = a;
        a = t;
    } else if (c.w > b.w) {
        vec4 t = a;
        a = b;
        b = c;
        c = t;
    }
    A = vec3(a);
    B = vec3(b);
    C = vec3(c);
    float cA = a.w, cB = b.w, cC = c.w;
    float wB = max(RSIM_WARP_MIN_COS, cB);
    vec3 warped =
        rsimSampleBilinear(u, vec4(wB, wB, max(RSIM_WARP_MIN_COS, cA), max(RSIM_WARP_MIN_COS, cC)));
    return vec4(rsimSampleSphericalTriangle(A, B, C, omega, vec2(warped.x, warped.y)), warped.z);
}

// The segment runs from x on e to o's plane but for a pad at either end, so that a tracer
// cannot hit e, o or their two-sided twins (which lie in the same planes) by rounding, while a
// surface in contact with e or o (a panel against a wall, a sliver on a shelf) still occludes.
// A pad keeps the segment's end RSIM_K_RAY_ULPS units in the last place away from the plane,
// measured along the plane's normal (so it grows as 1 / cos along the ray), and at least a
// thousandth of eps. The unit is that of the largest vertex coordinate of the triangle there,
// and at the far end also of the segment's length: points and hits in fp32 are off by a few
// such units. What lies closer to e or o than the pad (8 um for triangles 16-32 m from the
// origin) is in contact with it and does not occlude. Fixed offsets of eps (1e-5 of the
// scene's diagonal) let the rays pass behind contact surfaces (industry: a sliver 20-60 um from
// a panel saw the wall 5 cm behind it, with F = 0.18); skipping the four triangles by id
// instead made every ray slower, since such rays cannot be opaque: each candidate hit then runs
// a shader (docs/benchmarks.md at c8397db, "K's rays: pads instead of skipping by id").
RSIM_CONST float RSIM_K_RAY_START = 1e-3f;
RSIM_CONST float RSIM_K_RAY_ULPS = 4.0f;

// One unit in the last place of m >= 0 (the power of two at or below it, times 2^-23): the
// scale of fp32 rounding there, exactly the same in C++ and GLSL.
RSIM_FN float rsimUlpOf(float m) {
    return uintBitsToFloat(floatBitsToUint(m) & 0x7f800000u) * (1.0f / 8388608.0f);
}

RSIM_FN float rsimMaxAbs(vec3 p) { return max(abs(p.x), max(abs(p.y), abs(p.z))); }

// The pad at an end of a segment whose direction makes cosine c > 0 with the plane's normal
// there, where `ulp` is the rounding scale of the points and of t at that end. Finite even for
// a denormal c (a tracer's tmin must be), and then longer than any segment, as it should be.
RSIM_FN float rsimKRayPad(float ulp, float c, float eps) {
    return min(max(RSIM_K_RAY_START * eps, RSIM_K_RAY_ULPS * ulp / c), 1e30f);
}

// One sample of F(x -> o) for x on the emitting triangle e, from the 4-D point u: dims 0,1 place
// x, dims 2,3 choose the direction (or y, in the area fallback). Directions are drawn in the
// part of o in front of e's plane (a triangle, or a quad as two triangles chosen by solid
// angle): the rest has cos_e <= 0 and contributes nothing. weight is the estimate
// Omega cos_e / (pi pdf_warp), or A_o cos_e cos_o / (pi r^2) in the fallback, to be counted when
// the segment is unoccluded; 0 means no contribution and no ray.
// What every sample of one side (e towards o) shares, worked out once by a caller that loops over
// the side's samples (the CPU): o clipped to the front of e's plane, the lengths of the cross
// products of its sub-triangles (twice their areas) and the largest vertex coordinates of e and o.
struct FormFactorSide {
    FrontPolygon poly;
    float twiceArea1; // (poly.v0, v1, v2)
    float twiceArea2; // (poly.v0, v2, v3) when poly.count is 4, else 0
    float atE;        // rsimMaxAbs of e's vertices, the largest
    float atO;        // and of o's
};

RSIM_FN FormFactorSide rsimFormFactorSideOf(Tri e, vec3 ne, Tri o) {
    FormFactorSide side;
    side.poly = rsimClipToFront(o, ne, e.v0);
    side.twiceArea1 = length(cross(side.poly.v1 - side.poly.v0, side.poly.v2 - side.poly.v0));
    side.twiceArea2 =
        side.poly.count == 4u ? length(cross(side.poly.v2 - side.poly.v0, side.poly.v3 - side.poly.v0)) : 0.0f;
    side.atE = max(rsimMaxAbs(e.v0), max(rsimMaxAbs(e.v1), rsimMaxAbs(e.v2)));
    side.atO = max(rsimMaxAbs(o.v0), max(rsimMaxAbs(o.v1), rsimMaxAbs(o.v2)));
    return side;
}

// rsimFormFactorSample with its side's shared terms given.
RSIM_FN RaySegment rsimFormFactorSampleOf(FormFactorSide side, Tri e, vec3 ne, Tri o, vec3 no, float areaO,
                                          bool shareVertex, vec4 u, float eps) {
    vec3 x = rsimPointOnTriangle(e, vec2(u.x, u.y));
    RaySegment seg;
    seg.origin = x;
    seg.dir = ne;
    seg.tmin = RSIM_K_RAY_START * eps;
    seg.tmax = eps;
    seg.weight = 0.0f;
    // Height of x above o's plane: on or behind it, nothing of o's front side is visible.
    float height = rsimDotExact(no, x - o.v0);
    if (!(height > 0.0f)) return seg;
    FrontPolygon poly = side.poly;
    if (poly.count == 0u) return seg;
    vec3 d0 = poly.v0 - x, d1 = poly.v1 - x, d2 = poly.v2 - x, d3 = poly.v3 - x;
    float l0 = length(d0), l1 = length(d1), l2 = length(d2), l3 = length(d3);
    vec3 p0 = d0 / l0, p1 = d1 / l1, p2 = d2 / l2, p3 = d3 / l3;
    // |a.(b x c)| = 2 area height for the sub-triangles (poly.v0, v1, v2) and (v0, v2, v3).
    float omega1 = rsimSolidAngleOf(p0, p1, p2, l0, l1, l2, height * side.twiceArea1);
    float omega2 = poly.count == 4u ? rsimSolidAngleOf(p0, p2, p3, l0, l2, l3, height * side.twiceArea2) : 0.0f;
    float omega = omega1 + omega2;
    float weight = 0.0f;
    float r = 0.0f;
    float cosE = 0.0f, cosO = 0.0f;
    vec3 w;
    if (omega < RSIM_MIN_SPHERICAL_SOLID_ANGLE && !shareVertex) {
        vec3 d = rsimPointOnTriangle(o, vec2(u.z, u.w)) - x;
        float r2 = dot(d, d);
        r = sqrt(r2);
        w = r > 0.0f ? d / r : ne;
        cosE = dot(ne, w);
        cosO = -dot(no, w);
        if (cosE > 0.0f && cosO > 0.0f && r2 > 0.0f) weight = areaO * cosE * cosO / (RSIM_PI * r2);
    } else {
        // u.z picks the sub-triangle in proportion to its solid angle and is stretched back to [0,
        // 1).
        float t = u.z * omega;
        bool second = t >= omega1 && omega2 > 0.0f;
        float uz = second ? (t - omega1) / omega2 : t / max(omega1, 1e-30f);
        vec4 sampled =
            rsimSampleTowardsTriangle(p0, second ? p2 : p1, second ? p3 : p2, ne,
                                      second ? omega2 : omega1, vec2(min(uz, 0.99999994f), u.w));
        w = vec3(sampled.x, sampled.y, sampled.z);
        cosE = dot(ne, w);
        cosO = -dot(no, w);
        if (cosE > 0.0f && cosO > 0.0f && sampled.w > 0.0f) {
            weight = omega * cosE / (RSIM_PI * sampled.w);
            r = height / cosO; // distance along w to o's plane
        }
    }
    if (!(weight > 0.0f) || !(r > 0.0f)) return seg; // also rejects NaN from degenerate inputs
    seg.dir = w;
    // The rounding scale at the start is that of e's vertices (x lies on e, and a tracer's error
    // on a triangle grows with its vertices' size); at the end, that of o's vertices and of
    // t = r itself (a tracer hits o's plane at r within a unit or two of it).
    seg.tmin = rsimKRayPad(rsimUlpOf(side.atE), cosE, eps);
    seg.tmax = max(r - rsimKRayPad(rsimUlpOf(max(r, side.atO)), cosO, eps), seg.tmin);
    seg.weight = weight;
    return seg;
}

RSIM_FN RaySegment rsimFormFactorSample(Tri e, vec3 ne, Tri o, vec3 no, float areaO,
                                        bool shareVertex, vec4 u, float eps) {
    return rsimFormFactorSampleOf(rsimFormFactorSideOf(e, ne, o), e, ne, o, no, areaO, shareVertex, u, eps);
}

// ---- a pair: S/2 samples from each side, more for near pairs ------------------------------
//
// Callers loop, for side 0 (a emits towards b) and side 1 (b towards a), over the samples
// s < rsimKSamplesPerSide of rsimKSideSample, trace each segment with a weight, add the
// unoccluded weights per side and finish with rsimKPairValue. The functions take what one
// sample needs and nothing more, so that a GPU thread keeps little state across its rays.

// How a pair is sampled: S (samples), the factor for near pairs, the seed, the ray offset and
// the estimator (RSIM_K_ESTIMATOR_*).
struct KSampling {
    uint samples;
    uint nearFactor;
    uint seed;
    uint estimator;
    float eps;
};

// Samples per side of an ordinary pair: S/2, at least 1.
RSIM_FN uint rsimKBaseSamplesPerSide(uint samples) {
    return max(1u, samples / 2u);
}

// Whether the traced pairs take the blocker rounds (gpu_layout.h, PairRays): their S/2 + S/2
// rays fit 32 bits, and the estimator is MODEL.md's (the area estimator's rays are of one kind).
RSIM_FN bool rsimBlockerRounds(uint samples, uint estimator) {
    return 2u * rsimKBaseSamplesPerSide(samples) <= 32u && estimator != RSIM_K_ESTIMATOR_AREA;
}

RSIM_FN float rsimLongestEdgeSq(Tri t) {
    return max(rsimDotExact(t.v1 - t.v0, t.v1 - t.v0),
               max(rsimDotExact(t.v2 - t.v1, t.v2 - t.v1), rsimDotExact(t.v0 - t.v2, t.v0 - t.v2)));
}

// Near pairs: centroids closer than the longer of the two triangles' longest edges. They are
// the pairs whose estimates carry a row's error: neighbours meeting at an edge or a T-junction,
// and parallel surfaces a few millimetres apart, where F(x -> j) changes sharply with x (the
// large triangle's points decide the small triangle's row). About O(N) pairs take
// nearFactor x S samples.
// Rounded the same on every backend (exact dots, no division), so that both agree on every pair.
RSIM_FN bool rsimPairIsNear(Tri a, Tri b) {
    RSIM_PRECISE vec3 d = (a.v0 + a.v1 + a.v2) - (b.v0 + b.v1 + b.v2); // 3 x centroid distance
    RSIM_PRECISE float limit = 9.0f * max(rsimLongestEdgeSq(a), rsimLongestEdgeSq(b));
    return rsimDotExact(d, d) < limit;
}

RSIM_FN uint rsimKSamplesPerSide(KSampling k, Tri a, Tri b) {
    uint base = rsimKBaseSamplesPerSide(k.samples);
    return rsimPairIsNear(a, b) ? base * k.nearFactor : base;
}

// Cranley-Patterson offsets of the 4-D points of one side: dims 0,1 (the points on the emitting
// triangle) from (emitting id, seed), shared by the emitting triangle's whole row; dims 2,3
// (the direction) from (min id, max id, side, seed). Stable ids, so the pattern does not depend
// on the internal order.
RSIM_FN vec4 rsimKSideOffset(uint emitter, uint other, uint seed) {
    vec2 rows = rsimOffset2(rsimPairHash(emitter, RSIM_SALT_ROW_POINTS, seed));
    uint h = rsimPairHash(min(emitter, other), max(emitter, other), seed);
    uint side = emitter < other ? 0u : 2u;
    return vec4(rows, rsimUnitFloat(rsimHash32(h + 5u + side)), rsimUnitFloat(rsimHash32(h + 6u + side)));
}

// Salt of a far pair's phase in its row's points.
RSIM_CONST uint RSIM_SALT_POINT_PHASE = 0x70686173u; // "phas"

// Which of its row's points a side's samples take (docs/model-choices.md, "Points of a row"),
// as (stride, phase): sample s uses point s * stride + phase of the row's R4 sequence. A row's
// sequence has nearFactor x S/2 points. A near pair (perSide, from rsimKSamplesPerSide, above
// S/2) takes all of them in order (1, 0). A far
// pair, with S/2 samples, takes every nearFactor-th point from a phase of its own, hashed from
// (emitter, other, seed): its samples still cover the whole triangle evenly, and the far pairs
// of a row together cover every point of the row, as its near pairs do. Were every far pair to
// take the row's first S/2 points, their errors would all be the same error (how much of the
// far scene those few points see), and a row whose view changes sharply across its triangle
// (next to a thin gap, in a shelf) would carry it undivided into its sum.
RSIM_FN uvec2 rsimKSideStride(KSampling k, uint perSide, uint emitter, uint other) {
    if (perSide > rsimKBaseSamplesPerSide(k.samples) || k.nearFactor <= 1u) return uvec2(1u, 0u);
    uint h = rsimHash32(rsimPairHash(emitter, other, k.seed) ^ RSIM_SALT_POINT_PHASE);
    return uvec2(k.nearFactor, h % k.nearFactor);
}

// Sample s of the side that emits from e towards o (offset from rsimKSideOffset, stride and
// phase from rsimKSideStride).
RSIM_FN RaySegment rsimKSideSample(Tri e, vec3 ne, Tri o, vec3 no, float areaO, bool shareVertex,
                                   uint s, uvec2 stride, vec4 offset, float eps) {
    return rsimFormFactorSample(e, ne, o, no, areaO, shareVertex, rsimR4Point(s * stride.x + stride.y, offset), eps);
}
// The same with the side's shared terms (rsimFormFactorSideOf(e, ne, o)) worked out once.
RSIM_FN RaySegment rsimKSideSampleOf(FormFactorSide side, Tri e, vec3 ne, Tri o, vec3 no, float areaO,
                                     bool shareVertex, uint s, uvec2 stride, vec4 offset, float eps) {
    return rsimFormFactorSampleOf(side, e, ne, o, no, areaO, shareVertex, rsimR4Point(s * stride.x + stride.y, offset),
                                  eps);
}

// K_ab from the sums of the unoccluded weights of each side over perSide samples (divided by the
// samples drawn, never by those visible): Fa = mean weight from a estimates F_ab = K A_b, Fb
// estimates F_ba = K A_a. Both are unbiased, and so is any fixed blend of them. rsim blends by
// area, K = (Fa + Fb) / (A_a + A_b): every F entry then has variance at most that of a mean of
// bounded weights, whatever the two areas. MODEL.md's equal blend,
// K = (G_ab + G_ba) / (2 A_a A_b) = (Fa / A_b + Fb / A_a) / 2 (RSIM_K_ESTIMATOR_SOLID_ANGLE_MEAN),
// scales the large triangle's estimate by the area ratio in the small triangle's row: a 0.9 m^2
// wall seen by a 2 cm sliver standing on it (the tiny room) makes that row sum 1.8 at S = 16
// and 1.3 at S = 256.
RSIM_FN float rsimKPairValue(float sumFromA, float sumFromB, uint perSide, float areaA, float areaB,
                             uint estimator) {
    float n = float(perSide);
    float fa = sumFromA / n, fb = sumFromB / n;
    if (estimator == RSIM_K_ESTIMATOR_SOLID_ANGLE_MEAN) return 0.5f * (fa / areaB + fb / areaA);
    return (fa + fb) / (areaA + areaB);
}

RSIM_SHARED_END

#endif
