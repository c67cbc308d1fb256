// SPDX-License-Identifier: MIT
// Clear pairs (MODEL.md §2, last paragraph): a conservative test that nothing other than i and j
// meets the interior of the convex hull of their six vertices (the pair's shaft), and the exact
// unoccluded form factor F(x -> j) by Lambert's polygon formula, which such pairs use instead
// of rays. Written once for the C++ reference and the visibility shaders.
//
// The shaft is kept as the hull's face planes that can be found from the two triangles: each
// triangle's own plane, and the planes through an edge of one triangle and a vertex of the
// other, wherever all six vertices lie on one side. A triangle k is outside (it cannot occlude)
// when a separating axis proves it: one face plane with k on or outside it, k's own plane with
// the six vertices on one side of it, or the hull's bounding box. Edge-edge axes are not tried,
// so the test may answer "maybe" for a triangle that misses the hull; it never answers
// "outside" for one that meets its interior by more than the tolerance below.
//
// Every decision is a comparison of exact products and sums (no division, no square root), so
// that the C++ build and the shaders classify every pair the same way.
#ifndef RSIM_SHARED_SHAFT_H
#define RSIM_SHARED_SHAFT_H

#include "form_factor.h"

RSIM_SHARED_BEGIN

// The hull of 6 points in general position has at most 8 faces. When degenerate input yields
// more candidates, the extra planes are dropped, which only makes the test more conservative.
RSIM_CONST uint RSIM_SHAFT_MAX_PLANES = 8u;
// Touching tolerance, relative to the scene's bounding-box diagonal: a triangle that penetrates
// the hull by less than this (times the diagonal) counts as touching its boundary. It is 100
// times smaller than the rays' offset RSIM_RAY_EPS_REL.
RSIM_CONST float RSIM_SHAFT_TOL_REL = 1e-7f;

struct Shaft {
    vec3 normal[RSIM_SHAFT_MAX_PLANES]; // not unit; the hull is on the side dot(normal, p - origin) < 0
    vec3 origin[RSIM_SHAFT_MAX_PLANES];
    float tol[RSIM_SHAFT_MAX_PLANES]; // tolerance times |normal|_1 (an upper bound of |normal|_2)
    uint count;
    vec3 lo; // bounding box of the six vertices
    vec3 hi;
    vec3 p[6]; // the six vertices: i's, then j's
};

RSIM_FN float rsimL1(vec3 n) {
    RSIM_PRECISE float r = abs(n.x) + abs(n.y) + abs(n.z);
    return r;
}

RSIM_FN vec3 rsimCrossExact(vec3 a, vec3 b) {
    RSIM_PRECISE vec3 c = vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
    return c;
}

// Bit k set: vertex k of the shaft lies on the plane (n, o) within tol; the sign of the others.
struct PlaneSides {
    uint on;
    bool anyFront;
    bool anyBehind;
};

RSIM_FN PlaneSides rsimPlaneSides(vec3 p[6], vec3 n, vec3 o, float tol) {
    PlaneSides r;
    r.on = 0u;
    r.anyFront = false;
    r.anyBehind = false;
    for (uint k = 0u; k < 6u; ++k) {
        float d = rsimDotExact(n, p[k] - o);
        if (d > tol)
            r.anyFront = true;
        else if (d < -tol)
            r.anyBehind = true;
        else
            r.on |= 1u << k;
    }
    return r;
}

// The shaft of the pair (a, b), with unit normals na, nb; eps is the touching tolerance (m).
RSIM_FN Shaft rsimShaftBuild(Tri a, vec3 na, Tri b, vec3 nb, float eps) {
    Shaft s;
    s.p[0] = a.v0;
    s.p[1] = a.v1;
    s.p[2] = a.v2;
    s.p[3] = b.v0;
    s.p[4] = b.v1;
    s.p[5] = b.v2;
    s.lo = min(min(min(a.v0, a.v1), min(a.v2, b.v0)), min(b.v1, b.v2));
    s.hi = max(max(max(a.v0, a.v1), max(a.v2, b.v0)), max(b.v1, b.v2));
    s.count = 0u;
    uint seen[RSIM_SHAFT_MAX_PLANES];
    // 20 candidates: a's plane, b's plane, then (edge e of a, vertex v of b) and the reverse.
    for (uint c = 0u; c < 20u; ++c) {
        vec3 n, o;
        if (c == 0u) {
            n = na;
            o = a.v0;
        } else if (c == 1u) {
            n = nb;
            o = b.v0;
        } else {
            uint k = c - 2u;            // 0..17
            uint fromB = k / 9u;        // 0: edge of a, vertex of b
            uint e = (k % 9u) / 3u, v = k % 3u;
            vec3 e0 = s.p[fromB * 3u + e], e1 = s.p[fromB * 3u + (e + 1u) % 3u];
            vec3 w = s.p[(1u - fromB) * 3u + v];
            n = rsimCrossExact(e1 - e0, w - e0);
            o = e0;
        }
        RSIM_PRECISE float tol = eps * rsimL1(n);
        if (!(tol > 0.0f)) continue; // degenerate: the vertex lies on the edge's line
        PlaneSides sides = rsimPlaneSides(s.p, n, o, tol);
        if (sides.anyFront && sides.anyBehind) continue; // not a face of the hull
        uint on = sides.on;
        // Fewer than three vertices on it: a supporting plane but not a face; it still bounds
        // the hull, so it is as good a separating plane. Dedupe faces by their vertex sets.
        bool dup = false;
        for (uint q = 0u; q < s.count; ++q)
            if (seen[q] == on) dup = true;
        if (dup || s.count == RSIM_SHAFT_MAX_PLANES) continue;
        if (sides.anyFront) n = -n; // the six vertices behind it
        s.normal[s.count] = n;
        s.origin[s.count] = o;
        s.tol[s.count] = tol;
        seen[s.count] = on;
        s.count += 1u;
    }
    return s;
}

