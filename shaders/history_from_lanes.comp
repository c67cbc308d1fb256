// SPDX-License-Identifier: MIT
// One pose's B/Z history out of a transport run in pose lanes (rsimLaneHistoryIndex) into a
// plain vec2[n][T], which the distance, pixel and signal passes read: one invocation per entry
// of the destination (writes contiguous; each read takes 8 bytes of the pose lanes' 256-byte run,
// so a pose costs about four times its own bytes of reads).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { HistoryFromLanesPush pc; };

void main() {
    uint g = RSIM_ROWS_INDEX();
    if (g >= pc.n * pc.timesteps) return;
    uint i = g / pc.timesteps, t = g % pc.timesteps;
    Vec2Refs(pc.destination).v[g] = Vec2Refs(pc.source).v[rsimLaneHistoryIndex(i, t, pc.timesteps, pc.n, pc.pose)];
}
