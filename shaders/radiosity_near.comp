// SPDX-License-Identifier: MIT
// One timestep t = t0 + q (MODEL.md §5), one invocation per receiver and pose (in the order of
// the history's layout, so that a warp's lanes read adjacent values): adds the near pairs (delay < RSIM_TIME_BLOCK, whose
// sources may lie inside the block) to the far sums of radiosity_far.comp and writes
//   B_i(t) = E_i(t) + rho_i (far + near),   Z_i(t) = R_i(t) + (far + near) / A_i.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/sources.glsl"
#include "rsim/shared/transport.h"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { RadiosityNearPush pc; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer NearPairRefs { NearPair p[]; };

void main() {
    // Rows of workgroups (y) when n * poses exceeds what one row of the dispatch holds.
    uint g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * RSIM_WG_LINEAR + gl_LocalInvocationID.x;
    if (g >= pc.n * pc.poses) return;
    uint i = g % pc.n, pose = g / pc.n;
    Vec2Refs hist = Vec2Refs(pc.history);
    vec2 sum = Vec2Refs(pc.farSums).v[(pc.q * pc.n + i) * pc.poses + pose];
    UintRefs offsets = UintRefs(pc.nearOffsets);
    NearPairRefs near = NearPairRefs(pc.nearPairs);
    for (uint k = offsets.v[i]; k < offsets.v[i + 1u]; ++k) {
        NearPair p = near.p[k];
        if (p.delay > pc.t) continue;
        vec2 h = hist.v[rsimHistoryIndex(p.source, pc.t - p.delay, pc.timesteps, pose, pc.poseStride)];
        sum += vec2(p.coefB * h.x, p.coefZ * h.y);
    }
    GpuTransportTri me = TransportTriRefs(pc.tris).t[pose * pc.n + i];
    float E = rsimSourceAt(me.source.y, me.source.z, pc.t, pc.pulse, pc.pulseLength);
    float R = rsimSourceAt(me.source.w, me.sensorDirDelay.w, pc.t, pc.pulse, pc.pulseLength);
    hist.v[rsimHistoryIndex(i, pc.t, pc.timesteps, pose, pc.poseStride)] = rsimRadiosityUpdate(E, R, sum.x, sum.y, me.source.x, me.centroidArea.w);
}
