// SPDX-License-Identifier: MIT
// Direct terms per triangle (MODEL.md §4): irradiance from the light and the sensor's weight,
// each from S_d samples with a shadow ray. Built as ray-query compute and as ray generation.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#ifdef RSIM_RAY_QUERY
#include "common/trace_ray_query.glsl"
layout(local_size_x = RSIM_WG_LINEAR) in;
#else
#include "common/trace_pipeline.glsl"
#endif
layout(push_constant) uniform Push { DirectPush pc; };

void main() {
    uint i = pc.begin + RSIM_LAUNCH_ID.x;
    if (i >= pc.end) return;
    GpuTriangle g = TriangleRefs(pc.triangles).t[i];
    LightSensorRecord ls = LightSensorRef(pc.lightSensor).r;
    PointLight light = rsimLight(ls);
    PinholeSensor sensor = rsimSensor(ls);
    Tri t = rsimTri(g);
    vec3 n = g.normal.xyz;
    float irr = 0.0, imp = 0.0;
    uint rays = 0u;
    for (uint s = 0u; s < pc.samples; ++s) {
        vec3 xl = rsimDirectSamplePoint(t, g.meta.x, s, RSIM_SALT_LIGHT, pc.seed);
        RaySegment l = rsimLightSample(light, xl, n, pc.rayEps);
        if (l.weight > 0.0) {
            ++rays;
            if (!rsimOccluded(l)) irr += l.weight;
        }
        vec3 xs = rsimDirectSamplePoint(t, g.meta.x, s, RSIM_SALT_SENSOR, pc.seed);
        RaySegment v = rsimSensorSample(sensor, xs, n, pc.rayEps);
        if (v.weight > 0.0) {
            ++rays;
            if (!rsimOccluded(v)) imp += v.weight;
        }
    }
    Vec2Refs(pc.results).v[i] = vec2(irr, imp) / float(pc.samples);
    rsimCount(pc.stats, 0u, i, rays);
}
