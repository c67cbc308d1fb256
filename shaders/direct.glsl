// SPDX-License-Identifier: MIT
// Direct terms per triangle (MODEL.md §4): irradiance from the light and the sensor's weight,
// each from S_d samples with a shadow ray. Built as ray-query compute and as ray generation.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/ray_pass.glsl"
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
    for (uint s = 0u; s < pc.samples; ++s)
        for (uint k = 0u; k < 2u; ++k) {
            RaySegment seg = rsimDirectSample(t, n, g.meta.x, s, k == 1u, light, sensor, pc.seed, pc.rayEps);
            if (!(seg.weight > 0.0)) continue; // also NaN
            ++rays;
            if (rsimOccluded(seg)) continue;
            if (k == 1u)
                imp += seg.weight;
            else
                irr += seg.weight;
        }
    Vec2Refs(pc.results).v[i] = vec2(irr, imp) / float(pc.samples);
    rsimCount(pc.stats, 0u, i, rays);
}
