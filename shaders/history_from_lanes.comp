// SPDX-License-Identifier: MIT
// The B/Z history of a transport run in pose lanes (rsimLaneHistoryIndex) into the plain layout
// that the distance, pixel and signal passes and the download read (rsimHistoryIndex), one
// invocation per destination entry: the writes are contiguous, each read takes 8 bytes of a
// run of RSIM_LANES poses.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { HistoryFromLanesPush pc; };

void main() {
    // Rows of workgroups (y) when the entries exceed what one row of the dispatch holds.
    uint g = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * RSIM_WG_LINEAR + gl_LocalInvocationID.x;
    uint perPose = pc.n * pc.timesteps;
    if (g >= perPose * pc.poses) return;
    uint pose = g / perPose, rest = g % perPose;
    uint i = rest / pc.timesteps, t = rest % pc.timesteps;
    Vec2Refs(pc.destination).v[g] = Vec2Refs(pc.source).v[rsimLaneHistoryIndex(i, t, pc.timesteps, pc.n, pose)];
}
