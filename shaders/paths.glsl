// SPDX-License-Identifier: MIT
// The `paths` transport (MODEL.md §10.2): each invocation traces the camera paths of one pixel,
// with next-event estimation to the point light at every vertex with a non-delta lobe, and
// deposits them into the pixel's signal; the host estimates the pixel's outputs from it. The
// same steps, in the same order of samples, as the CPU's paths/cpu_paths.cpp, so that both trace
// mostly the same paths. Built as ray-query compute, BVH compute and ray generation.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/ray_pass.glsl"
#include "rsim/shared/paths.h"
#include "rsim/shared/primary_hit.h"
layout(push_constant) uniform Push { PathsPush pc; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer MaterialRefs { MaterialBsdf m[]; };

// An amount deposited at fractional time t0 with the linear split and the pulse (MODEL.md §3-4),
// bins at or past T dropped: the CPU's depositPulse (transport/sources.cpp).
void deposit(uint64_t series, uint base, float amount, float t0) {
    if (amount == 0.0 || !(t0 >= 0.0)) return;
    int n = int(rsimLinearSplit(t0).x);
    int P = int(pc.pulseLength);
    FloatRefs pulse = FloatRefs(pc.pulse);
    for (int t = n; t <= n + P && t < int(pc.timesteps); ++t) {
        float p0 = (t - n) < P ? pulse.v[t - n] : 0.0;
        float p1 = (t - n - 1) >= 0 ? pulse.v[t - n - 1] : 0.0;
        FloatRefs(series).v[base + uint(t)] += rsimDeposit(amount, t0, p0, p1);
    }
}

// The triangle a ray along dir sees at its hit on `triangle`: the twin that faces it, or -1 for
// the back of a one-sided triangle.
int facing(int triangle, vec3 dir) {
    GpuTriangle g = TriangleRefs(pc.triangles).t[triangle];
    if (rsimSeesTwin(g.normal.xyz, dir, g.meta.y)) {
        triangle = int(g.meta.y);
        g = TriangleRefs(pc.triangles).t[triangle];
    }
    return dot(g.normal.xyz, dir) < 0.0 ? triangle : -1;
}

// Returns the rays it cast.
uint tracePath(uint pixel, uint sampleIndex, uint base, PinholeSensor sensor, PointLight light, uint width,
               uint height) {
    uint rays = 0u;
    vec2 offset = rsimPixelOffset(pc.seed, pixel, sampleIndex, pc.boxFilter != 0u);
    vec3 dir = rsimImagePointDirection(sensor, vec2(float(pixel % width), float(pixel / width)) + offset, width,
                                       height);
    vec3 origin = sensor.position;
    float tmin = 0.0, beta = 1.0, cameraLength = 0.0;
    float window = pc.cdt * float(pc.timesteps);
    float perPath = RSIM_PI / float(pc.perPixel);
    for (uint vertex = 1u;; ++vertex) {
        RsimHit hit = rsimClosestHit(origin, dir, tmin, 1e30);
        ++rays;
        if (hit.triangle < 0) return rays;
        int i = facing(hit.triangle, dir);
        if (i < 0) return rays; // a back face blocks and reflects nothing
        cameraLength += hit.t;
        if (cameraLength > window) return rays;
        GpuTriangle g = TriangleRefs(pc.triangles).t[i];
        vec3 x = origin + hit.t * dir, n = g.normal.xyz;
        MaterialBsdf m = MaterialRefs(pc.materials).m[g.meta.z];
        ShadingFrame frame = rsimFrameFromNormal(n);
        vec3 wo = rsimToLocal(frame, -dir);
        if (rsimHasNonDeltaLobe(m)) {
            RaySegment l = rsimLightSample(light, x, n, pc.rayEps);
            rays += l.weight > 0.0 ? 1u : 0u;
            if (l.weight > 0.0 && !rsimOccluded(l)) {
                float amount = perPath * beta * rsimBsdfEval(m, wo, rsimToLocal(frame, l.dir)) * l.weight;
                float t0 = (cameraLength + length(light.position - x)) / pc.cdt;
                if (amount > 0.0) {
                    deposit(pc.signal, base, amount, t0);
                    if (vertex == 1u) deposit(pc.direct, base, amount, t0);
                }
            }
        }
        if (pc.maxBounces > 0u && vertex >= pc.maxBounces) return rays;
        float uLobe = rsimPathSample(pc.seed, pixel, sampleIndex, vertex, RSIM_DIM_LOBE);
        float u1 = rsimPathSample(pc.seed, pixel, sampleIndex, vertex, RSIM_DIM_DIRECTION_U);
        float u2 = rsimPathSample(pc.seed, pixel, sampleIndex, vertex, RSIM_DIM_DIRECTION_V);
        BsdfSample b = rsimBsdfSample(m, wo, uLobe, u1, u2);
        if (!(b.weight > 0.0)) return rays;
        beta = rsimRoulette(beta * b.weight, vertex, rsimPathSample(pc.seed, pixel, sampleIndex, vertex, RSIM_DIM_ROULETTE));
        if (!(beta > 0.0)) return rays;
        dir = rsimToWorld(frame, b.wi);
        origin = x;
        tmin = pc.rayEps;
    }
}

void main() {
    uint p = pc.begin + RSIM_LAUNCH_ID.x;
    if (p >= pc.end) return;
    LightSensorRecord ls = LightSensorRef(pc.lightSensor).r;
    PinholeSensor sensor = rsimSensor(ls);
    PointLight light = rsimLight(ls);
    uint width = ls.image.x, height = ls.image.y;
    // The pixel's centre ray: the surface it shows, for its true range (as the primary rays').
    vec3 centre = rsimPixelDirection(sensor, p % width, p / width, width, height);
    RsimHit hit = rsimClosestHit(sensor.position, centre, 0.0, 1e30);
    // The triangle's bits, not its value as a float: exact for any triangle count.
    Vec2Refs(pc.hits).v[p - pc.first] = vec2(intBitsToFloat(hit.triangle), hit.t);
    uint base = (p - pc.first) * pc.timesteps;
    uint rays = 1u;
    for (uint j = 0u; j < pc.perPixel; ++j) rays += tracePath(p, j, base, sensor, light, width, height);
    rsimCount(pc.stats, 0u, p, rays);
}
