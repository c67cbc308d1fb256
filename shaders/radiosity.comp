// SPDX-License-Identifier: MIT
// One timestep of B and Z (MODEL.md §5) for the receivers of one K chunk:
//   B_i(t) = E_i(t) + rho_i sum_j F_ij B_j(t - tau_ij)
//   Z_i(t) = R_i(t) + sum_j rho_j (A_j / A_i) F_ji Z_j(t - tau_ij)
// A workgroup is 32 receivers (x, one warp) by SPLIT slices of the sources j (y). Within a
// warp all lanes read the same source j: K[j][i..i+31] is one 128-byte line, and the histories
// B_j(t - tau), Z_j(t - tau) of one source lie a few steps apart in one row. tau is recomputed.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/sources.glsl"
layout(constant_id = 0) const uint SPLIT = 8u;
layout(local_size_x = RSIM_WG_RADIOSITY_X, local_size_y_id = 0) in;
layout(push_constant) uniform Push { RadiosityPush pc; };

shared vec2 partial[RSIM_MAX_RADIOSITY_SPLIT][RSIM_WG_RADIOSITY_X];

void main() {
    uint lane = gl_LocalInvocationID.x, slice = gl_LocalInvocationID.y;
    uint i = pc.rowBegin + gl_WorkGroupID.x * RSIM_WG_RADIOSITY_X + lane;
    bool isActive = i < pc.rowEnd;
    TransportTriRefs tris = TransportTriRefs(pc.tris);
    Vec2Refs hist = Vec2Refs(pc.history);
    vec2 sum = vec2(0.0);
    if (isActive && pc.indirect != 0u && pc.t > 0u) {
        vec4 me = tris.t[i].centroidArea;
        FloatRefs K = FloatRefs(pc.kChunk);
        uint rows = pc.rowEnd - pc.rowBegin;
        uint col = i - pc.rowBegin;
        for (uint j = slice; j < pc.n; j += SPLIT) {
            float k = K.v[j * rows + col];
            if (k == 0.0) continue;
            vec4 cj = tris.t[j].centroidArea;
            uint tau = rsimDelaySteps(me.xyz, cj.xyz, pc.invCdtSq);
            if (tau > pc.t) continue;
            vec2 h = hist.v[j * pc.timesteps + (pc.t - tau)];
            sum.x += rsimFormFactor(k, cj.w) * h.x;
            sum.y += tris.t[j].extra.x * rsimFormFactor(k, me.w) * h.y;
        }
    }
    partial[slice][lane] = sum;
    barrier();
    if (slice != 0u || !isActive) return;
    for (uint s = 1u; s < SPLIT; ++s) sum += partial[s][lane];
    GpuTransportTri me = tris.t[i];
    float E = rsimSourceAt(me.source.y, me.source.z, pc.t, pc.pulse, pc.pulseLength);
    float R = rsimSourceAt(me.source.w, me.sensorDirDelay.w, pc.t, pc.pulse, pc.pulseLength);
    hist.v[i * pc.timesteps + pc.t] =
        vec2(E + me.source.x * sum.x, R + sum.y / me.centroidArea.w);
}
