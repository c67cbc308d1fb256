// SPDX-License-Identifier: MIT
#pragma once
#include <memory>
#include <vector>

#include "backends/backend.h"
#include "k/k_plan.h"
#include "transport/vulkan_transport.h"
#include "vulkan/device.h"

namespace rsim {

// A Vulkan backend on the listed devices (a physical device may appear more than once: each
// entry gets its own VkDevice). Without `rays` its devices have no ray tracing, and it runs the
// transport, the signals and the distances only (pipeline/host_rays.h). Without
// `transferQueues` its devices copy on their compute queues (backends/backend_choice.h).
std::unique_ptr<Backend> makeVulkanBackendOn(std::shared_ptr<vk::Instance> instance,
                                             const std::vector<const vk::PhysicalDeviceInfo*>& infos,
                                             vk::RayPath path, StreamMode stream, std::uint64_t maxDeviceBytes,
                                             std::uint64_t maxHostBytes, const TransportTuning& tuning, bool rays = true,
                                             bool transferQueues = true);

} // namespace rsim
