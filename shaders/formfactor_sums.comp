// SPDX-License-Identifier: MIT
// Energy diagnostics of K: per receiver i, sum_j min(1, K_ij A_j) (physically <= 1) and the
// number of form factors the clamp cut (MODEL.md §2), in blocks of columns, then each row's
// blocks added (FormFactorPush in gpu_layout.h).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/kread.glsl"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { FormFactorPush pc; };

void main() {
    uint rows = pc.k.rowEnd - pc.k.rowBegin, col = gl_GlobalInvocationID.x;
    if (col >= rows) return;
    uint i = pc.k.rowBegin + col;
    FloatRefs partials = FloatRefs(pc.partials);
    if (pc.phase == RSIM_ROW_SUMS_TOTAL) {
        uint blocks = (pc.n + pc.columns - 1u) / pc.columns;
        float sum = 0.0;
        for (uint b = 0u; b < blocks; ++b) sum += partials.v[b * pc.n + i];
        FloatRefs(pc.rowSums).v[i] = sum;
        return;
    }
    TriangleRefs tris = TriangleRefs(pc.triangles);
    uint b = gl_WorkGroupID.y, j1 = min(pc.n, (b + 1u) * pc.columns);
    float sum = 0.0;
    uint clamped = 0u;
    for (uint j = b * pc.columns; j < j1; ++j) {
        float k = rsimLoadK(pc.k.data, pc.k.table, j * rows + col);
        if (k == 0.0) continue;
        float area = tris.t[j].v0Area.w;
        if (k * area > 1.0) ++clamped;
        sum += rsimFormFactor(k, area);
    }
    partials.v[b * pc.n + i] = sum;
    rsimCount(pc.stats, 0u, i, clamped);
}
