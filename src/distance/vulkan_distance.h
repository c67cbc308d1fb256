// SPDX-License-Identifier: MIT
// Distances on a Vulkan device (MODEL §6): per triangle from B, and the sensor image.
#pragma once
#include "backends/vulkan_scene.h"
#include "vulkan/accel.h"

namespace rsim {

// Fills result.pathLength, result.distance and result.echoesCutOff.
void computeTriangleDistancesVulkan(const vk::Device& device, const GpuScene& scene,
                                    const vk::Buffer& transportTris, const vk::Buffer& history,
                                    const SimConfig& config, SimulationResult& result);

SensorImage renderSensorImageVulkan(const vk::Device& device, const GpuScene& scene,
                                    const vk::SceneAccel& accel, const vk::Buffer& transportTris,
                                    const vk::Buffer& history, const PreparedScene& prepared,
                                    const SimConfig& config);

} // namespace rsim
