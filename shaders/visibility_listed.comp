// SPDX-License-Identifier: MIT
// The pairs of one visibility launch whose rays are tested against their tile's occluder list
// (tile_shaft.h; the lists from tile_shafts.comp) instead of traced: a compute pass without ray
// tracing, between the tiles' lists and the ray pass (visibility.glsl). One invocation per
// facing pair of the launch, in the facing list's order, so that the lanes of a subgroup mostly
// share a tile and read the same triangle of its list at the same time. A pair whose tile has
// no list (RSIM_TILE_LONG), or a near pair (more samples per side, form_factor.h, which would
// keep its subgroup waiting), is appended to the pairs left to the rays
// (FacingListHeader::traced), which the ray pass then takes as its facing pairs. Measured
// alternatives (docs/benchmarks.md at c8397db, "Occluder lists of tiles of pairs"): the same
// tests in the ray-generation shader ran no faster than the rays (the driver's traversal code
// sets that pipeline's occupancy, and the list loop, a chain of dependent loads, waits), and a
// workgroup per tile with the list in shared memory was slower (a third of its lanes idle, the
// workgroup held until its slowest pair).
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

#include "common/visibility_pairs.glsl"

// Whether listed triangle t, which may be i or j (they stay out), meets the segment.
bool hitsListed(RaySegment seg, uint i, uint j, uint t) { return t != i && t != j && blockedByTriangle(seg, int(t)); }

// A triangle of the list other than i and j that meets the segment, or -1. Four triangles per
// trip, their loads issued together so that their latencies overlap (measured faster than one,
// two or eight a trip); the first hit ends it.
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

// A pair's rays run between the same two triangles, so what blocked one of them often blocks the
// next: each ray is tested first against the last RSIM_PAIR_BLOCKERS distinct triangles that
// blocked the pair's earlier rays (an exact test, physics.h), and against the tile's list only
// when none of them blocks it. The verdict is the same, since those triangles are of the list;
// only the cost changes (docs/model-choices.md, "A pair's blockers").
const uint RSIM_PAIR_BLOCKERS = 2u;

// Adds the unoccluded weights of the pair's samples in castSides' order and counts the rays and
// those its blockers answered. Each ray walks the list from its head: a subgroup's lanes then
// leave the walk together for their next rays, and lanes of one tile read the same entries at
// once (walking in step round the list instead, each lane's next ray starting where the last
// ended, made this pass twice as slow: every trip then ran the lanes' next-ray set-up;
// docs/benchmarks.md at c8397db, "The listed pass walking its lists in step").
vec2 castSidesWithBlockers(uint i, uint j, uint perSide, bool shareVertex, inout uint rays, inout uint answered) {
    vec2 sums = vec2(0.0);
    int blockers[RSIM_PAIR_BLOCKERS]; // newest first; -1: none yet
    for (uint b = 0u; b < RSIM_PAIR_BLOCKERS; ++b) blockers[b] = -1;
    for (uint side = 0u; side < 2u; ++side) {
        PairSide p = pairSide(i, j, side, perSide);
        for (uint s = 0u; s < perSide; ++s) {
            RaySegment seg = pairSideSample(p, s, shareVertex);
            if (seg.weight <= 0.0) continue;
            ++rays;
            bool blocked = false;
            for (uint b = 0u; b < RSIM_PAIR_BLOCKERS && !blocked; ++b)
                blocked = blockers[b] >= 0 && blockedByTriangle(seg, blockers[b]);
            if (blocked) {
                ++answered;
                continue;
            }
            int t = listBlocker(seg, i, j);
            if (t < 0) {
                sums[side] += seg.weight;
            } else {
                for (uint b = RSIM_PAIR_BLOCKERS - 1u; b > 0u; --b) blockers[b] = blockers[b - 1u];
                blockers[0] = t;
            }
        }
    }
    return sums;
}

void main() {
    // Launched as large as the list (FacingListHeader::computeLaunch), in rows of workgroups.
    uint index = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    FacingListRef facing = FacingListRef(pc.facingList);
    if (index >= facing.header.count) return;
    uint pair = facing.pairs[index];
    uvec2 element = rsimLaunchPair(pc, pair);
    uint row = element.x, col = element.y;
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
    vec2 sums = castSidesWithBlockers(i, j, perSide, rsimShareVertex(ti, tj), rays, answered);
    finish(row, col, rsimKPairValue(sums.x, sums.y, perSide, tri(i).v0Area.w, tri(j).v0Area.w, pc.estimator), rays);
    rsimCount(pc.stats, 4u, i + j, rays);
    countAnswered(row, col, answered);
}
