// SPDX-License-Identifier: MIT
// The scene on one Vulkan device: the triangle records (uploaded once, with the geometry) and
// the light, the sensor and the pulse (per pose). Every GPU phase reads them.
#pragma once
#include <vector>

#include "core/prepared_scene.h"
#include "core/sim_config.h"
#include "rsim/shared/gpu_layout.h"
#include "rsim/shared/shaft.h"
#include "vulkan/buffer.h"

namespace rsim {

struct GpuGeometry {
    vk::Buffer triangles; // GpuTriangle[n]
    vk::Buffer shaftNodes; // RayBvhNode[]: the shaft queries' BVH (accel/shaft_bvh.h) four wide (accel/ray_bvh.h)
    vk::Buffer shaftPrims; // uint[n]: the triangles its leaves list
    std::uint32_t n = 0;

    // `edges`: each triangle's neighbours across its edges (geometry/edge_neighbours.h), or
    // none for passes that do not trace K's rays.
    GpuGeometry(vk::Device& device, const PreparedScene& scene, const std::vector<shared::RayBvhNode>& shaftNodes,
                const std::vector<std::uint32_t>& shaftPrims, const std::vector<glm::uvec3>& edges);
};

struct GpuPose {
    vk::Buffer profile;     // the light's angular profile table, if it has one
    vk::Buffer lightSensor; // LightSensorRecord
    vk::Buffer pulse;       // float[P]

    GpuPose(vk::Device& device, const SimConfig& config);
};

shared::LightSensorRecord makeLightSensorRecord(const SimConfig& config);

} // namespace rsim
