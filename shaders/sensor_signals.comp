// SPDX-License-Identifier: MIT
// The total sensor signal both ways (MODEL.md §5) of one pose, from the history on the device:
//   s_fwd(t) = sum_i A_i sum_u R_i(u) B_i(t - u),   s_adj(t) = sum_i A_i sum_u E_i(u) Z_i(t - u),
// over the few bins u where the sources are non-zero. One invocation per t and slice of the
// triangles (workgroup y: triangles i = slice, slice + slices, ...); compensated (Kahan) fp32
// sums over them, so that many terms lose no more than a few ulps; the host adds the slices.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/sources.glsl"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { SignalPush pc; };

// sum_u source(u) * series(t - u) of triangle i, series component `c` (0: B, 1: Z).
float convolved(uint i, float amount, float delay, uint t, int c) {
    if (amount == 0.0 || !(delay >= 0.0)) return 0.0;
    Vec2Refs hist = Vec2Refs(pc.history);
    uint u0 = uint(floor(delay));
    float sum = 0.0;
    for (uint u = u0; u <= u0 + pc.pulseLength && u <= t; ++u) {
        vec2 h = hist.v[i * pc.timesteps + (t - u)];
        sum += rsimSourceAt(amount, delay, u, pc.pulse, pc.pulseLength) * (c == 0 ? h.x : h.y);
    }
    return sum;
}

void main() {
    uint t = pc.begin + gl_GlobalInvocationID.x;
    if (t >= pc.end) return;
    TransportTriRefs tris = TransportTriRefs(pc.tris);
    precise float fwd = 0.0, fwdLost = 0.0, adj = 0.0, adjLost = 0.0;
    uint slice = gl_WorkGroupID.y;
    for (uint i = slice; i < pc.n; i += pc.slices) {
        GpuTransportTri me = tris.t[i];
        float area = me.centroidArea.w;
        // R_i: w_i at tS_i; E_i: rho_i Irr_i at tL_i.
        precise float y = area * convolved(i, me.source.w, me.sensorDirDelay.w, t, 0) - fwdLost;
        precise float sum = fwd + y;
        fwdLost = (sum - fwd) - y;
        fwd = sum;
        y = area * convolved(i, me.source.y, me.source.z, t, 1) - adjLost;
        sum = adj + y;
        adjLost = (sum - adj) - y;
        adj = sum;
    }
    Vec2Refs(pc.results).v[slice * pc.timesteps + t] = vec2(fwd, adj);
}
