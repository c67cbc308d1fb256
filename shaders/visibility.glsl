// SPDX-License-Identifier: MIT
// K_ij for the pairs of a block of rows (MODEL.md §2), in two phases (VisibilityPush
// in gpu_layout.h), every ray traced. Built twice: as a compute shader with ray queries
// (RSIM_RAY_QUERY) and as a ray-generation shader. With the tiles' occluder lists, it takes the
// pairs that visibility_listed.comp leaves to it.
#version 460
#extension GL_GOOGLE_include_directive : require
#define RSIM_RAY_PASS_GROUP RSIM_WG_PAIRS_X
#include "common/ray_pass.glsl"
#ifdef RSIM_CLEAR_PAIRS
#include "rsim/shared/shaft.h"
#endif
layout(push_constant) uniform Push { VisibilityPush pc; };
#define RSIM_OCCLUDED(seg, i, j) rsimOccluded(seg)
#include "common/visibility_pairs.glsl"

#ifdef RSIM_CLEAR_PAIRS
layout(buffer_reference, std430, buffer_reference_align = 16) buffer ShaftNodeRefs { RayBvhNode n[]; };

// True when no triangle but i and j can meet the interior of the pair's shaft: the traversal of
// ShaftBvh::candidates (src/accel/shaft_bvh.cpp) with the same tests, over its four-wide collapse
// (src/accel/ray_bvh.h), stopping at the first candidate.
bool pairIsClear(uint i, uint j, Tri ti, Tri tj) {
    Shaft sh = rsimShaftBuild(ti, tri(i).normal.xyz, tj, tri(j).normal.xyz, pc.shaftEps);
    uint stack[RSIM_RAY_BVH_STACK + 1u];
    uint top = 0u, ref = 0u;
    for (;;) {
        if ((ref & RSIM_RAY_BVH_LEAF) == 0u) {
            RayBvhNode node = ShaftNodeRefs(pc.shaftNodes).n[ref];
            for (uint c = 4u; c-- > 0u;) {
                uint r = node.child[c];
                if (r != RSIM_RAY_BVH_EMPTY &&
                    !rsimShaftExcludesBox(sh, rsimRayBvhLo(node, c), rsimRayBvhHi(node, c), pc.shaftEps))
                    stack[top++] = r;
            }
        } else {
            uint p0 = rsimRayBvhLeafFirst(ref), p1 = p0 + rsimRayBvhLeafCount(ref);
            for (uint p = p0; p < p1; ++p) {
                uint t = UintRefs(pc.shaftPrims).v[p];
                if (t == i || t == j) continue;
                GpuTriangle g = tri(t);
                if (!rsimShaftExcludes(sh, rsimTri(g), g.normal.xyz, pc.shaftEps)) return false;
            }
        }
        if (top == 0u) return true;
        ref = stack[--top];
    }
    return true;
}
#endif

// The former estimator: x on the triangle with the smaller stable id, both points by area.
float areaKernel(uint i, uint j, inout uint rays) {
    GpuTriangle gi = tri(i);
    GpuTriangle gj = tri(j);
    bool iFirst = gi.meta.x < gj.meta.x;
    GpuTriangle ga = iFirst ? gi : gj;
    GpuTriangle gb = iFirst ? gj : gi;
    vec4 offset = rsimOffset4(rsimPairHash(ga.meta.x, gb.meta.x, pc.seed));
    float sum = 0.0;
    for (uint s = 0u; s < pc.samples; ++s) {
        RaySegment seg = rsimAreaKernelSample(rsimTri(ga), ga.normal.xyz, rsimTri(gb), gb.normal.xyz,
                                              rsimR4Point(s, offset), pc.rayEps);
        if (seg.weight <= 0.0) continue;
        ++rays;
        if (!rsimOccluded(seg)) sum += seg.weight;
    }
    return sum / float(pc.samples);
}

// Samples [first, end) per side of a near pair's part `part`: the samples beyond the first
// `base` per side, cut into RSIM_NEAR_PARTS consecutive runs (some empty when they are fewer).
uvec2 nearPartSamples(uint part, uint base, uint perSide) {
    uint extra = perSide - base;
    return uvec2(base + extra * part / RSIM_NEAR_PARTS, base + extra * (part + 1u) / RSIM_NEAR_PARTS);
}

