// SPDX-License-Identifier: MIT
// A pixel's primary-hit record (MODEL.md §6), written by the primary rays (shaders/primary.glsl,
// or the CPU's primaryHitsCpu) and read by the pixel pass (shaders/pixels.comp, or the CPU's
// renderSensorImageCpu): (triangle, hit distance in m, direct amount, direct delay in steps).
// The triangle is the twin that faces the ray; the amount is reflectance x the light's weight at
// the hit point, 0 when its shadow ray is blocked. core/results.h PrimaryHits holds these records
// as four floats each, R per pixel ([pixel][ray]; SimConfig::primaryRaysPerPixel): ray 0 through
// the pixel's centre, and with pixel_samples P > 1 rays 1..P through uniform points of its square.
#ifndef RSIM_SHARED_PRIMARY_HIT_H
#define RSIM_SHARED_PRIMARY_HIT_H

#include "paths.h"
#include "physics.h"

RSIM_SHARED_BEGIN

// Nothing hit.
RSIM_FN vec4 rsimPrimaryMiss() { return vec4(-1.0f, 0.0f, 0.0f, 0.0f); }
// The back of a one-sided triangle: hit, but no signal.
RSIM_FN vec4 rsimPrimaryBackFace(uint triangle, float t) { return vec4(float(triangle), t, 0.0f, -1.0f); }
// A front face, with the direct term at the hit point.
RSIM_FN vec4 rsimPrimaryFront(uint triangle, float t, float amount, float delaySteps) {
    return vec4(float(triangle), t, amount, delaySteps);
}
// Twins of a two-sided surface coincide (geometry/prepare.h): a ray along `dir` that hits a
// triangle of front normal `normal` from behind sees its reversed twin `twin`, if it has one
// (RSIM_NO_TWIN: none; then it sees the back of a one-sided triangle).
RSIM_CONST uint RSIM_NO_TWIN = 0xffffffffu;
RSIM_FN bool rsimSeesTwin(vec3 normal, vec3 dir, uint twin) { return dot(normal, dir) >= 0.0f && twin != RSIM_NO_TWIN; }

// Direction of primary ray `ray` of pixel (px, py): ray 0 through the pixel's centre, ray k > 0
// through the point of the pixel's square where camera path k - 1 of the paths transport crosses
// it (rsimPixelOffset, uniform over the square).
RSIM_FN vec3 rsimPrimaryRayDirection(PinholeSensor s, uint px, uint py, uint width, uint height, uint ray, uint seed) {
    if (ray == 0u) return rsimPixelDirection(s, px, py, width, height);
    vec2 offset = rsimPixelOffset(seed, py * width + px, ray - 1u, true);
    return rsimImagePointDirection(s, vec2(float(px), float(py)) + offset, width, height);
}

RSIM_FN bool rsimPrimaryHits(vec4 r) { return r.x >= 0.0f; }
// A hit that gives the pixel a signal (a front face).
RSIM_FN bool rsimPrimarySignal(vec4 r) { return r.x >= 0.0f && r.w >= 0.0f; }
RSIM_FN uint rsimPrimaryTriangle(vec4 r) { return uint(r.x); }

RSIM_SHARED_END

#endif
