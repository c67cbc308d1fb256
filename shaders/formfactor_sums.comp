// SPDX-License-Identifier: MIT
// Energy diagnostics of K: per receiver i, sum_j min(1, K_ij A_j) (physically <= 1) and the
// number of form factors the clamp cut (MODEL.md §2).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/kread.glsl"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { FormFactorPush pc; };

void main() {
    uint i = pc.k.rowBegin + gl_GlobalInvocationID.x;
    if (i >= pc.k.rowEnd) return;
    TriangleRefs tris = TriangleRefs(pc.triangles);
    uint rows = pc.k.rowEnd - pc.k.rowBegin, col = i - pc.k.rowBegin;
    float sum = 0.0;
    uint clamped = 0u;
    for (uint j = 0u; j < pc.n; ++j) {
        float k = rsimLoadK(pc.k.data, pc.k.table, j * rows + col);
        if (k == 0.0) continue;
        float area = tris.t[j].v0Area.w;
        if (k * area > 1.0) ++clamped;
        sum += rsimFormFactor(k, area);
    }
    FloatRefs(pc.rowSums).v[i] = sum;
    rsimCount(pc.stats, 0u, i, clamped);
}