// Stores K of the pair (row, col) from the sums of its first `base` samples per side, or, for a
// near pair, lists it for the near phases (or, the list full, casts its parts here, in the same
// order). `rays`: those cast so far for the pair in this invocation.
void finishOrListNear(uint row, uint col, uint i, uint j, uint base, uint perSide, bool shareVertex, vec2 sums,
                      uint rays) {
    if (perSide > base && pc.nearList != 0ul) {
        NearListRef list = NearListRef(pc.nearList);
        uint slot = atomicAdd(list.header.count, 1u);
        if (slot < pc.nearCapacity) { // the near phases finish this pair
            list.pairs[slot] = NearVisibilityPair(row, col, sums.x, sums.y);
            if (rays > 0u) rsimCount(pc.stats, 2u, i + j, rays);
            return;
        }
    }
    // The near list is full: the parts of RSIM_VIS_NEAR, here, in the same order.
    for (uint part = 0u; perSide > base && part < RSIM_NEAR_PARTS; ++part) {
        uvec2 s = nearPartSamples(part, base, perSide);
        sums += castSides(i, j, s.x, s.y, perSide, shareVertex, rays);
    }
    finish(row, col, rsimKPairValue(sums.x, sums.y, perSide, tri(i).v0Area.w, tri(j).v0Area.w, pc.estimator),
           rays);
}

// The blocker rounds' area (gpu_layout.h; the host gives one when the rounds are on) and the
// address of its active list 0 or 1.
bool roundsOn() { return NearListRef(pc.nearList).header.rounds != 0ul; }
RoundsRef rounds() { return RoundsRef(NearListRef(pc.nearList).header.rounds); }
uint64_t activeList(uint list) {
    return NearListRef(pc.nearList).header.rounds + rsimActiveListOffset(rounds().header.capacity, list);
}

// The segment of bit b of a pair's rays (PairRays): side i's sample b, or side j's b - base.
RaySegment pairRay(uint i, uint j, uint b, uint base, uint perSide, bool shareVertex) {
    uint side = b < base ? 0u : 1u;
    return pairSideSample(pairSide(i, j, side, perSide), b - side * base, shareVertex);
}

// Whether the triangle t (not i or j, not RSIM_NO_NEIGHBOUR) blocks the segment.
bool blocks(RaySegment seg, uint t, uint i, uint j) {
    return t != RSIM_NO_NEIGHBOUR && t != i && t != j && blockedByTriangle(seg, int(t));
}

// Takes the pair's first pending ray that has a weight (dropping those without) and counts it:
// its bit b and segment; false when none is left.
bool nextPendingRay(inout PairRays p, uint i, uint j, uint base, uint perSide, bool shareVertex, out uint b,
                    out RaySegment seg, inout uint rays) {
    while (p.pending != 0u) {
        b = findLSB(p.pending);
        p.pending &= ~(1u << b);
        seg = pairRay(i, j, b, base, perSide, shareVertex);
        if (seg.weight > 0.0) {
            ++rays;
            return true;
        }
    }
    return false;
}

// One round of a pair: traces its first pending ray; when a triangle blocks it, every other
// pending ray that this triangle or one beside it (across an edge: a surface split into
// triangles blocks a bundle with several) blocks is answered.
void pairRound(inout PairRays p, uint i, uint j, uint base, uint perSide, bool shareVertex, inout uint rays,
               inout uint answered) {
    uint b;
    RaySegment seg;
    if (!nextPendingRay(p, i, j, base, perSide, shareVertex, b, seg, rays)) return;
    int t = rsimBlocker(seg);
    if (t < 0) {
        p.open |= 1u << b;
        return;
    }
    if (uint(t) == i || uint(t) == j) return;
    uvec3 beside = tri(uint(t)).edges.xyz;
    for (uint rest = p.pending; rest != 0u; rest &= rest - 1u) {
        uint k = findLSB(rest);
        RaySegment other = pairRay(i, j, k, base, perSide, shareVertex);
        if (other.weight <= 0.0) {
            p.pending &= ~(1u << k);
        } else if (blocks(other, uint(t), i, j) || blocks(other, beside.x, i, j) || blocks(other, beside.y, i, j) ||
                   blocks(other, beside.z, i, j)) {
            p.pending &= ~(1u << k);
            ++rays;
            ++answered;
        }
    }
}

