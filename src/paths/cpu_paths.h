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

// The sensor image of `config` by path tracing; `rays` holds the scene's triangles.
SensorImage pathTracedImageCpu(const PreparedScene& scene, const SimConfig& config, const EmbreeScene& rays);

// The camera rays and shadow rays that image will cast at most, for the log line before it: one
// centre ray and pixel_samples paths per pixel, each path at most `vertices` deep.
std::uint64_t pathRaysPerVertex(const SimConfig& config);

} // namespace rsim
