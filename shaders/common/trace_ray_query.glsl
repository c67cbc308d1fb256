// SPDX-License-Identifier: MIT
// Ray queries from compute shaders (GL_EXT_ray_query): RTX, AMD, Intel, lavapipe.
#extension GL_EXT_ray_query : require
layout(set = 0, binding = RSIM_BINDING_TLAS) uniform accelerationStructureEXT rsimTlas;

// Any hit in (tmin, tmax): opaque, stop at the first hit, no hit details.
bool rsimOccluded(RaySegment s) {
    rayQueryEXT q;
    rayQueryInitializeEXT(q, rsimTlas, gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT,
                          0xffu, s.origin, s.tmin, s.dir, s.tmax);
    while (rayQueryProceedEXT(q)) {
    }
    return rayQueryGetIntersectionTypeEXT(q, true) != gl_RayQueryCommittedIntersectionNoneEXT;
}

// A triangle that blocks the segment (the first the traversal accepts, not the nearest), or -1.
int rsimBlocker(RaySegment s) {
    rayQueryEXT q;
    rayQueryInitializeEXT(q, rsimTlas, gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT,
                          0xffu, s.origin, s.tmin, s.dir, s.tmax);
    while (rayQueryProceedEXT(q)) {
    }
    if (rayQueryGetIntersectionTypeEXT(q, true) == gl_RayQueryCommittedIntersectionNoneEXT) return -1;
    return rayQueryGetIntersectionPrimitiveIndexEXT(q, true);
}

RsimHit rsimClosestHit(vec3 origin, vec3 dir, float tmin, float tmax) {
    rayQueryEXT q;
    rayQueryInitializeEXT(q, rsimTlas, gl_RayFlagsOpaqueEXT, 0xffu, origin, tmin, dir, tmax);
    while (rayQueryProceedEXT(q)) {
    }
    RsimHit h = RsimHit(-1, 0.0);
    if (rayQueryGetIntersectionTypeEXT(q, true) == gl_RayQueryCommittedIntersectionTriangleEXT) {
        h.triangle = rayQueryGetIntersectionPrimitiveIndexEXT(q, true);
        h.t = rayQueryGetIntersectionTEXT(q, true);
    }
    return h;
}

#define RSIM_LAUNCH_ID gl_GlobalInvocationID
// A launch's invocations in one index, row after row.
#define RSIM_LAUNCH_INDEX (gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x)
