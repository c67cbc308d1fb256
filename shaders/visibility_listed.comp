// SPDX-License-Identifier: MIT
// The pairs of one visibility launch whose rays are tested against their tile's occluder list
// (tile_shaft.h; the lists from tile_shafts.comp) instead of traced: a compute pass without ray
// tracing, between the tiles' lists and the ray pass (visibility.glsl). One invocation per
// facing pair of the launch, in the facing list's order, so that the lanes of a subgroup mostly
// share a tile and read the same triangle of its list at the same time. A pair whose tile has
// no list (RSIM_TILE_LONG), or a near pair (more samples per side, form_factor.h, which would
// keep its subgroup waiting), is appended to the pairs left to the rays
// (FacingListHeader::traced), which the ray pass then takes as its facing pairs. Measured
// alternatives (docs/benchmarks.md): the same tests in the ray-generation shader ran no faster
// than the rays on the H100, and a workgroup per tile with the list in shared memory was slower
// (a third of its lanes idle, the workgroup held until its slowest pair).
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "common/rsim.glsl"
#include "rsim/shared/tile_shaft.h"
layout(local_size_x = RSIM_WG_PAIRS_X) in;
layout(push_constant) uniform Push { VisibilityPush pc; };

// The list of this invocation's tile: `listCount` triangle ids from `listFirst` of the tiles'
// area at `tilesArea`.
uint64_t tilesArea;
uint listFirst, listCount;

bool hitsListed(RaySegment seg, uint i, uint j, uint t) {
    if (t == i || t == j) return false;
    GpuTriangle g = TriangleRefs(pc.triangles).t[t];
    return rsimSegmentHits(seg, g.v0Area.xyz, g.v1Rho.xyz, g.v2.xyz);
}

// A triangle of the list other than i and j that meets the segment, or -1. Four triangles per
// trip, their loads issued together (5% faster on the H100 than one at a time); the first hit
// ends it.
int listBlocker(RaySegment seg, uint i, uint j) {
    UintRefs ids = UintRefs(tilesArea);
    uint k = 0u;
    for (; k + 4u <= listCount; k += 4u) {
        uint t0 = ids.v[listFirst + k], t1 = ids.v[listFirst + k + 1u], t2 = ids.v[listFirst + k + 2u],
             t3 = ids.v[listFirst + k + 3u];
        bool h0 = hitsListed(seg, i, j, t0), h1 = hitsListed(seg, i, j, t1), h2 = hitsListed(seg, i, j, t2),
             h3 = hitsListed(seg, i, j, t3);
        if (h0 || h1 || h2 || h3) return int(h0 ? t0 : h1 ? t1 : h2 ? t2 : t3);
    }
    for (; k < listCount; ++k)
        if (hitsListed(seg, i, j, ids.v[listFirst + k])) return int(ids.v[listFirst + k]);
    return -1;
}
#define RSIM_BLOCKER(seg, i, j) listBlocker(seg, i, j)
#define RSIM_OCCLUDED(seg, i, j) (listBlocker(seg, i, j) >= 0)
#include "common/visibility_pairs.glsl"

void main() {
    if (gl_GlobalInvocationID.x >= pc.facingWidth) return; // the last workgroup of a row
    uint index = gl_GlobalInvocationID.y * pc.facingWidth + gl_GlobalInvocationID.x;
    FacingListRef facing = FacingListRef(pc.facingList);
    if (index >= facing.header.count) return;
    uvec2 pair = facing.pairs[index];
    uint row = pair.x, col = pair.y;
    uint i = min(row, col), j = max(row, col);
    Tri ti = rsimTri(tri(i));
    Tri tj = rsimTri(tri(j));
    uint perSide = rsimKSamplesPerSide(sampling(), ti, tj);
    uint tile = rsimTileOf(pc, row, col);
    tilesArea = facing.header.tiles;
    listCount = UintRefs(tilesArea).v[tile];
    listFirst = facing.header.tileCapacity + tile * facing.header.tileListMax;

    // Pairs left to the rays, appended with one atomic per subgroup.
    bool traced = listCount == RSIM_TILE_LONG || perSide > rsimKBaseSamplesPerSide(pc.samples);
    uvec4 ballot = subgroupBallot(traced);
    uint count = subgroupBallotBitCount(ballot);
    if (count > 0u) {
        FacingListRef left = FacingListRef(facing.header.traced);
        uint base = 0u;
        if (subgroupElect()) base = atomicAdd(left.header.count, count);
        base = subgroupBroadcastFirst(base);
        if (traced) left.pairs[base + subgroupBallotExclusiveBitCount(ballot)] = pair;
    }
    if (traced) return;

    if (countsPair(row, col)) rsimCount(pc.stats, 0u, i + j, 1u);
    uint rays = 0u, answered = 0u;
    vec2 sums = castSides(i, j, 0u, perSide, perSide, rsimShareVertex(ti, tj), true, rays, answered);
    finish(row, col, rsimKPairValue(sums.x, sums.y, perSide, tri(i).v0Area.w, tri(j).v0Area.w, pc.estimator), rays);
    rsimCount(pc.stats, 4u, i + j, rays);
    countAnswered(row, col, answered);
}
