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
layout(buffer_reference, std430, buffer_reference_align = 16) buffer ShaftNodeRefs { ShaftBvhNode n[]; };

// True when no triangle but i and j can meet the interior of the pair's shaft: the traversal of
// ShaftBvh::candidates (src/accel/shaft_bvh.cpp) with the same tests, stopping at the first
// candidate.
bool pairIsClear(uint i, uint j, Tri ti, Tri tj) {
    Shaft sh = rsimShaftBuild(ti, tri(i).normal.xyz, tj, tri(j).normal.xyz, pc.shaftEps);
    uint stack[RSIM_SHAFT_BVH_MAX_DEPTH + 1u];
    uint top = 0u, k = 0u;
    for (;;) {
        ShaftBvhNode node = ShaftNodeRefs(pc.shaftNodes).n[k];
        uint index = floatBitsToUint(node.loIndex.w), count = floatBitsToUint(node.hiCount.w);
        if (!rsimShaftExcludesBox(sh, node.loIndex.xyz, node.hiCount.xyz, pc.shaftEps)) {
            if (count == 0u) {
                stack[top++] = index; // the right child, after the left
                ++k;
                continue;
            }
            for (uint p = index; p < index + count; ++p) {
                uint t = UintRefs(pc.shaftPrims).v[p];
                if (t == i || t == j) continue;
                GpuTriangle g = tri(t);
                if (!rsimShaftExcludes(sh, rsimTri(g), g.normal.xyz, pc.shaftEps)) return false;
            }
        }
        if (top == 0u) return true;
        k = stack[--top];
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

void pairsPhase() {
    // The launch's facing pairs (shaders/facing_pairs.comp), one per invocation in launch order;
    // the other pairs have K = 0.
    if (RSIM_LAUNCH_ID.x >= pc.facingWidth) return; // the compute build's last workgroup of a row
    uint index = RSIM_LAUNCH_ID.y * pc.facingWidth + RSIM_LAUNCH_ID.x;
    FacingListRef facing = FacingListRef(pc.facingList);
    if (index >= facing.header.count) return;
    uvec2 pair = facing.pairs[index];
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
        return;
    }
#endif
    uint base = rsimKBaseSamplesPerSide(pc.samples);
    uint perSide = rsimKSamplesPerSide(sampling(), ti, tj);
    bool shareVertex = rsimShareVertex(ti, tj);
    vec2 sums = castSides(i, j, 0u, base, perSide, shareVertex, rays);
    if (perSide > base && pc.nearList != 0ul) {
        NearListRef list = NearListRef(pc.nearList);
        uint slot = atomicAdd(list.header.count, 1u);
        if (slot < pc.nearCapacity) { // the near phases finish this pair
            list.pairs[slot] = NearVisibilityPair(row, col, sums.x, sums.y);
            rsimCount(pc.stats, 2u, i + j, rays);
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
    nearParts().sums[RSIM_LAUNCH_ID.x] = castSides(i, j, s.x, s.y, perSide, rsimShareVertex(ti, tj), rays);
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
    else
        pairsPhase();
}
