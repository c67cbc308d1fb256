// SPDX-License-Identifier: MIT
// What the passes that estimate K's pairs share (visibility.glsl, which traces the rays, and
// visibility_listed.comp, which tests them against the tiles' occluder lists): where K is
// stored, the listed pairs, the sampling of a pair's sides, and the counters. The includer
// declares the push constants `pc` (VisibilityPush) and, for castSides, defines RSIM_OCCLUDED(seg,
// i, j): whether anything occludes the segment of the pair (i, j) (on a ray-tracing pipeline
// without the closest-hit shader's cost).
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#include "rsim/shared/form_factor.h"
#include "rsim/shared/kformat.h"
#include "common/visibility_lists.glsl"
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

// Whether triangle t meets the segment (the exact test, physics.h).
bool blockedByTriangle(RaySegment seg, int t) {
    GpuTriangle g = tri(uint(t));
    return rsimSegmentHits(seg, g.v0Area.xyz, g.v1Rho.xyz, g.v2.xyz);
}

// One side of the pair (i, j), which takes perSide samples per side (rsimKSamplesPerSide: which
// of the row's points it uses): side 0 casts from i towards j, side 1 from j towards i.
struct PairSide {
    uint e, o; // the emitting triangle, and the other
    vec4 offset;
    uvec2 stride;
};
PairSide pairSide(uint i, uint j, uint side, uint perSide) {
    PairSide p;
    p.e = side == 0u ? i : j;
    p.o = side == 0u ? j : i;
    p.offset = rsimKSideOffset(tri(p.e).meta.x, tri(p.o).meta.x, pc.seed);
    p.stride = rsimKSideStride(sampling(), perSide, tri(p.e).meta.x, tri(p.o).meta.x);
    return p;
}

// Sample s of a side. The triangles are read again for every sample rather than held in
// registers across the rays: on a ray-tracing pipeline, what lives across traceRayEXT is
// spilled, and fewer live values leave more threads to hide the traversal's latency.
RaySegment pairSideSample(PairSide p, uint s, bool shareVertex) {
    GpuTriangle ge = tri(p.e);
    GpuTriangle go = tri(p.o);
    return rsimKSideSample(rsimTri(ge), ge.normal.xyz, rsimTri(go), go.normal.xyz, go.v0Area.w, shareVertex, s,
                           p.stride, p.offset, pc.rayEps);
}

#ifdef RSIM_OCCLUDED
// Adds the unoccluded weights of samples [s0, s1) of both sides of the pair (i, j), side 0's
// first and each side's in order, and counts the rays.
vec2 castSides(uint i, uint j, uint s0, uint s1, uint perSide, bool shareVertex, inout uint rays) {
    vec2 sums = vec2(0.0);
    for (uint side = 0u; side < 2u; ++side) {
        PairSide p = pairSide(i, j, side, perSide);
        for (uint s = s0; s < s1; ++s) {
            RaySegment seg = pairSideSample(p, s, shareVertex);
            if (seg.weight <= 0.0) continue;
            ++rays;
            if (!RSIM_OCCLUDED(seg, i, j)) sums[side] += seg.weight;
        }
    }
    return sums;
}
#endif


// Full rows compute each pair twice, once for each element; the pair counters count it once.
bool countsPair(uint row, uint col) { return pc.mirror != RSIM_K_FULL_ROWS || row < col; }

// Stores the pair's value at (row, col), and at (col, row) when mirrored.
void finish(uint row, uint col, float k, uint rays) {
    storeK(row, col, k);
    if (pc.mirror == RSIM_K_MIRRORED) storeK(col, row, k);
    if (countsPair(row, col)) rsimCount(pc.stats, 1u, row + col, k > 0.0 ? 1u : 0u);
    if (rays > 0u) rsimCount(pc.stats, 2u, row + col, rays);
}

// Counts the rays that a pair's blockers answered (the listed pass, the blocker rounds).
void countAnswered(uint row, uint col, uint answered) {
    if (answered > 0u) rsimCount(pc.stats, 8u, row + col, answered);
}


