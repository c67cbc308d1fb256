// SPDX-License-Identifier: MIT
#pragma once
#include <memory>

#include "backends/backend.h"
#include "vulkan/device.h"

namespace rsim {

std::unique_ptr<Backend> makeVulkanBackendOn(std::shared_ptr<vk::Instance> instance,
                                             const vk::PhysicalDeviceInfo& info, vk::RayPath path);

} // namespace rsim