void countRays(uint i, uint j, uint rays, uint answered) {
    if (rays > 0u) rsimCount(pc.stats, 2u, i + j, rays);
    countAnswered(i, j, answered);
}

void pairsPhase() {
    // The launch's facing pairs (shaders/facing_pairs.comp), one per invocation in launch order,
    // launched as large as their list (FacingListHeader::launch); the other pairs have K = 0.
    uint index = RSIM_LAUNCH_INDEX;
    FacingListRef facing = FacingListRef(pc.facingList);
    if (index >= facing.header.count) return;
    uvec2 pair = rsimLaunchPair(pc, facing.pairs[index]);
    uint row = pair.x, col = pair.y;
    // The pair (i, j), i < j, whichever of its elements this invocation stores.
    uint i = min(row, col), j = max(row, col);
    Tri ti = rsimTri(tri(i));
    Tri tj = rsimTri(tri(j));
    if (countsPair(row, col)) rsimCount(pc.stats, 0u, i + j, 1u);
    uint rays = 0u;
    if (pc.estimator == RSIM_K_ESTIMATOR_AREA) {
        float k = areaKernel(i, j, rays);
        finish(row, col, k, rays);
        return;
    }
#ifdef RSIM_CLEAR_PAIRS
    if (pc.clearPairs != 0u && pairIsClear(i, j, ti, tj)) {
        if (countsPair(row, col)) rsimCount(pc.stats, 3u, i + j, 1u);
        finish(row, col,
               rsimClearPairValue(ti, tri(i).normal.xyz, tri(i).v0Area.w, tj, tri(j).normal.xyz, tri(j).v0Area.w,
                                  pc.estimator),
               0u);
        if (roundsOn()) rounds().pairs[index] = PairRays(RSIM_PAIR_DONE, RSIM_PAIR_DONE);
        return;
    }
#endif
    uint base = rsimKBaseSamplesPerSide(pc.samples);
    uint perSide = rsimKSamplesPerSide(sampling(), ti, tj);
    bool shareVertex = rsimShareVertex(ti, tj);
    if (roundsOn()) {
        // The first round (gpu_layout.h): the pair's first ray, and the others its blocker answers.
        PairRays p = PairRays(0u, base == 16u ? 0xffffffffu : (1u << (2u * base)) - 1u);
        uint answered = 0u;
        pairRound(p, i, j, base, perSide, shareVertex, rays, answered);
        rounds().pairs[index] = p;
        countRays(i, j, rays, answered);
        return;
    }
    vec2 sums = castSides(i, j, 0u, base, perSide, shareVertex, rays);
    finishOrListNear(row, col, i, j, base, perSide, shareVertex, sums, rays);
}

// A pair's sampling, from its element (row, col): (i, j) with i < j, S/2 samples per side, the
// samples it takes per side (rsimKSamplesPerSide), whether the two triangles share a vertex.
struct PairSampling {
    uint i, j, base, perSide;
    bool shareVertex;
};
PairSampling pairSampling(uint row, uint col) {
    uint i = min(row, col), j = max(row, col);
    Tri ti = rsimTri(tri(i));
    Tri tj = rsimTri(tri(j));
    return PairSampling(i, j, rsimKBaseSamplesPerSide(pc.samples), rsimKSamplesPerSide(sampling(), ti, tj),
                        rsimShareVertex(ti, tj));
}

// Phases RSIM_VIS_ROUND_FROM_0/1 and RSIM_VIS_REST_FROM_0/1: a pair of an active list.
void roundPhase(uint list, bool rest) {
    RoundsRef r = rounds();
    uint index = RSIM_LAUNCH_INDEX;
    if (index >= (list == 0u ? r.header.active0 : r.header.active1)) return;
    uint slot = UintRefs(activeList(list)).v[index];
    PairRays p = r.pairs[slot];
    uvec2 pair = rsimLaunchPair(pc, FacingListRef(pc.facingList).pairs[slot]);
    PairSampling q = pairSampling(pair.x, pair.y);
    uint i = q.i, j = q.j, base = q.base, perSide = q.perSide;
    bool shareVertex = q.shareVertex;
    uint rays = 0u, answered = 0u;
    if (rest) {
        // What the rounds left: traced in order, without naming blockers.
        uint b;
        RaySegment seg;
        while (nextPendingRay(p, i, j, base, perSide, shareVertex, b, seg, rays))
            if (!rsimOccluded(seg)) p.open |= 1u << b;
    } else {
        pairRound(p, i, j, base, perSide, shareVertex, rays, answered);
    }
    r.pairs[slot] = p;
    countRays(i, j, rays, answered);
}

