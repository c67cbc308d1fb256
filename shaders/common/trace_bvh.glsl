// SPDX-License-Identifier: MIT
// Rays through rsim's own BVH (src/accel/shaft_bvh.h, RayBvhHeader in gpu_layout.h), traversed
// by the compute shader itself: the "bvh" ray path, for devices created without the ray-tracing
// extensions (their creation takes 0.2 s less on NVIDIA's driver, and GPUs without RT cores
// traverse in software either way). A leaf's triangles are tested by rsimSegmentCrossing
// (physics.h), the test of the tiles' occluder lists.
#include "rsim/shared/shaft.h"
layout(set = 0, binding = RSIM_BINDING_TLAS, std430) readonly buffer RsimRayBvh { RayBvhHeader rsimBvh; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RsimBvhNodeRefs { ShaftBvhNode n[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RsimBvhTriRefs { vec4 v[]; };

const float RSIM_BVH_MISS = 3.0e38;

// Where the segment [tmin, tmax] enters the node's box, or RSIM_BVH_MISS when it does not meet it.
float rsimBvhEntry(ShaftBvhNode node, vec3 origin, vec3 inv, float tmin, float tmax) {
    vec3 a = (node.loIndex.xyz - origin) * inv, b = (node.hiCount.xyz - origin) * inv;
    vec3 near = min(a, b), far = max(a, b);
    float t0 = max(max(near.x, near.y), max(near.z, tmin));
    float t1 = min(min(far.x, far.y), min(far.z, tmax));
    return t0 <= t1 ? t0 : RSIM_BVH_MISS;
}

// The traversal: the nearer child first, the other on the stack. `anyHit`: stops at the first
// triangle that meets the segment; otherwise finds the nearest. Returns the triangle's internal
// index (-1: none) and its distance in `t`.
int rsimBvhTrace(RaySegment s, bool anyHit, out float t) {
    RsimBvhNodeRefs nodes = RsimBvhNodeRefs(rsimBvh.nodes);
    RsimBvhTriRefs tris = RsimBvhTriRefs(rsimBvh.triangles);
    // A zero component would give 0 * inf = NaN in the slab test; a tiny one gives the same verdict.
    vec3 d = s.dir;
    vec3 inv = 1.0 / mix(d, mix(vec3(1e-30), vec3(-1e-30), lessThan(d, vec3(0.0))), lessThan(abs(d), vec3(1e-30)));
    int hit = -1;
    t = s.tmax;
    uint stack[RSIM_SHAFT_BVH_MAX_DEPTH + 1u];
    uint top = 0u, k = 0u;
    ShaftBvhNode node = nodes.n[0];
    if (rsimBvhEntry(node, s.origin, inv, s.tmin, t) == RSIM_BVH_MISS) return -1;
    for (;;) {
        uint index = floatBitsToUint(node.loIndex.w), count = floatBitsToUint(node.hiCount.w);
        if (count == 0u) { // children k + 1 and index
            ShaftBvhNode a = nodes.n[k + 1u], b = nodes.n[index];
            float ta = rsimBvhEntry(a, s.origin, inv, s.tmin, t), tb = rsimBvhEntry(b, s.origin, inv, s.tmin, t);
            bool hitA = ta != RSIM_BVH_MISS, hitB = tb != RSIM_BVH_MISS;
            if (hitA && hitB) {
                bool aFirst = ta <= tb;
                stack[top++] = aFirst ? index : k + 1u;
                k = aFirst ? k + 1u : index;
                node = aFirst ? a : b;
                continue;
            }
            if (hitA || hitB) {
                k = hitA ? k + 1u : index;
                node = hitA ? a : b;
                continue;
            }
        } else {
            for (uint p = index; p < index + count; ++p) {
                vec4 v0 = tris.v[3u * p];
                vec2 c = rsimSegmentCrossing(s, v0.xyz, tris.v[3u * p + 1u].xyz, tris.v[3u * p + 2u].xyz);
                if (rsimCrossingWithin(c, s.tmin, t)) {
                    hit = int(floatBitsToUint(v0.w));
                    t = c.x / c.y;
                    if (anyHit) return hit;
                }
            }
        }
        // The next node on the stack that the segment, shortened by the nearest hit so far, still meets.
        for (;;) {
            if (top == 0u) return hit;
            k = stack[--top];
            node = nodes.n[k];
            if (anyHit || rsimBvhEntry(node, s.origin, inv, s.tmin, t) != RSIM_BVH_MISS) break;
        }
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
