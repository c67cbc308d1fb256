// SPDX-License-Identifier: MIT
// One timestep t = t0 + q (MODEL.md §5), SPLIT invocations per receiver and pose (receivers in
// the order of the history's layout, pose lanes or plain, so that neighbouring receivers read
// adjacent values): adds the near pairs (delay below the lists' bound, whose sources may lie
// inside the block) to the far sums of radiosity_far.comp and writes
//   B_i(t) = E_i(t) + rho_i (far + near),   Z_i(t) = R_i(t) + (far + near) / A_i.
// Each of a receiver's SPLIT invocations sums every SPLIT-th of its pairs (a step waits for the
// longest list's chain of loads; several devices' lists, up to 16 or 32 steps, are several times
// one device's), and the first adds the parts in order: the result depends on SPLIT, never on the
// device count.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/sources.glsl"
#include "rsim/shared/transport.h"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(constant_id = RSIM_SPEC_NEAR_SPLIT) const uint SPLIT = 1u;
layout(push_constant) uniform Push { RadiosityNearPush pc; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer NearPairRefs { NearPair p[]; };

shared vec2 parts[RSIM_WG_LINEAR];

void main() {
    // SPLIT divides the workgroup: a receiver's invocations are neighbours of one workgroup.
    uint g = RSIM_ROWS_INDEX(), part = g % SPLIT, local = gl_LocalInvocationID.x;
    uint r = g / SPLIT;
    bool isActive = r < pc.n * pc.poses;
    uint i = 0u, pose = 0u;
    if (pc.lanes != 0u) { // [pose block][n][lane]
        uint block = r / (pc.n * RSIM_LANES), rest = r % (pc.n * RSIM_LANES);
        i = rest / RSIM_LANES;
        pose = block * RSIM_LANES + rest % RSIM_LANES;
    } else {
        i = r % pc.n;
        pose = r / pc.n;
    }
    Vec2Refs hist = Vec2Refs(pc.history);
    vec2 near = vec2(0.0);
    if (isActive) {
        UintRefs offsets = UintRefs(pc.nearOffsets);
        NearPairRefs pairs = NearPairRefs(pc.nearPairs);
        for (uint k = offsets.v[i] + part; k < offsets.v[i + 1u]; k += SPLIT) {
            NearPair p = pairs.p[k];
            if (p.delay > pc.t) continue;
            uint at = pc.lanes != 0u ? rsimLaneHistoryIndex(p.source, pc.t - p.delay, pc.timesteps, pc.n, pose)
                                     : rsimHistoryIndex(p.source, pc.t - p.delay, pc.timesteps, pose, pc.poseStride);
            vec2 h = hist.v[at];
            near += vec2(p.coefB * h.x, p.coefZ * h.y);
        }
    }
    if (SPLIT > 1u) {
        parts[local] = near;
        barrier();
        if (part != 0u) return;
        for (uint s = 1u; s < SPLIT; ++s) near += parts[local + s];
    }
    if (!isActive) return;
    vec2 sum = Vec2Refs(pc.farSums).v[(pc.q * pc.n + i) * pc.poses + pose] + near;
    GpuTransportTri me = TransportTriRefs(pc.tris).t[pose * pc.n + i];
    float E = rsimSourceAt(me.source.y, me.source.z, pc.t, pc.pulse, pc.pulseLength);
    float R = rsimSourceAt(me.source.w, me.sensorDirDelay.w, pc.t, pc.pulse, pc.pulseLength);
    uint own = pc.lanes != 0u ? rsimLaneHistoryIndex(i, pc.t, pc.timesteps, pc.n, pose)
                              : rsimHistoryIndex(i, pc.t, pc.timesteps, pose, pc.poseStride);
    hist.v[own] = rsimRadiosityUpdate(E, R, sum.x, sum.y, me.source.x, me.centroidArea.w);
}