// Phase RSIM_VIS_PAIRS_FINISH: a traced pair's open rays added in castSides' order, then K (or
// the near list), as phase RSIM_VIS_PAIRS does without the rounds.
void pairsFinishPhase() {
    uint index = RSIM_LAUNCH_INDEX;
    if (index >= FacingListRef(pc.facingList).header.count) return;
    PairRays p = rounds().pairs[index];
    if (rsimPairDone(p)) return;
    uvec2 pair = rsimLaunchPair(pc, FacingListRef(pc.facingList).pairs[index]);
    PairSampling q = pairSampling(pair.x, pair.y);
    uint i = q.i, j = q.j, base = q.base, perSide = q.perSide;
    bool shareVertex = q.shareVertex;
    vec2 sums = vec2(0.0);
    for (uint open = p.open; open != 0u; open &= open - 1u) {
        uint b = findLSB(open);
        sums[b < base ? 0 : 1] += pairRay(i, j, b, base, perSide, shareVertex).weight;
    }
    finishOrListNear(pair.x, pair.y, i, j, base, perSide, shareVertex, sums, 0u);
}

layout(buffer_reference, std430, buffer_reference_align = 8) buffer NearPartsRef { vec2 sums[]; };

// The parts' sums follow the near list's pairs (gpu_layout.h).
NearPartsRef nearParts() {
    return NearPartsRef(pc.nearList + rsimNearPartsOffset(pc.nearCapacity));
}

// One part of a listed near pair's samples beyond the first S/2 per side.
void nearPhase() {
    NearListRef list = NearListRef(pc.nearList);
    uint slot = RSIM_LAUNCH_ID.x / RSIM_NEAR_PARTS, part = RSIM_LAUNCH_ID.x % RSIM_NEAR_PARTS;
    if (slot >= min(list.header.count, pc.nearCapacity)) return;
    NearVisibilityPair p = list.pairs[slot]; // p.i, p.j: the element's row and column
    uint i = min(p.i, p.j), j = max(p.i, p.j);
    Tri ti = rsimTri(tri(i));
    Tri tj = rsimTri(tri(j));
    uint perSide = rsimKSamplesPerSide(sampling(), ti, tj);
    uvec2 s = nearPartSamples(part, rsimKBaseSamplesPerSide(pc.samples), perSide);
    uint rays = 0u;
    nearParts().sums[RSIM_LAUNCH_ID.x] =
        castSides(i, j, s.x, s.y, perSide, rsimShareVertex(ti, tj), rays);
    rsimCount(pc.stats, 2u, p.i + p.j, rays);
}

// A listed near pair's K from its first samples and its parts, added in order.
void nearFinishPhase() {
    NearListRef list = NearListRef(pc.nearList);
    uint slot = RSIM_LAUNCH_ID.x;
    if (slot >= min(list.header.count, pc.nearCapacity)) return;
    NearVisibilityPair p = list.pairs[slot];
    uint i = min(p.i, p.j), j = max(p.i, p.j);
    uint perSide = rsimKSamplesPerSide(sampling(), rsimTri(tri(i)), rsimTri(tri(j)));
    vec2 sums = vec2(p.sumFromI, p.sumFromJ);
    for (uint part = 0u; part < RSIM_NEAR_PARTS; ++part) sums += nearParts().sums[slot * RSIM_NEAR_PARTS + part];
    finish(p.i, p.j, rsimKPairValue(sums.x, sums.y, perSide, tri(i).v0Area.w, tri(j).v0Area.w, pc.estimator),
           0u);
}

void main() {
    if (pc.phase == RSIM_VIS_NEAR)
        nearPhase();
    else if (pc.phase == RSIM_VIS_NEAR_FINISH)
        nearFinishPhase();
    else if (pc.phase >= RSIM_VIS_ROUND_FROM_0 && pc.phase <= RSIM_VIS_REST_FROM_1)
        roundPhase((pc.phase - RSIM_VIS_ROUND_FROM_0) % 2u, pc.phase >= RSIM_VIS_REST_FROM_0);
    else if (pc.phase == RSIM_VIS_PAIRS_FINISH)
        pairsFinishPhase();
    else
        pairsPhase();
}
