// SPDX-License-Identifier: MIT
// Near-pair lists of the time-blocked transport (see RSIM_TIME_BLOCK): for each receiver i of
// one K chunk, the sources j with K_ij != 0 and tau_ij < pc.nearBelow. Pass 0 counts them,
// pass 1 writes them (with their coefficients) at the offsets the host made from the counts.
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
    vec4 me = tris.t[i].centroidArea;
    uint count = 0u;
    uint out0 = pc.pass == 0u ? 0u : offsets.v[i];
    for (uint j = 0u; j < pc.n; ++j) {
        float k = rsimLoadK(pc.k.data, pc.k.table, j * rows + col);
        if (k == 0.0) continue;
        vec4 cj = tris.t[j].centroidArea;
        uint tau = rsimDelaySteps(me.xyz, cj.xyz, pc.invCdtSq);
        if (!rsimIsNearDelay(tau, pc.nearBelow)) continue;
        if (pc.pass == 1u) {
            vec2 f = rsimGatherCoefficients(k, me.w, cj.w, tris.t[j].extra.x);
            NearPairRefs(pc.nearPairs).p[out0 + count] = NearPair(j, tau, f.x, f.y);
        }
        ++count;
    }
    if (pc.pass == 0u) offsets.v[i] = count;
}
