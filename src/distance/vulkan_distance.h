// SPDX-License-Identifier: MIT
// Distances on a Vulkan device (MODEL §6): per triangle from B, and the sensor image.
#pragma once
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "vulkan/accel.h"
#include "vulkan/gpu_scene.h"
#include "vulkan/pipeline_warmup.h"
#include "vulkan/pose_passes.h"

namespace rsim {

// One pose's B/Z history on the device (vec2[n][T], inside its batch's buffer) and its
// transport records (GpuTransportTri[n]).
struct DeviceHistoryView {
    VkDeviceAddress records = 0;
    VkDeviceAddress history = 0;
};

// The pipelines of a pose's distances and its sensor image, with the primary rays when the
// image casts them itself: for the device's warm-up (vulkan/pipeline_warmup.h).
std::vector<vk::PipelineRecipe> poseOutputRecipes(vk::Device& device, bool distances, bool image, bool primaryRays);

// L_i and d_i of the n triangles from the B/Z history on the device.
TriangleDistances computeTriangleDistancesVulkan(vk::Device& device, const GpuPose& pose, vk::PosePasses& passes,
                                                 const DeviceHistoryView& history, std::uint32_t n,
                                                 const SimConfig& config);

// s_fwd(t) and s_adj(t) (MODEL.md §5) from the B/Z history on the device.
void sensorSignalsVulkan(vk::Device& device, const GpuPose& pose, vk::PosePasses& passes,
                         const DeviceHistoryView& history, std::uint32_t n, const SimConfig& config,
                         std::vector<double>& fwd, std::vector<double>& adj);

// The primary rays' hits of the sensor image (R records per pixel, rsim/shared/primary_hit.h),
// cast through `accel` and brought to the host.
PrimaryHits primaryHitsVulkan(vk::Device& device, const GpuGeometry& geometry, const GpuPose& pose,
                              const vk::SceneAccel& accel, vk::PosePasses& passes, const PreparedScene& prepared,
                              const SimConfig& config);

// The sensor image: each pixel's primary ray (cast through `accel`, or given as `hits`, from
// another backend), then the pixel pass over the history.
SensorImage renderSensorImageVulkan(vk::Device& device, const GpuGeometry& geometry, const GpuPose& pose,
                                    const vk::SceneAccel* accel, const PrimaryHits* hits, vk::PosePasses& passes,
                                    const DeviceHistoryView& history,
                                    const PreparedScene& prepared, const SimConfig& config);

} // namespace rsim
