// SPDX-License-Identifier: MIT
// Direct terms on a Vulkan device (MODEL §4): Irr_i and w_i with shadow rays; delays on the host.
#pragma once
#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "vulkan/accel.h"
#include "vulkan/pose_passes.h"
#include "vulkan/gpu_scene.h"
#include "vulkan/pipeline_warmup.h"

namespace rsim {

// The direct terms' pipeline, for the device's warm-up (vulkan/pipeline_warmup.h).
vk::PipelineRecipe directRecipe(vk::Device& device);

DirectTerms computeDirectVulkan(vk::Device& device, const GpuGeometry& geometry, const GpuPose& pose,
                                const vk::SceneAccel& accel, vk::PosePasses& passes, const PreparedScene& prepared,
                                const SimConfig& config);

} // namespace rsim