// True when the triangle t (unit normal nt) cannot meet the shaft's interior.
RSIM_FN bool rsimShaftExcludes(Shaft s, Tri t, vec3 nt, float eps) {
    vec3 tlo = min(min(t.v0, t.v1), t.v2), thi = max(max(t.v0, t.v1), t.v2);
    if (thi.x <= s.lo.x + eps || thi.y <= s.lo.y + eps || thi.z <= s.lo.z + eps || tlo.x >= s.hi.x - eps ||
        tlo.y >= s.hi.y - eps || tlo.z >= s.hi.z - eps)
        return true;
    for (uint q = 0u; q < s.count; ++q) {
        float tol = s.tol[q];
        if (rsimDotExact(s.normal[q], t.v0 - s.origin[q]) >= -tol &&
            rsimDotExact(s.normal[q], t.v1 - s.origin[q]) >= -tol &&
            rsimDotExact(s.normal[q], t.v2 - s.origin[q]) >= -tol)
            return true;
    }
    // t's own plane: all six vertices on one side of it.
    RSIM_PRECISE float tolT = eps * rsimL1(nt);
    PlaneSides sides = rsimPlaneSides(s.p, nt, t.v0, tolT);
    return !(sides.anyFront && sides.anyBehind);
}

// True when the box [lo, hi] lies outside the shaft (on or beyond one of its planes).
RSIM_FN bool rsimShaftExcludesBox(Shaft s, vec3 lo, vec3 hi, float eps) {
    if (hi.x <= s.lo.x + eps || hi.y <= s.lo.y + eps || hi.z <= s.lo.z + eps || lo.x >= s.hi.x - eps ||
        lo.y >= s.hi.y - eps || lo.z >= s.hi.z - eps)
        return true;
    for (uint q = 0u; q < s.count; ++q) {
        vec3 n = s.normal[q];
        // The corner of the box deepest behind the plane.
        vec3 c = vec3(n.x >= 0.0f ? lo.x : hi.x, n.y >= 0.0f ? lo.y : hi.y, n.z >= 0.0f ? lo.z : hi.z);
        if (rsimDotExact(n, c - s.origin[q]) >= -s.tol[q]) return true;
    }
    return false;
}

// ---- a BVH of the scene's triangles for the shaft queries ------------------------------------
// Built and walked on the host (src/accel/shaft_bvh.cpp); the shaders walk its collapse to four
// children a node (RayBvhNode, src/accel/ray_bvh.h). Node k's left child is k + 1 and its right
// child `index`; a leaf holds `count` > 0 entries of the primitive list from `index` on.
struct ShaftBvhNode {
    vec4 loIndex; // lo, index (uint bits)
    vec4 hiCount; // hi, count (uint bits; 0 for an inner node)
};
// Deepest stack a traversal needs (the build limits the depth to this).
RSIM_CONST uint RSIM_SHAFT_BVH_MAX_DEPTH = 32u;

// ---- the unoccluded form factor by Lambert's formula ------------------------------------------

// One edge's term, theta_e * dot(n, u_e), for the edge from a to b as seen from the origin (u_e
// the unit normal of the plane through the origin and the edge, oriented for a polygon wound
// counter-clockwise about the normal that faces the origin).
RSIM_FN float rsimLambertEdge(vec3 a, vec3 b, vec3 n) {
    vec3 c = cross(b, a);
    float s = length(c);
    if (!(s > 0.0f)) return 0.0f;
    return atan(s, dot(a, b)) * dot(n, c) / s;
}

