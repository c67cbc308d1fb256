// SPDX-License-Identifier: MIT
// The formulas of MODEL.md sections 2-4, written once for the C++ reference (src/) and the GLSL
// shaders (shaders/). Section numbers refer to ../shared/docs/MODEL.md; choices that MODEL.md
// leaves open are recorded in docs/model-choices.md.
#ifndef RSIM_SHARED_PHYSICS_H
#define RSIM_SHARED_PHYSICS_H

#include "glsl_compat.h"

RSIM_SHARED_BEGIN

RSIM_CONST float RSIM_PI = 3.14159265358979f;
// Speed of light in metres per nanosecond.
RSIM_CONST float RSIM_C_M_PER_NS = 0.299792458f;
// A sample of the area estimator whose cosine on either side is at or below this casts no ray
// and contributes 0 (form_factor.h).
RSIM_CONST float RSIM_COS_EPS = 1e-6f;
// Ray offsets are this fraction of the scene's bounding-box diagonal (§2).
RSIM_CONST float RSIM_RAY_EPS_REL = 1e-5f;

// R4 additive recurrence (§2): alpha_k = 1/phi^(k+1), phi the positive root of x^5 = x + 1.
RSIM_CONST float RSIM_R4_ALPHA0 = 0.85667488385450287f;
RSIM_CONST float RSIM_R4_ALPHA1 = 0.73389185662712599f;
RSIM_CONST float RSIM_R4_ALPHA2 = 0.62870672103780863f;
RSIM_CONST float RSIM_R4_ALPHA3 = 0.53859725722361005f;
// R2 recurrence for the per-triangle direct-term samples: 1/g, 1/g^2, g the plastic number
// (root of x^3 = x + 1). MODEL.md fixes only the pair sequence; see docs/model-choices.md.
RSIM_CONST float RSIM_R2_ALPHA0 = 0.75487766624669276f;
RSIM_CONST float RSIM_R2_ALPHA1 = 0.56984029099805327f;
// Salts that keep the light, sensor and pair sequences of one triangle independent.
RSIM_CONST uint RSIM_SALT_PAIR = 0x0u;
RSIM_CONST uint RSIM_SALT_LIGHT = 0x6c696768u;  // "ligh"
RSIM_CONST uint RSIM_SALT_SENSOR = 0x73656e73u; // "sens"

struct Tri {
    vec3 v0;
    vec3 v1;
    vec3 v2;
#ifdef __cplusplus
    // GLSL's constructor syntax Tri(a, b, c), for compilers without C++20's parenthesised
    // aggregate initialisation (clang before 16).
    Tri() = default;
    Tri(vec3 a, vec3 b, vec3 c) : v0(a), v1(b), v2(c) {}
#endif
};

// A ray segment [tmin, tmax] from origin along unit dir, with the sample's contribution if it
// is unoccluded. weight == 0 means: contributes nothing, cast no ray.
struct RaySegment {
    vec3 origin;
    vec3 dir;
    float tmin;
    float tmax;
    float weight;
};

// Relative tolerance on the barycentric coordinates of rsimSegmentHits: a segment that passes
// within this fraction of a triangle's edge counts as hitting it, so that none slips between two
// triangles that share an edge (the rounding of the test is not watertight).
RSIM_CONST float RSIM_SEGMENT_EDGE_TOL = 1e-6f;

// Where the segment's line meets the triangle (v0, v1, v2) (Moeller and Trumbore's test, without
// a division): (t |det|, |det|) for the line's parameter t at the crossing, or |det| = 0 when
// the line misses the triangle or runs parallel to its plane.
RSIM_FN vec2 rsimSegmentCrossing(RaySegment seg, vec3 v0, vec3 v1, vec3 v2) {
    vec3 e1 = v1 - v0, e2 = v2 - v0;
    vec3 p = cross(seg.dir, e2);
    float det = dot(e1, p);
    if (det == 0.0f) return vec2(0.0f); // the segment runs parallel to the triangle's plane
    float sgn = det > 0.0f ? 1.0f : -1.0f;
    float adet = abs(det), tol = RSIM_SEGMENT_EDGE_TOL * adet;
    vec3 o = seg.origin - v0;
    float u = sgn * dot(o, p);
    if (u < -tol || u > adet + tol) return vec2(0.0f);
    vec3 q = cross(o, e1);
    float v = sgn * dot(seg.dir, q);
    if (v < -tol || u + v > adet + tol) return vec2(0.0f);
    return vec2(sgn * dot(e2, q), adet);
}

