// SPDX-License-Identifier: MIT
// What the passes that estimate K's pairs share (visibility.glsl, which traces the rays, and
// visibility_listed.comp, which tests them against the tiles' occluder lists): where K is
// stored, the listed pairs, the sampling of a pair's sides, and the counters. The includer
// declares the push constants `pc` (VisibilityPush) and defines RSIM_OCCLUDED(seg, i, j): whether
// anything occludes the segment of the pair (i, j).
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

// Adds the unoccluded weights of samples [s0, s1) of both sides of the pair (i, j), which takes
// perSide samples per side (rsimKSamplesPerSide: which of the row's points it uses), and counts
// the rays. The triangles are read again for every sample rather than held in registers across
// the rays: on a ray-tracing pipeline, what lives across traceRayEXT is spilled, and fewer live
// values leave more threads to hide the traversal's latency.
vec2 castSides(uint i, uint j, uint s0, uint s1, uint perSide, bool shareVertex, inout uint rays) {
    vec2 sums = vec2(0.0);
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
            if (!RSIM_OCCLUDED(seg, i, j)) sums[side] += seg.weight;
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

layout(buffer_reference, std430, buffer_reference_align = 16) buffer FacingListRef {
    FacingListHeader header;
    uvec2 pairs[];
};

