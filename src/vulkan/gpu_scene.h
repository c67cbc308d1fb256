// SPDX-License-Identifier: MIT
// The scene on one Vulkan device: the triangle records (uploaded once, with the geometry) and
// the light, the sensor and the pulse (per pose). Every GPU phase reads them.
#pragma once
#include <vector>

#include "core/prepared_scene.h"
#include "core/sim_config.h"
#include "rsim/shared/gpu_layout.h"
#include "vulkan/buffer.h"

namespace rsim {

struct GpuGeometry {
    vk::Buffer triangles; // GpuTriangle[n]
    std::uint32_t n = 0;

    GpuGeometry(vk::Device& device, const PreparedScene& scene);
};

struct GpuPose {
    vk::Buffer lightSensor; // LightSensorRecord
    vk::Buffer pulse;       // float[P]

    GpuPose(vk::Device& device, const SimConfig& config);
};

shared::LightSensorRecord makeLightSensorRecord(const SimConfig& config);

} // namespace rsim
