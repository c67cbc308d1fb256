// SPDX-License-Identifier: MIT
// The `paths` transport's steps that do not cast rays (MODEL.md §10.2), written once for the CPU
// (src/paths/) and the shaders (shaders/paths.glsl): the camera ray through a point of the image,
// where a camera path crosses its pixel, and Russian roulette. The BSDFs, the shading frame, the
// sampler and its dimensions (RSIM_DIM_*) are in bsdf.h and bsdf_ggx.h.
#ifndef RSIM_SHARED_PATHS_H
#define RSIM_SHARED_PATHS_H

#include "bsdf.h"
#include "physics.h"

RSIM_SHARED_BEGIN

// Unit direction of the camera ray through image point `point` (pixel units, x to the right, y
// down, (0, 0) the top-left corner of the image): the pinhole of rsimPixelDirection, whose pixel
// (px, py) is the point (px + 0.5, py + 0.5).
RSIM_FN vec3 rsimImagePointDirection(PinholeSensor s, vec2 point, uint width, uint height) {
    if (s.intrinsics.x > 0.0f) return rsimLensDirection(s, point - vec2(0.5f));
    float sx = (point.x / float(width)) * 2.0f - 1.0f;
    float sy = 1.0f - (point.y / float(height)) * 2.0f;
    vec3 d = s.forward + (sx * s.tanHalfFovH) * s.right + (sy * s.tanHalfFovV) * s.up;
    return normalize(d);
}

// Where camera path `sampleIndex` of pixel `pixel` crosses its pixel, relative to the pixel's corner:
// uniform over the square (box filter) or its centre.
RSIM_FN vec2 rsimPixelOffset(uint seed, uint pixel, uint sampleIndex, bool box) {
    if (!box) return vec2(0.5f);
    return vec2(rsimPathSample(seed, pixel, sampleIndex, 0u, RSIM_DIM_PIXEL_JITTER_X),
                rsimPathSample(seed, pixel, sampleIndex, 0u, RSIM_DIM_PIXEL_JITTER_Y));
}

// Russian roulette at a path's vertex `vertex` (from RSIM_PATH_ROULETTE_FROM on): the path goes on
// with probability q = min(1, beta), its throughput then divided by q; 0 ends it.
RSIM_CONST uint RSIM_PATH_ROULETTE_FROM = 3u;
RSIM_FN float rsimRoulette(float beta, uint vertex, float u) {
    if (vertex < RSIM_PATH_ROULETTE_FROM) return beta;
    float q = min(1.0f, beta);
    return u < q ? beta / q : 0.0f;
}

RSIM_SHARED_END

#endif
