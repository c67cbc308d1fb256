// SPDX-License-Identifier: MIT
// Direct terms on a Vulkan device (MODEL §4): Irr_i and w_i with shadow rays; delays on the host.
#pragma once
#include "backends/vulkan_scene.h"
#include "vulkan/accel.h"

namespace rsim {

DirectTerms computeDirectVulkan(const vk::Device& device, const GpuScene& scene,
                                const vk::SceneAccel& accel, const PreparedScene& prepared,
                                const SimConfig& config);

} // namespace rsim
