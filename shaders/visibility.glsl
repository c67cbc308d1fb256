// SPDX-License-Identifier: MIT
// K_ij for the pairs (i, j > i) of a block of rows (MODEL.md §2). Built twice: as a compute
// shader with ray queries (RSIM_RAY_QUERY) and as a ray-generation shader.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#include "common/rsim.glsl"
#include "rsim/shared/form_factor.h"
#include "rsim/shared/kformat.h"
#ifdef RSIM_RAY_QUERY
#include "common/trace_ray_query.glsl"
layout(local_size_x = RSIM_WG_PAIRS_X) in;
#else
#include "common/trace_pipeline.glsl"
#endif
layout(push_constant) uniform Push { VisibilityPush pc; };
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

void main() {
    uint j = pc.colBegin + RSIM_LAUNCH_ID.x;
    uint i = pc.rowBegin + RSIM_LAUNCH_ID.y;
    if (i >= pc.rowEnd || j >= pc.n || j <= i) return;
    TriangleRefs tris = TriangleRefs(pc.triangles);
    GpuTriangle gi = tris.t[i];
    GpuTriangle gj = tris.t[j];
    if (!rsimCanFace(rsimTri(gi), gi.normal.xyz, rsimTri(gj), gj.normal.xyz)) return; // K = 0
    float k = 0.0;
    uint rays = 0u;
    if (pc.estimator == RSIM_K_ESTIMATOR_AREA) {
        // The former estimator: x on the triangle with the smaller stable id, both by area.
        bool iFirst = gi.meta.x < gj.meta.x;
        GpuTriangle ga = iFirst ? gi : gj;
        GpuTriangle gb = iFirst ? gj : gi;
        vec4 offset = rsimOffset4(rsimPairHash(ga.meta.x, gb.meta.x, pc.seed));
        for (uint s = 0u; s < pc.samples; ++s) {
            RaySegment seg = rsimAreaKernelSample(rsimTri(ga), ga.normal.xyz, rsimTri(gb), gb.normal.xyz,
                                                  rsimR4Point(s, offset), pc.rayEps);
            if (seg.weight <= 0.0) continue;
            ++rays;
            if (!rsimOccluded(seg)) k += seg.weight;
        }
        k /= float(pc.samples);
    } else {
        KPair pair = rsimKPair(rsimTri(gi), gi.normal.xyz, gi.v0Area.w, gi.meta.x, rsimTri(gj), gj.normal.xyz,
                               gj.v0Area.w, gj.meta.x,
                               KSampling(pc.samples, pc.nearFactor, pc.seed, pc.estimator, pc.rayEps));
        float sumFromI = 0.0, sumFromJ = 0.0;
        for (uint s = 0u; s < 2u * pair.perSide; ++s) {
            RaySegment seg = rsimKPairSample(pair, s);
            if (seg.weight <= 0.0) continue;
            ++rays;
            if (rsimOccluded(seg)) continue;
            if (s < pair.perSide)
                sumFromI += seg.weight;
            else
                sumFromJ += seg.weight;
        }
        k = rsimKPairValue(pair, sumFromI, sumFromJ);
    }
    storeK(i, j, k);
    if (pc.mirror != 0u) storeK(j, i, k);
    rsimCount(pc.stats, 0u, i + j, 1u);
    rsimCount(pc.stats, 1u, i + j, k > 0.0 ? 1u : 0u);
    rsimCount(pc.stats, 2u, i + j, rays);
}
