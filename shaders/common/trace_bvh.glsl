// SPDX-License-Identifier: MIT
// Rays through rsim's own BVH (src/accel/ray_bvh.h, RayBvhHeader in gpu_layout.h), traversed
// by the compute shader itself: the "bvh" ray path, for devices created without the ray-tracing
// extensions (their creation takes 0.2 s less on NVIDIA's driver, and GPUs without RT cores
// traverse in software either way). A leaf's triangles are tested by rsimSegmentCrossing
// (physics.h), the test of the tiles' occluder lists.
layout(set = 0, binding = RSIM_BINDING_TLAS, std430) readonly buffer RsimRayBvh { RayBvhHeader rsimBvh; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RsimBvhNodeRefs { RayBvhNode n[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RsimBvhTriRefs { vec4 v[]; };

// The traversal (RayBvhNode): a reference is a leaf, whose triangles are tested, or a node, whose
// children's boxes are tested; of the children the segment meets the nearest is next and the
// others wait on the stack. `anyHit`: stops at the first triangle that meets the segment;
// otherwise finds the nearest. Returns the triangle's internal index (-1: none) and its distance
// in `t`.
int rsimBvhTrace(RaySegment s, bool anyHit, out float t) {
    RsimBvhNodeRefs nodes = RsimBvhNodeRefs(rsimBvh.nodes);
    RsimBvhTriRefs tris = RsimBvhTriRefs(rsimBvh.triangles);
    vec3 inv = rsimRayBvhInverse(s.dir), oinv = s.origin * inv;
    int hit = -1;
    t = s.tmax;
    uint stack[RSIM_RAY_BVH_STACK];
    uint top = 0u, ref = 0u;
    for (;;) {
        if ((ref & RSIM_RAY_BVH_LEAF) != 0u) {
            uint first = rsimRayBvhLeafFirst(ref), end = first + rsimRayBvhLeafCount(ref);
            for (uint p = first; p < end; ++p) {
                vec4 v0 = tris.v[3u * p];
                vec2 c = rsimSegmentCrossing(s, v0.xyz, tris.v[3u * p + 1u].xyz, tris.v[3u * p + 2u].xyz);
                if (rsimCrossingWithin(c, s.tmin, t)) {
                    hit = int(floatBitsToUint(v0.w));
                    t = c.x / c.y;
                    if (anyHit) return hit;
                }
            }
        } else {
            RayBvhNode node = nodes.n[ref];
            RayBvhSlabs slabs = rsimRayBvhSlabs(node, inv, oinv, s.tmin, t);
            vec4 entry = slabs.entry, exit = slabs.exit;
            uint next = RSIM_RAY_BVH_EMPTY;
            float nextEntry = 0.0;
            for (uint c = 0u; c < 4u; ++c) {
                uint r = node.child[c];
                if (r == RSIM_RAY_BVH_EMPTY || entry[c] > exit[c]) continue;
                if (next == RSIM_RAY_BVH_EMPTY || entry[c] < nextEntry) {
                    if (next != RSIM_RAY_BVH_EMPTY) stack[top++] = next;
                    next = r;
                    nextEntry = entry[c];
                } else {
                    stack[top++] = r;
                }
            }
            if (next != RSIM_RAY_BVH_EMPTY) {
                ref = next;
                continue;
            }
        }
        if (top == 0u) return hit;
        ref = stack[--top];
    }
}

// Any hit in (tmin, tmax).
bool rsimOccluded(RaySegment s) {
    float t;
    return rsimBvhTrace(s, true, t) >= 0;
}

// A triangle that blocks the segment (the first the traversal finds, not the nearest), or -1.
int rsimBlocker(RaySegment s) {
    float t;
    return rsimBvhTrace(s, true, t);
}

RsimHit rsimClosestHit(vec3 origin, vec3 dir, float tmin, float tmax) {
    RaySegment s;
    s.origin = origin;
    s.dir = dir;
    s.tmin = tmin;
    s.tmax = tmax;
    s.weight = 1.0;
    float t;
    int hit = rsimBvhTrace(s, false, t);
    return RsimHit(hit, hit >= 0 ? t : 0.0);
}

#define RSIM_LAUNCH_ID gl_GlobalInvocationID
// A launch's invocations in one index, row after row.
#define RSIM_LAUNCH_INDEX (gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x)
