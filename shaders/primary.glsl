// SPDX-License-Identifier: MIT
// Primary rays of the sensor image (MODEL.md §6): the first hit of each pixel's ray and the
// direct term recomputed exactly at the hit point, with its shadow ray. The pixel-signal pass
// (pixels.comp) does the rest. Built as ray-query compute and as ray generation.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/ray_pass.glsl"
#include "rsim/shared/primary_hit.h"
layout(push_constant) uniform Push { PrimaryPush pc; };

void main() {
    uint r = pc.begin + RSIM_LAUNCH_ID.x; // ray r % R of pixel r / R
    if (r >= pc.end) return;
    uint p = r / pc.raysPerPixel;
    LightSensorRecord ls = LightSensorRef(pc.lightSensor).r;
    PinholeSensor sensor = rsimSensor(ls);
    uint width = ls.image.x, height = ls.image.y;
    vec3 dir = rsimPrimaryRayDirection(sensor, p % width, p / width, width, height, r % pc.raysPerPixel, pc.seed);
    RsimHit hit = rsimClosestHit(sensor.position, dir, 0.0, 1e30);
    vec4 result = rsimPrimaryMiss(); // the record of rsim/shared/primary_hit.h
    if (hit.triangle >= 0) {
        GpuTriangle g = TriangleRefs(pc.triangles).t[hit.triangle];
        // Twins of a two-sided surface coincide: take the one that faces the sensor.
        if (rsimSeesTwin(g.normal.xyz, dir, g.meta.y)) {
            hit.triangle = int(g.meta.y);
            g = TriangleRefs(pc.triangles).t[hit.triangle];
        }
        vec3 n = g.normal.xyz;
        result = rsimPrimaryBackFace(uint(hit.triangle), hit.t);
        if (dot(n, dir) < 0.0) {
            PointLight light = rsimLight(ls);
            vec3 x = sensor.position + hit.t * dir;
            RaySegment l = rsimLightSample(light, x, n, pc.rayEps);
            float amount = 0.0;
            if (l.weight > 0.0 && !rsimOccluded(l)) amount = g.v1Rho.w * l.weight;
            result = rsimPrimaryFront(uint(hit.triangle), hit.t, amount, (length(light.position - x) + hit.t) * pc.invCdt);
        }
    }
    Vec4Refs(pc.results).v[r] = result;
}
