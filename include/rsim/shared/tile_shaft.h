// SPDX-License-Identifier: MIT
// Occluder lists of tiles of pairs (issue 18): a tile is a block of RSIM_TILE_EDGE rows and a
// block of RSIM_TILE_EDGE columns of the triangles in Morton order, and its shaft a convex
// polytope that holds every segment between a triangle of one block and a triangle of the
// other. A triangle that cannot meet the shaft's interior cannot occlude any ray of the tile,
// so the tile's rays need only be tested against the triangles a query of the shaft returns
// (the tile's list), not traced through the whole scene. Written once for the C++ tests and
// the shaders (shaders/tile_shafts.comp builds the lists, visibility_listed.comp tests rays).
//
// Any plane with every vertex of both blocks on one side of it bounds their convex hull, and so
// the shaft is the intersection of such half-spaces, h_k = max over the vertices of
// dot(n_k, p - centre), for normals chosen to fit: the blocks' mean normals both ways (a planar
// block's own plane is then a face, so that its coplanar neighbours are not listed), and eight
// side planes around the axis between the blocks' centroids, each tilted to follow both blocks'
// extents in its direction. The bounding box of the vertices is the last bound. The choice of
// normals only decides how tight the shaft is; that it holds the hull does not depend on it.
//
// A triangle is outside when all three of its vertices lie on or beyond one plane (within the
// touching tolerance eps of shaft.h) or its box misses the shaft's box. Planes are measured from
// the shaft's centre, so that the dot products round at the scale of half the tile's extent:
// far below eps (1e-7 of the scene's diagonal) for blocks close together, comparable to it only
// for blocks at opposite ends of the scene, where a triangle penetrating the shaft by about
// that much may be left out (a touching contact, as eps already allows).
#ifndef RSIM_SHARED_TILE_SHAFT_H
#define RSIM_SHARED_TILE_SHAFT_H

#include "gpu_layout.h"
#include "shaft.h"

RSIM_SHARED_BEGIN

// RSIM_TILE_EDGE (the rows and columns of a tile) and the tiles' layout: gpu_layout.h.
RSIM_CONST uint RSIM_TILE_SIDES = 8u;       // side planes around the axis
RSIM_CONST uint RSIM_TILE_PLANES = 12u;     // the blocks' two normals both ways, then the sides
RSIM_CONST float RSIM_TILE_MAX_TILT = 4.0f; // steepest side plane (slope along the axis)

struct TileShaft {
    vec3 centre;
    vec3 normal[RSIM_TILE_PLANES]; // not unit; the shaft is on the side dot(normal, p - centre) <= h
    float h[RSIM_TILE_PLANES];
    float tol[RSIM_TILE_PLANES]; // eps times |normal|_1
    vec3 lo;                     // bounding box of the vertices
    vec3 hi;
};

// What the first pass over the two blocks' vertices gathers (rsimTileBlocksAdd), from which the
// planes' normals follow.
struct TileBlocks {
    vec3 sumI; // sum of block I's vertices
    vec3 sumJ;
    float countI;
    float countJ;
    vec3 normalI; // sum of block I's unit normals
    vec3 normalJ;
    vec3 lo;
    vec3 hi;
};

RSIM_FN TileBlocks rsimTileBlocksEmpty() {
    TileBlocks b;
    b.sumI = vec3(0.0f);
    b.sumJ = vec3(0.0f);
    b.countI = 0.0f;
    b.countJ = 0.0f;
    b.normalI = vec3(0.0f);
    b.normalJ = vec3(0.0f);
    b.lo = vec3(3.0e38f);
    b.hi = vec3(-3.0e38f);
    return b;
}

// Adds triangle t (unit normal n) to block I (inI) or J.
RSIM_FN TileBlocks rsimTileBlocksAdd(TileBlocks b, Tri t, vec3 n, bool inI) {
    vec3 sum = t.v0 + t.v1 + t.v2;
    if (inI) {
        b.sumI += sum;
        b.countI += 3.0f;
        b.normalI += n;
    } else {
        b.sumJ += sum;
        b.countJ += 3.0f;
        b.normalJ += n;
    }
    b.lo = min(b.lo, min(t.v0, min(t.v1, t.v2)));
    b.hi = max(b.hi, max(t.v0, max(t.v1, t.v2)));
    return b;
}

// The unit axis from block I's centroid to block J's (any unit vector when they coincide), and
// two unit vectors u, v across it: axis, u, v as the columns.
RSIM_FN mat3 rsimTileFrame(TileBlocks b) {
    vec3 cI = b.sumI / max(b.countI, 1.0f), cJ = b.sumJ / max(b.countJ, 1.0f);
    vec3 a = cJ - cI;
    float len = length(a);
    a = len > 0.0f ? a / len : vec3(0.0f, 0.0f, 1.0f);
    vec3 helper = abs(a.x) < 0.6f ? vec3(1.0f, 0.0f, 0.0f) : vec3(0.0f, 1.0f, 0.0f);
    vec3 u = normalize(cross(a, helper));
    vec3 v = cross(a, u);
    return mat3(a, u, v);
}