// Whether a crossing of rsimSegmentCrossing lies on the line strictly within (tmin, tmax).
RSIM_FN bool rsimCrossingWithin(vec2 c, float tmin, float tmax) {
    return c.y > 0.0f && c.x > tmin * c.y && c.x < tmax * c.y;
}

// True when the segment (origin + t dir, tmin < t < tmax) meets the triangle (v0, v1, v2): where
// a ray's verdict comes from a known triangle instead of a tracer (a tile's occluder list,
// tile_shaft.h; a pair's last blockers). The "bvh" ray path's leaves test the same crossing
// against the nearest hit so far (shaders/common/trace_bvh.glsl).
RSIM_FN bool rsimSegmentHits(RaySegment seg, vec3 v0, vec3 v1, vec3 v2) {
    return rsimCrossingWithin(rsimSegmentCrossing(seg, v0, v1, v2), seg.tmin, seg.tmax);
}

// ---- hashing and low-discrepancy points --------------------------------------------------

// 32-bit integer finaliser ("lowbias32", C. Wellons): every input bit affects every output bit.
RSIM_FN uint rsimHash32(uint x) {
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

// Hash of an ordered pair and a seed. Callers pass (min(id_i, id_j), max(id_i, id_j)) so that
// the pair's sample pattern does not depend on which side asks.
RSIM_FN uint rsimPairHash(uint a, uint b, uint seed) {
    uint h = rsimHash32(seed ^ 0x9e3779b9u);
    h = rsimHash32(h ^ a);
    h = rsimHash32(h + b);
    return h;
}

// Uniform float in [0, 1) from the top 24 bits (exact in fp32).
RSIM_FN float rsimUnitFloat(uint h) { return float(h >> 8u) * (1.0f / 16777216.0f); }

// Cranley-Patterson offset for the 4-D pair sequence.
RSIM_FN vec4 rsimOffset4(uint h) {
    return vec4(rsimUnitFloat(rsimHash32(h + 1u)), rsimUnitFloat(rsimHash32(h + 2u)),
                rsimUnitFloat(rsimHash32(h + 3u)), rsimUnitFloat(rsimHash32(h + 4u)));
}

RSIM_FN vec2 rsimOffset2(uint h) {
    return vec2(rsimUnitFloat(rsimHash32(h + 1u)), rsimUnitFloat(rsimHash32(h + 2u)));
}

// q_s = frac(0.5 + (s+1) alpha), rotated by the offset: u = frac(q_s + offset).
RSIM_FN vec4 rsimR4Point(uint s, vec4 offset) {
    RSIM_PRECISE float n = float(s + 1u);
    RSIM_PRECISE vec4 q = fract(vec4(0.5f) + n * vec4(RSIM_R4_ALPHA0, RSIM_R4_ALPHA1,
                                                       RSIM_R4_ALPHA2, RSIM_R4_ALPHA3));
    RSIM_PRECISE vec4 u = fract(q + offset);
    return u;
}

RSIM_FN vec2 rsimR2Point(uint s, vec2 offset) {
    RSIM_PRECISE float n = float(s + 1u);
    RSIM_PRECISE vec2 q = fract(vec2(0.5f) + n * vec2(RSIM_R2_ALPHA0, RSIM_R2_ALPHA1));
    RSIM_PRECISE vec2 u = fract(q + offset);
    return u;
}

// Uniform point on a triangle from [0,1)^2: b = (1 - sqrt(u), sqrt(u)(1 - v), sqrt(u) v).
RSIM_FN vec3 rsimPointOnTriangle(Tri t, vec2 uv) {
    float su = sqrt(uv.x);
    RSIM_PRECISE vec3 p = (1.0f - su) * t.v0 + (su * (1.0f - uv.y)) * t.v1 + (su * uv.y) * t.v2;
    return p;
}

// ---- mutual visibility kernel (§2) -------------------------------------------------------

// dot(a, b) rounded the same on every backend (no FMA; GPUs may fuse inside OpDot).
RSIM_FN float rsimDotExact(vec3 a, vec3 b) {
    RSIM_PRECISE float r = a.x * b.x + a.y * b.y + a.z * b.z;
    return r;
}

// F_ij = min(1, K_ij A_j): the fraction of the power leaving j that arrives at i (§2).
RSIM_FN float rsimFormFactor(float kij, float areaOther) { return min(1.0f, kij * areaOther); }

// ---- delays (§3) -------------------------------------------------------------------------

// tau_ij = max(1, floor(|c_i - c_j| / (c dt) + 0.5)), from x = (|c_i - c_j| / (c dt))^2.
// sqrt is not correctly rounded on every GPU, so the rounded root is corrected with exact
// comparisons: k = floor(sqrt(x) + 0.5) <=> (k - 0.5)^2 <= x < (k + 0.5)^2. (k +- 0.5)^2 is
// exact in fp32 for k < 2048, so both backends agree on every tau below 2048 timesteps.
RSIM_FN uint rsimDelaySteps(vec3 ci, vec3 cj, float invCdtSq) {
    RSIM_PRECISE vec3 d = ci - cj;
    RSIM_PRECISE float x = (d.x * d.x + d.y * d.y + d.z * d.z) * invCdtSq;
    float k = floor(sqrt(x) + 0.5f);
    RSIM_PRECISE float hi = (k + 0.5f) * (k + 0.5f);
    RSIM_PRECISE float lo = (k - 0.5f) * (k - 0.5f);
    if (hi <= x)
        k += 1.0f;
    else if (k >= 1.0f && lo > x)
        k -= 1.0f;
    return uint(max(k, 1.0f));
}

// A quantity deposited at fractional time t goes to bins floor(t) and floor(t) + 1 with
// weights (1 - frac) and frac (§3). Returns (floor(t), 1 - frac, frac).
RSIM_FN vec3 rsimLinearSplit(float t) {
    float f = floor(t);
    float w1 = t - f;
    return vec3(f, 1.0f - w1, w1);
}

// ---- light and sensor (§4) -----------------------------------------------------------------

struct PointLight {
    vec3 position;
    vec3 direction;     // unit
    float cosHalfAngle; // cos(theta_L); -2 for isotropic (below any rounded cosine)
    float falloffExp;   // m of the optional cos^m falloff inside the cone; 0 = flat
    float intensity;    // P / (4 pi), W/sr; with a profile, P / (integral of the profile over the sphere)
    // An angular profile (issue 60), or profile = 0 for none: its table's address (in C++ the
    // host's pointer), its kind and size (RSIM_PROFILE_*, nx, ny, unused), the angles its first
    // and last columns and rows stand for, radians (x0, x1, y0, y1), and for a grid the light's
    // horizontal axis (unit, across `direction`).
    uint64_t profile;
    uvec4 profileShape;
    vec4 profileRange;
    vec3 profileRight;
};

// Profile kinds: relative intensity against the angle to the light's axis (nx samples), or a
// grid of ny rows (vertical angle, up positive) by nx columns (horizontal angle, right positive),
// angles measured as atan2 of the direction's component along the axis across.
RSIM_CONST uint RSIM_PROFILE_RADIAL = 1u;
RSIM_CONST uint RSIM_PROFILE_GRID = 2u;

#ifdef __cplusplus
inline float rsimProfileValue(uint64_t table, uint i) { return reinterpret_cast<const float*>(table)[i]; }
#else
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer RsimProfileValues { float v[]; };
float rsimProfileValue(uint64_t table, uint i) { return RsimProfileValues(table).v[i]; }
#endif

// The profile's value at angles (a, b) in radians (b unused for a radial profile): linear
// between its samples, 0 outside their range.
RSIM_FN float rsimProfileAt(PointLight l, float a, float b) {
    uint nx = l.profileShape.y, ny = l.profileShape.z;
    vec4 r = l.profileRange;
    float fx = (a - r.x) / (r.y - r.x) * float(nx - 1u);
    if (!(fx >= 0.0f && fx <= float(nx - 1u))) return 0.0f;
    uint ix = min(uint(fx), nx - 2u);
    float tx = fx - float(ix);
    if (l.profileShape.x == RSIM_PROFILE_RADIAL)
        return (1.0f - tx) * rsimProfileValue(l.profile, ix) + tx * rsimProfileValue(l.profile, ix + 1u);
    float fy = (b - r.z) / (r.w - r.z) * float(ny - 1u);
    if (!(fy >= 0.0f && fy <= float(ny - 1u))) return 0.0f;
    uint iy = min(uint(fy), ny - 2u);
    float ty = fy - float(iy);
    float v0 = (1.0f - tx) * rsimProfileValue(l.profile, iy * nx + ix) + tx * rsimProfileValue(l.profile, iy * nx + ix + 1u);
    float v1 = (1.0f - tx) * rsimProfileValue(l.profile, (iy + 1u) * nx + ix) +
               tx * rsimProfileValue(l.profile, (iy + 1u) * nx + ix + 1u);
    return (1.0f - ty) * v0 + ty * v1;
}

// The profile's relative intensity towards unit direction w.
RSIM_FN float rsimProfileFactor(PointLight l, vec3 w) {
    float c = dot(w, l.direction);
    if (l.profileShape.x == RSIM_PROFILE_RADIAL) return rsimProfileAt(l, acos(clamp(c, -1.0f, 1.0f)), 0.0f);
    if (!(c > 0.0f)) return 0.0f;
    vec3 up = cross(l.profileRight, l.direction);
    return rsimProfileAt(l, atan(dot(w, l.profileRight), c), atan(dot(w, up), c));
}

// I(w) for a unit direction w leaving the light.
RSIM_FN float rsimLightIntensity(PointLight l, vec3 w) {
    float c = dot(w, l.direction);
    if (c < l.cosHalfAngle) return 0.0f;
    if (l.profile != 0ul) return l.intensity * rsimProfileFactor(l, w);
    if (l.falloffExp > 0.0f) return l.intensity * pow(max(c, 0.0f), l.falloffExp);
    return l.intensity;
}

struct PinholeSensor {
    vec3 position;
    vec3 forward; // unit, towards look_at
    vec3 right;   // unit
    vec3 up;      // unit, orthogonal to forward and right
    float tanHalfFovH; // with a lens model: the largest |x| and |y| of the image's rays (z = 1),
    float tanHalfFovV; // a bound the frustum test starts with
    // The lens (project addition, issue 60: OpenCV's model, pixel centres at integers): fx, fy,
    // cx, cy in pixels; fx = 0 is the field-of-view model above, without a lens.
    vec4 intrinsics;
    vec4 distortion; // k1, k2, p1, p2
    vec4 distortionK3Image; // k3, image width, image height, unused
};

// OpenCV's distortion of normalised image coordinates (x, y) (z = 1, y down).
RSIM_FN vec2 rsimDistort(PinholeSensor s, vec2 p) {
    float r2 = dot(p, p);
    float radial = 1.0f + r2 * (s.distortion.x + r2 * (s.distortion.y + r2 * s.distortionK3Image.x));
    float p1 = s.distortion.z, p2 = s.distortion.w;
    return p * radial + vec2(2.0f * p1 * p.x * p.y + p2 * (r2 + 2.0f * p.x * p.x),
                             p1 * (r2 + 2.0f * p.y * p.y) + 2.0f * p2 * p.x * p.y);
}

// Iterations of rsimUndistort: the fixed point converges geometrically for the distortions of
// real lenses; 20 leave well under a thousandth of a pixel (tests/test_lens.cpp).
RSIM_CONST int RSIM_UNDISTORT_ITERATIONS = 20;

// The normalised coordinates whose distortion is `d` (OpenCV's undistortPoints iteration).
RSIM_FN vec2 rsimUndistort(PinholeSensor s, vec2 d) {
    vec2 p = d;
    for (int k = 0; k < RSIM_UNDISTORT_ITERATIONS; ++k) {
        float r2 = dot(p, p);
        float radial = 1.0f + r2 * (s.distortion.x + r2 * (s.distortion.y + r2 * s.distortionK3Image.x));
        float p1 = s.distortion.z, p2 = s.distortion.w;
        vec2 tangential = vec2(2.0f * p1 * p.x * p.y + p2 * (r2 + 2.0f * p.x * p.x),
                               p1 * (r2 + 2.0f * p.y * p.y) + 2.0f * p2 * p.x * p.y);
        p = (d - tangential) / radial;
    }
    return p;
}

// Unit direction of the ray through image point `uv` of a lens model (pixels, OpenCV's
// convention: pixel centres at integers, y down).
RSIM_FN vec3 rsimLensDirection(PinholeSensor s, vec2 uv) {
    vec2 p = rsimUndistort(s, (uv - vec2(s.intrinsics.z, s.intrinsics.w)) / vec2(s.intrinsics.x, s.intrinsics.y));
    return normalize(s.forward + p.x * s.right - p.y * s.up);
}

// 1 inside the sensor's frustum, 0 outside (§4). With a lens model, inside the image: the point
// projects (through the distortion) into [-0.5, W - 0.5] x [-0.5, H - 0.5].
RSIM_FN float rsimFrustumWeight(PinholeSensor s, vec3 p) {
    vec3 d = p - s.position;
    float z = dot(d, s.forward);
    if (z <= 0.0f) return 0.0f;
    if (abs(dot(d, s.right)) > z * s.tanHalfFovH) return 0.0f;
    if (abs(dot(d, s.up)) > z * s.tanHalfFovV) return 0.0f;
    if (s.intrinsics.x > 0.0f) {
        vec2 uv = rsimDistort(s, vec2(dot(d, s.right), -dot(d, s.up)) / z) * vec2(s.intrinsics.x, s.intrinsics.y) +
                  vec2(s.intrinsics.z, s.intrinsics.w);
        if (uv.x < -0.5f || uv.y < -0.5f || uv.x > s.distortionK3Image.y - 0.5f || uv.y > s.distortionK3Image.z - 0.5f)
            return 0.0f;
    }
    return 1.0f;
}

// Unit direction of the primary ray through the centre of pixel (px, py) of a W x H image;
// row 0 is the top of the image.
RSIM_FN vec3 rsimPixelDirection(PinholeSensor s, uint px, uint py, uint width, uint height) {
    if (s.intrinsics.x > 0.0f) return rsimLensDirection(s, vec2(float(px), float(py)));
    float sx = ((float(px) + 0.5f) / float(width)) * 2.0f - 1.0f;
    float sy = 1.0f - ((float(py) + 0.5f) / float(height)) * 2.0f;
    vec3 d = s.forward + (sx * s.tanHalfFovH) * s.right + (sy * s.tanHalfFovV) * s.up;
    return normalize(d);
}

// Segment from a surface point x (normal n) to a point source at p, with the geometric part of
// the direct term: max(0, cos) / |p - x|^2. The caller multiplies by I(w) or the frustum weight.
RSIM_FN RaySegment rsimPointSourceSample(vec3 x, vec3 n, vec3 p, float eps) {
    vec3 d = p - x;
    float r2 = dot(d, d);
    float r = sqrt(r2);
    RaySegment seg;
    seg.origin = x;
    seg.dir = r > 0.0f ? d / r : n;
    seg.tmin = eps;
    seg.tmax = r - eps;
    float c = dot(n, seg.dir);
    seg.weight = (c > 0.0f && r2 > 0.0f) ? c / r2 : 0.0f;
    seg.tmax = max(seg.tmax, seg.tmin); // closer than 2 eps: nothing can occlude (as above)
    return seg;
}

// One direct-light sample at x (normal n) on a triangle: I(w) max(0, cos) / r^2, unoccluded.
RSIM_FN RaySegment rsimLightSample(PointLight l, vec3 x, vec3 n, float eps) {
    RaySegment seg = rsimPointSourceSample(x, n, l.position, eps);
    if (seg.weight > 0.0f) seg.weight *= rsimLightIntensity(l, -seg.dir);
    return seg;
}

// One sensor-importance sample: the same with the sensor in place of the light and a weight of
// 1 inside the frustum, 0 outside (§4).
RSIM_FN RaySegment rsimSensorSample(PinholeSensor s, vec3 x, vec3 n, float eps) {
    RaySegment seg = rsimPointSourceSample(x, n, s.position, eps);
    if (seg.weight > 0.0f) seg.weight *= rsimFrustumWeight(s, x);
    return seg;
}

// Sample point s of S_d on triangle `id` for the light (salt RSIM_SALT_LIGHT) or sensor term.
RSIM_FN vec3 rsimDirectSamplePoint(Tri t, uint id, uint s, uint salt, uint seed) {
    vec2 u = rsimR2Point(s, rsimOffset2(rsimPairHash(id, salt, seed)));
    return rsimPointOnTriangle(t, u);
}

// Sample s of triangle `id`'s direct terms (MODEL §4): towards the light (towardsSensor false,
// for Irr_i) or the sensor (for w_i). Callers add the unoccluded weights and divide by S_d.
RSIM_FN RaySegment rsimDirectSample(Tri t, vec3 n, uint id, uint s, bool towardsSensor, PointLight light,
                                    PinholeSensor sensor, uint seed, float eps) {
    if (!towardsSensor) return rsimLightSample(light, rsimDirectSamplePoint(t, id, s, RSIM_SALT_LIGHT, seed), n, eps);
    return rsimSensorSample(sensor, rsimDirectSamplePoint(t, id, s, RSIM_SALT_SENSOR, seed), n, eps);
}

// ---- transport (§5) ----------------------------------------------------------------------

// Value at bin t of an amount `a` deposited at fractional time t0 (linear split, §3) and
// convolved with the pulse: a ((1 - f) p[t - n] + f p[t - n - 1]), n = floor(t0). The caller
// passes p0 = p[t - n] and p1 = p[t - n - 1] (0 outside the pulse).
RSIM_FN float rsimDeposit(float a, float t0, float p0, float p1) {
    vec3 split = rsimLinearSplit(t0);
    RSIM_PRECISE float v = a * (split.y * p0 + split.z * p1);
    return v;
}

// A signal delayed by a fractional time whose linear split is `split` (rsimLinearSplit): its
// value at t from the undelayed values x0 = x(t - floor) and x1 = x(t - floor - 1). The pixel
// signal of MODEL §6 delays B_i - E_i by the hit distance this way.
RSIM_FN float rsimDelayedValue(vec3 split, float x0, float x1) {
    RSIM_PRECISE float v = split.y * x0 + split.z * x1;
    return v;
}

// ---- distances (§6) ----------------------------------------------------------------------

// Half-width in bins of the centroid window of the pulsed estimator: the pulse's
// autocorrelation half-width plus the linear split.
RSIM_FN int rsimCentroidHalfWidth(int pulseLength) { return pulseLength + 1; }

// Sensor distance d from the total path length L (light -> surface -> sensor), the light at
// offset a = p_S - p_L and u the unit direction from the sensor to the surface.
RSIM_FN float rsimSensorDistance(float L, vec3 a, vec3 u) {
    float aa = dot(a, a);
    if (aa == 0.0f) return 0.5f * L;
    return (L * L - aa) / (2.0f * (L + dot(a, u)));
}

// Wraps x into [-U/2, U/2).
RSIM_FN float rsimWrapSigned(float x, float U) { return x - U * floor(x / U + 0.5f); }

RSIM_CONST int RSIM_MAX_FREQUENCIES = 8;

// Path length from phases measured modulo several ambiguity ranges (AMCW with several
// modulation frequencies, §6). L[k] in [0, U[k]) are the per-frequency path lengths and U[k]
// their ambiguity ranges, in one unit. Tries every wrap of the coarsest range within
// [0, maxPath], keeps the candidate that the other frequencies agree with best (first on ties),
// then averages the unwrapped estimates weighted by 1/U^2 (finer ranges are more precise).
// A later wrap must agree better by more than rounding noise to win, so commensurate
// frequencies resolve to the first wrap instead of a rounding-level favourite.
RSIM_FN float rsimUnwrapPath(float L[RSIM_MAX_FREQUENCIES], float U[RSIM_MAX_FREQUENCIES],
                             int count, float maxPath) {
    int ref = 0, fine = 0;
    for (int k = 1; k < count; ++k) {
        if (U[k] > U[ref]) ref = k;
        if (U[k] < U[fine]) fine = k;
    }
    float noise = 1e-3f * U[fine];
    noise *= noise;
    float best = L[ref];
    float bestErr = 3.4e38f;
    for (int n = 0; n < 65536; ++n) {
        float cand = L[ref] + float(n) * U[ref];
        if (n > 0 && cand > maxPath) break;
        float err = 0.0f;
        for (int k = 0; k < count; ++k) {
            float e = rsimWrapSigned(cand - L[k], U[k]);
            err += e * e;
        }
        if (err + noise < bestErr) {
            bestErr = err;
            best = cand;
        }
    }
    float sumW = 0.0f, sum = 0.0f;
    for (int k = 0; k < count; ++k) {
        float w = 1.0f / (U[k] * U[k]);
        sum += w * (best + rsimWrapSigned(L[k] - best, U[k]));
        sumW += w;
    }
    return sum / sumW;
}

RSIM_SHARED_END

#endif
