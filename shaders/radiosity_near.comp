// SPDX-License-Identifier: MIT
// One timestep t = t0 + q (MODEL.md §5), one invocation per receiver and pose (in the order of
// the history's layout, pose lanes or plain, so that a warp's lanes read adjacent values): adds the near pairs (delay < RSIM_TIME_BLOCK, whose
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
    uint g = RSIM_ROWS_INDEX();
    if (g >= pc.n * pc.poses) return;
    uint i, pose;
    if (pc.lanes != 0u) { // [pose block][n][lane]
        uint block = g / (pc.n * RSIM_LANES), rest = g % (pc.n * RSIM_LANES);
        i = rest / RSIM_LANES;
        pose = block * RSIM_LANES + rest % RSIM_LANES;
    } else {
        i = g % pc.n;
        pose = g / pc.n;
    }
    Vec2Refs hist = Vec2Refs(pc.history);
    vec2 sum = Vec2Refs(pc.farSums).v[(pc.q * pc.n + i) * pc.poses + pose];
    UintRefs offsets = UintRefs(pc.nearOffsets);
    NearPairRefs near = NearPairRefs(pc.nearPairs);
    for (uint k = offsets.v[i]; k < offsets.v[i + 1u]; ++k) {
        NearPair p = near.p[k];
        if (p.delay > pc.t) continue;
        uint at = pc.lanes != 0u ? rsimLaneHistoryIndex(p.source, pc.t - p.delay, pc.timesteps, pc.n, pose)
                                 : rsimHistoryIndex(p.source, pc.t - p.delay, pc.timesteps, pose, pc.poseStride);
        vec2 h = hist.v[at];
        sum += vec2(p.coefB * h.x, p.coefZ * h.y);
    }
    GpuTransportTri me = TransportTriRefs(pc.tris).t[pose * pc.n + i];
    float E = rsimSourceAt(me.source.y, me.source.z, pc.t, pc.pulse, pc.pulseLength);
    float R = rsimSourceAt(me.source.w, me.sensorDirDelay.w, pc.t, pc.pulse, pc.pulseLength);
    uint own = pc.lanes != 0u ? rsimLaneHistoryIndex(i, pc.t, pc.timesteps, pc.n, pose)
                              : rsimHistoryIndex(i, pc.t, pc.timesteps, pose, pc.poseStride);
    hist.v[own] = rsimRadiosityUpdate(E, R, sum.x, sum.y, me.source.x, me.centroidArea.w);
}