// Side direction k (k < RSIM_TILE_SIDES) across the axis: every 45 degrees from u.
RSIM_FN vec3 rsimTileSide(mat3 frame, uint k) {
    const float r = 0.70710678f;
    uint m = k & 3u;
    vec2 cs = m == 0u ? vec2(1.0f, 0.0f) : (m == 1u ? vec2(r, r) : (m == 2u ? vec2(0.0f, 1.0f) : vec2(-r, r)));
    if (k >= 4u) cs = -cs;
    return cs.x * frame[1] + cs.y * frame[2];
}

// Second pass, per vertex p of block I (inI) or J: each block's extent in each side direction
// (the max of dot(side k, p - centre)), from which each side plane's tilt follows.
struct TileExtents {
    float sideI[RSIM_TILE_SIDES];
    float sideJ[RSIM_TILE_SIDES];
};

RSIM_FN TileExtents rsimTileExtentsEmpty() {
    TileExtents e;
    for (uint k = 0u; k < RSIM_TILE_SIDES; ++k) {
        e.sideI[k] = -3.0e38f;
        e.sideJ[k] = -3.0e38f;
    }
    return e;
}

RSIM_FN TileExtents rsimTileExtentsAdd(TileExtents e, mat3 frame, vec3 centre, vec3 p, bool inI) {
    vec3 d = p - centre;
    for (uint k = 0u; k < RSIM_TILE_SIDES; ++k) {
        float s = dot(rsimTileSide(frame, k), d);
        if (inI)
            e.sideI[k] = max(e.sideI[k], s);
        else
            e.sideJ[k] = max(e.sideJ[k], s);
    }
    return e;
}

// The shaft's normals from the first two passes; the offsets h start at the lowest value and
// rise in the third pass (rsimTileShaftAdd) over every vertex of both blocks.
RSIM_FN TileShaft rsimTileShaftBegin(TileBlocks b, mat3 frame, TileExtents e, float eps) {
    TileShaft s;
    s.centre = 0.5f * (b.lo + b.hi);
    s.lo = b.lo;
    s.hi = b.hi;
    vec3 cI = b.sumI / max(b.countI, 1.0f), cJ = b.sumJ / max(b.countJ, 1.0f);
    float len = dot(frame[0], cJ - cI);
    vec3 nI = length(b.normalI) > 0.0f ? normalize(b.normalI) : frame[1];
    vec3 nJ = length(b.normalJ) > 0.0f ? normalize(b.normalJ) : frame[2];
    s.normal[0] = nI;
    s.normal[1] = -nI;
    s.normal[2] = nJ;
    s.normal[3] = -nJ;
    for (uint k = 0u; k < RSIM_TILE_SIDES; ++k) {
        // The line through I's and J's extents in this direction, over the centroids' distance.
        float slope = len > 0.0f ? (e.sideJ[k] - e.sideI[k]) / len : 0.0f;
        slope = clamp(slope, -RSIM_TILE_MAX_TILT, RSIM_TILE_MAX_TILT);
        s.normal[4u + k] = rsimTileSide(frame, k) - slope * frame[0];
    }
    for (uint q = 0u; q < RSIM_TILE_PLANES; ++q) {
        s.h[q] = -3.0e38f;
        RSIM_PRECISE float tol = eps * rsimL1(s.normal[q]);
        s.tol[q] = tol;
    }
    return s;
}

RSIM_FN TileShaft rsimTileShaftAdd(TileShaft s, vec3 p) {
    for (uint q = 0u; q < RSIM_TILE_PLANES; ++q) s.h[q] = max(s.h[q], rsimDotExact(s.normal[q], p - s.centre));
    return s;
}

// True when the triangle t cannot meet the shaft's interior.
RSIM_FN bool rsimTileShaftExcludes(TileShaft s, Tri t, float eps) {
    vec3 tlo = min(min(t.v0, t.v1), t.v2), thi = max(max(t.v0, t.v1), t.v2);
    if (thi.x <= s.lo.x + eps || thi.y <= s.lo.y + eps || thi.z <= s.lo.z + eps || tlo.x >= s.hi.x - eps ||
        tlo.y >= s.hi.y - eps || tlo.z >= s.hi.z - eps)
        return true;
    for (uint q = 0u; q < RSIM_TILE_PLANES; ++q) {
        float limit = s.h[q] - s.tol[q];
        if (rsimDotExact(s.normal[q], t.v0 - s.centre) >= limit && rsimDotExact(s.normal[q], t.v1 - s.centre) >= limit &&
            rsimDotExact(s.normal[q], t.v2 - s.centre) >= limit)
            return true;
    }
    return false;
}

// True when the box [lo, hi] lies outside the shaft.
RSIM_FN bool rsimTileShaftExcludesBox(TileShaft s, vec3 lo, vec3 hi, float eps) {
    if (hi.x <= s.lo.x + eps || hi.y <= s.lo.y + eps || hi.z <= s.lo.z + eps || lo.x >= s.hi.x - eps ||
        lo.y >= s.hi.y - eps || lo.z >= s.hi.z - eps)
        return true;
    for (uint q = 0u; q < RSIM_TILE_PLANES; ++q) {
        vec3 n = s.normal[q];
        vec3 c = vec3(n.x >= 0.0f ? lo.x : hi.x, n.y >= 0.0f ? lo.y : hi.y, n.z >= 0.0f ? lo.z : hi.z);
        if (rsimDotExact(n, c - s.centre) >= s.h[q] - s.tol[q]) return true;
    }
    return false;
}

RSIM_SHARED_END

#endif