// F(x -> o): the fraction of the cosine-weighted hemisphere above x (unit normal n, x on the
// emitting triangle, whose plane is the one through p with normal n) that the front side of o
// fills, all of it visible. o is clipped to the front of the emitting plane first.
RSIM_FN float rsimPolygonFormFactor(vec3 x, vec3 n, vec3 p, Tri o, vec3 no) {
    if (!(rsimDotExact(no, x - o.v0) > 0.0f)) return 0.0f; // x on or behind o: o's back faces it
    FrontPolygon poly = rsimClipToFront(o, n, p);
    if (poly.count == 0u) return 0.0f;
    vec3 a0 = poly.v0 - x, a1 = poly.v1 - x, a2 = poly.v2 - x, a3 = poly.v3 - x;
    float sum = rsimLambertEdge(a0, a1, n) + rsimLambertEdge(a1, a2, n);
    if (poly.count == 4u)
        sum += rsimLambertEdge(a2, a3, n) + rsimLambertEdge(a3, a0, n);
    else
        sum += rsimLambertEdge(a2, a0, n);
    return max(0.0f, sum / (2.0f * RSIM_PI));
}

// Point q < 7 of Dunavant's degree-5 rule on a triangle: barycentric coordinates in xyz,
// weight in w (the weights sum to 1).
RSIM_FN vec4 rsimDunavant7(uint q) {
    const float a1 = 0.059715871789770f, b1 = 0.470142064105115f, w1 = 0.132394152788506f;
    const float a2 = 0.797426985353087f, b2 = 0.101286507323456f, w2 = 0.125939180544827f;
    if (q == 0u) return vec4(1.0f / 3.0f, 1.0f / 3.0f, 1.0f / 3.0f, 0.225f);
    float a = q < 4u ? a1 : a2, b = q < 4u ? b1 : b2, w = q < 4u ? w1 : w2;
    uint r = (q - 1u) % 3u;
    return r == 0u ? vec4(a, b, b, w) : (r == 1u ? vec4(b, a, b, w) : vec4(b, b, a, w));
}

// Sub-triangle k of the 4^level equal triangles that `level` midpoint subdivisions of t make
// (base-4 digits of k pick a corner child 0-2 or the middle child 3 at each level).
RSIM_FN Tri rsimSubTriangle(Tri t, uint k, uint level) {
    for (uint l = 0u; l < level; ++l) {
        uint d = (k >> (2u * (level - 1u - l))) & 3u;
        vec3 mab = 0.5f * (t.v0 + t.v1), mbc = 0.5f * (t.v1 + t.v2), mca = 0.5f * (t.v2 + t.v0);
        if (d == 0u)
            t = Tri(t.v0, mab, mca);
        else if (d == 1u)
            t = Tri(mab, t.v1, mbc);
        else if (d == 2u)
            t = Tri(mca, mbc, t.v2);
        else
            t = Tri(mbc, mca, mab);
    }
    return t;
}

// The mean of F(x -> o) over the emitting triangle e (an estimate of F_eo, G_eo / A_e) by
// Dunavant's rule on each of the 4^level sub-triangles of e: the same points for every pair of
// e's row at one level, so that in a closed scene the row's own estimates sum to 1.
RSIM_FN float rsimClearSideMean(Tri e, vec3 ne, Tri o, vec3 no, uint level) {
    uint count = 1u << (2u * level);
    float sum = 0.0f;
    for (uint k = 0u; k < count; ++k) {
        Tri t = rsimSubTriangle(e, k, level);
        float sub = 0.0f;
        for (uint q = 0u; q < 7u; ++q) {
            vec4 b = rsimDunavant7(q);
            vec3 x = b.x * t.v0 + b.y * t.v1 + b.z * t.v2;
            sub += b.w * rsimPolygonFormFactor(x, ne, e.v0, o, no);
        }
        sum += sub;
    }
    return sum / float(count);
}

// Subdivision levels of the clear pairs' quadrature (rsimClearSideMean): 7 points per side for
// most pairs, 4^2 x 7 = 112 for near pairs (rsimPairIsNear: neighbours sharing an edge or a
// vertex among them), whose F(x -> j) changes fastest. Chosen by measurement: a closed box of
// 108 triangles up to 1.7 m has every row sum within 2.5e-4 of 1 in fp32 (near level 1: 1e-3,
// 0: 4e-3; the far level 1 changes nothing); docs/model-choices.md.
RSIM_CONST uint RSIM_CLEAR_LEVEL_FAR = 0u;
RSIM_CONST uint RSIM_CLEAR_LEVEL_NEAR = 2u;

// K of a clear pair (a, b): each side's mean F by the quadrature, blended as the rays' estimates
// are (rsimKPairValue).
RSIM_FN float rsimClearPairValue(Tri a, vec3 na, float areaA, Tri b, vec3 nb, float areaB, uint estimator) {
    uint level = rsimPairIsNear(a, b) ? RSIM_CLEAR_LEVEL_NEAR : RSIM_CLEAR_LEVEL_FAR;
    float fa = rsimClearSideMean(a, na, b, nb, level);
    float fb = rsimClearSideMean(b, nb, a, na, level);
    return rsimKPairValue(fa, fb, 1u, areaA, areaB, estimator);
}

RSIM_SHARED_END

#endif
