// SPDX-License-Identifier: MIT
// Rays from a ray-generation shader (GL_EXT_ray_tracing), for devices with a ray-tracing
// pipeline but no ray queries (NVIDIA's driver on GPUs without ray-tracing hardware). The miss
// shader sets triangle = -1; the closest-hit shader (primary rays and rsimBlocker: pipelines
// made with it) records the hit.
#extension GL_EXT_ray_tracing : require
#include "payload.glsl"
layout(set = 0, binding = RSIM_BINDING_TLAS) uniform accelerationStructureEXT rsimTlas;
layout(location = 0) rayPayloadEXT RsimPayload rsimPayload;

bool rsimOccluded(RaySegment s) {
    rsimPayload.triangle = 0; // stays "hit" unless the miss shader runs
    traceRayEXT(rsimTlas,
                gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT |
                    gl_RayFlagsSkipClosestHitShaderEXT,
                0xffu, 0u, 0u, 0u, s.origin, s.tmin, s.dir, s.tmax, 0);
    return rsimPayload.triangle != -1;
}

// A triangle that blocks the segment (the first the traversal accepts, not the nearest), or -1:
// the closest-hit shader runs once for a blocked segment to name it.
int rsimBlocker(RaySegment s) {
    traceRayEXT(rsimTlas, gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT, 0xffu, 0u, 0u, 0u, s.origin,
                s.tmin, s.dir, s.tmax, 0);
    return rsimPayload.triangle;
}

RsimHit rsimClosestHit(vec3 origin, vec3 dir, float tmin, float tmax) {
    rsimPayload.triangle = -1;
    rsimPayload.t = 0.0;
    traceRayEXT(rsimTlas, gl_RayFlagsOpaqueEXT, 0xffu, 0u, 0u, 0u, origin, tmin, dir, tmax, 0);
    return RsimHit(rsimPayload.triangle, rsimPayload.t);
}

#define RSIM_LAUNCH_ID gl_LaunchIDEXT
// A launch's invocations in one index, row after row.
#define RSIM_LAUNCH_INDEX (gl_LaunchIDEXT.y * gl_LaunchSizeEXT.x + gl_LaunchIDEXT.x)
