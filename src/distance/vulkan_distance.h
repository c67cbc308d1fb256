// SPDX-License-Identifier: MIT
// Distances on a Vulkan device (MODEL §6): per triangle from B, and the sensor image.
#pragma once
#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "vulkan/accel.h"
#include "vulkan/gpu_scene.h"

namespace rsim {

// L_i and d_i of the n triangles from the B/Z history on the device.
TriangleDistances computeTriangleDistancesVulkan(vk::Device& device, const GpuPose& pose,
                                                 const vk::Buffer& transportTris, const vk::Buffer& history,
                                                 std::uint32_t n, const SimConfig& config);

SensorImage renderSensorImageVulkan(vk::Device& device, const GpuGeometry& geometry, const GpuPose& pose,
                                    const vk::SceneAccel& accel, const vk::Buffer& transportTris,
                                    const vk::Buffer& history, const PreparedScene& prepared,
                                    const SimConfig& config);

} // namespace rsim
