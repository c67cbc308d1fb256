// SPDX-License-Identifier: MIT
// The `paths` transport on the CPU (MODEL.md §10.2): each pixel's signal from camera paths traced
// with Embree, next-event estimation to the point light at every vertex with a non-delta lobe,
// then the same per-pixel outputs as the radiosity pipeline's image (distance/cpu_pixel_outputs.h).
// It is the reference the GPU's paths are compared with.
#pragma once
#include "accel/embree_scene.h"
#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"

namespace rsim {

// The sensor image of `config` by path tracing; `rays` holds the scene's triangles. The image's
// `rays` counts every ray cast: centre rays, path segments and shadow rays.
SensorImage pathTracedImageCpu(const PreparedScene& scene, const SimConfig& config, const EmbreeScene& rays);


} // namespace rsim
