// SPDX-License-Identifier: MIT
// The `paths` transport on a Vulkan device (MODEL.md §10.2): shaders/paths.glsl traces each
// pixel's camera paths on the device's ray path (ray queries, rsim's BVH, or the RT pipeline)
// with the CPU's sampler and steps; the host estimates the pixels' outputs from the downloaded
// signals (paths/path_pixels.h), as for the CPU's paths.
#pragma once
#include <memory>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "vulkan/accel.h"
#include "vulkan/buffer.h"
#include "vulkan/device.h"
#include "vulkan/gpu_scene.h"
#include "vulkan/pipeline.h"
#include "vulkan/pipeline_warmup.h"
#include "vulkan/pose_passes.h"

namespace rsim {

// The paths pass's recipe on the device's path.
vk::PipelineRecipe pathsRecipe(vk::Device& device);

// The sensor image of `config` by path tracing on `device`; its pipeline (passes.paths) is made on
// first use, and it and the buffers (the signals, the host-visible readback) kept for the next pose.
SensorImage pathTracedImageVulkan(vk::Device& device, const GpuGeometry& scene, const GpuPose& pose,
                                  const vk::SceneAccel& accel, vk::PosePasses& passes, const PreparedScene& prepared,
                                  const SimConfig& config);

} // namespace rsim
