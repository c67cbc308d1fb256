// SPDX-License-Identifier: MIT
// What the passes that estimate K's pairs share (visibility.glsl, which traces the rays, and
// visibility_listed.comp, which tests them against the tiles' occluder lists): where K is
// stored, the listed pairs, the sampling of a pair's sides, and the counters. The includer
// declares the push constants `pc` (VisibilityPush) and defines RSIM_BLOCKER(seg, i, j): a triangle
// that occludes the segment of the pair (i, j), or -1 when nothing does, and RSIM_OCCLUDED(seg, i,
// j): whether anything does (on a ray-tracing pipeline without the closest-hit shader's cost).
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#include "rsim/shared/form_factor.h"
#include "rsim/shared/kformat.h"
layout(buffer_reference, std430, buffer_reference_align = 2) buffer HalfRefs { uint16_t v[]; };

// K is stored in row chunks of pc.rowsPerChunk rows; chunk c keeps element (i, j) at
// j * rows_c + (i - c R), so that neighbouring receivers i sit in neighbouring floats.
void storeK(uint row, uint col, float k) {
    uint c = row / pc.rowsPerChunk;
    uint first = c * pc.rowsPerChunk;
    uint rows = min(pc.rowsPerChunk, pc.n - first);
    uint64_t chunk = AddressRefs(pc.kChunks).a[c];
    uint e = col * rows + (row - first);
    // fp16 is converted in-band, with a 16-bit store: neighbouring elements belong to other
    // invocations, so a read-modify-write of their shared word would race.
    if (pc.kStorage == RSIM_K_FP16) HalfRefs(chunk).v[e] = uint16_t(packHalf2x16(vec2(k, 0.0)) & 0xffffu);
    else FloatRefs(chunk).v[e] = k;
}

GpuTriangle tri(uint k) { return TriangleRefs(pc.triangles).t[k]; }

KSampling sampling() { return KSampling(pc.samples, pc.nearFactor, pc.seed, pc.estimator, pc.rayEps); }

// A pair's rays run between the same two triangles, so what blocked one of them often blocks the
// next: with `useBlockers`, castSides tests a segment first against the last RSIM_PAIR_BLOCKERS
// distinct triangles that blocked the pair's earlier rays in this invocation (an exact test,
// physics.h), and tests the tile's list only when none of them blocks it. The verdict is the
// same; only the cost changes (docs/model-choices.md, "A pair's blockers"). The traced pairs
// take the blocker rounds instead (visibility.glsl): in one invocation, the rays a blocker
// answers would only leave their lanes idle beside the lanes that trace.
const uint RSIM_PAIR_BLOCKERS = 2u;

bool blockedByTriangle(RaySegment seg, int t) {
    GpuTriangle g = tri(uint(t));
    return rsimSegmentHits(seg, g.v0Area.xyz, g.v1Rho.xyz, g.v2.xyz);
}

// Adds the unoccluded weights of samples [s0, s1) of both sides of the pair (i, j), which takes
// perSide samples per side (rsimKSamplesPerSide: which of the row's points it uses), and counts
// the rays (and, in `answered`, those its last blockers answered). The triangles are read again for
// every sample rather than held in registers across the rays: on a ray-tracing pipeline, what
// lives across traceRayEXT is spilled, and fewer live values leave more threads to hide the
// traversal's latency.
vec2 castSides(uint i, uint j, uint s0, uint s1, uint perSide, bool shareVertex, bool useBlockers, inout uint rays,
               inout uint answered) {
    vec2 sums = vec2(0.0);
    int blockers[RSIM_PAIR_BLOCKERS]; // newest first; -1: none yet
    for (uint b = 0u; b < RSIM_PAIR_BLOCKERS; ++b) blockers[b] = -1;
    for (uint side = 0u; side < 2u; ++side) {
        uint e = side == 0u ? i : j, o = side == 0u ? j : i;
        vec4 offset = rsimKSideOffset(tri(e).meta.x, tri(o).meta.x, pc.seed);
        uvec2 stride = rsimKSideStride(sampling(), perSide, tri(e).meta.x, tri(o).meta.x);
        for (uint s = s0; s < s1; ++s) {
            GpuTriangle ge = tri(e);
            GpuTriangle go = tri(o);
            RaySegment seg = rsimKSideSample(rsimTri(ge), ge.normal.xyz, rsimTri(go), go.normal.xyz, go.v0Area.w,
                                             shareVertex, s, stride, offset, pc.rayEps);
            if (seg.weight <= 0.0) continue;
            ++rays;
            if (!useBlockers) {
                if (!RSIM_OCCLUDED(seg, i, j)) sums[side] += seg.weight;
                continue;
            }
            bool blocked = false;
            for (uint b = 0u; b < RSIM_PAIR_BLOCKERS && !blocked; ++b)
                blocked = blockers[b] >= 0 && blockedByTriangle(seg, blockers[b]);
            if (blocked) {
                ++answered;
                continue;
            }
            int t = RSIM_BLOCKER(seg, i, j);
            if (t < 0) {
                sums[side] += seg.weight;
            } else if (uint(t) != i && uint(t) != j) {
                for (uint b = RSIM_PAIR_BLOCKERS - 1u; b > 0u; --b) blockers[b] = blockers[b - 1u];
                blockers[0] = t;
            }
        }
    }
    return sums;
}

layout(buffer_reference, std430, buffer_reference_align = 16) buffer NearListRef {
    NearVisibilityListHeader header;
    NearVisibilityPair pairs[];
};

// Full rows compute each pair twice, once for each element; the pair counters count it once.
bool countsPair(uint row, uint col) { return pc.mirror != RSIM_K_FULL_ROWS || row < col; }

// Stores the pair's value at (row, col), and at (col, row) when mirrored.
void finish(uint row, uint col, float k, uint rays) {
    storeK(row, col, k);
    if (pc.mirror == RSIM_K_MIRRORED) storeK(col, row, k);
    if (countsPair(row, col)) rsimCount(pc.stats, 1u, row + col, k > 0.0 ? 1u : 0u);
    if (rays > 0u) rsimCount(pc.stats, 2u, row + col, rays);
}

// Counts the rays that a pair's blockers answered (castSides, the blocker rounds).
void countAnswered(uint row, uint col, uint answered) {
    if (answered > 0u) rsimCount(pc.stats, 8u, row + col, answered);
}

layout(buffer_reference, std430, buffer_reference_align = 16) buffer FacingListRef {
    FacingListHeader header;
    uvec2 pairs[];
};

