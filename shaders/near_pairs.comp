// SPDX-License-Identifier: MIT
// Near-pair lists of the time-blocked transport (see RSIM_TIME_BLOCK): for each receiver i of
// one K chunk, the sources j with tau_ij < pc.nearBelow and K_ij != 0, invocation (i, workgroup
// y = b) over columns [b columns, (b + 1) columns). Pass 0 counts them, pass 1 writes them (with
// their coefficients) where the host placed the (receiver, block) from the counts.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/kread.glsl"
#include "rsim/shared/transport.h"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { NearListPush pc; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer NearPairRefs { NearPair p[]; };

void main() {
    uint i = pc.k.rowBegin + gl_GlobalInvocationID.x;
    if (i >= pc.k.rowEnd) return;
    TransportTriRefs tris = TransportTriRefs(pc.tris);
    UintRefs offsets = UintRefs(pc.nearOffsets);
    uint rows = pc.k.rowEnd - pc.k.rowBegin, col = i - pc.k.rowBegin;
    uint b = gl_WorkGroupID.y, slot = i * pc.blocks + b;
    uint j0 = b * pc.columns, j1 = min(pc.n, j0 + pc.columns);
    vec4 me = tris.t[i].centroidArea;
    uint count = 0u;
    uint out0 = pc.pass == 0u ? 0u : offsets.v[slot];
    for (uint j = j0; j < j1; ++j) {
        // The delay first: every invocation of a warp reads the same source, and few are near,
        // so K is seldom read.
        vec4 cj = tris.t[j].centroidArea;
        uint tau = rsimDelaySteps(me.xyz, cj.xyz, pc.invCdtSq);
        if (!rsimIsNearDelay(tau, pc.nearBelow)) continue;
        float k = rsimLoadKAt(pc.k.data, pc.k.table, pc.k.segments, rows, col, j);
        if (k == 0.0) continue;
        if (pc.pass == 1u) {
            vec2 f = rsimGatherCoefficients(k, me.w, cj.w, tris.t[j].extra.x);
            NearPairRefs(pc.nearPairs).p[out0 + count] = NearPair(j, tau, f.x, f.y);
        }
        ++count;
    }
    if (pc.pass == 0u) offsets.v[slot] = count;
}
