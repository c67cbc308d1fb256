// SPDX-License-Identifier: MIT
// The scene on one Vulkan device: triangle records, the light/sensor record and the pulse,
// uploaded once and shared by every GPU phase.
#pragma once
#include <vector>

#include "geometry/prepared_scene.h"
#include "pipeline/result.h"
#include "pipeline/sim_config.h"
#include "rsim/shared/gpu_layout.h"
#include "vulkan/buffer.h"

namespace rsim {

struct GpuScene {
    vk::Buffer triangles;   // GpuTriangle[n]
    vk::Buffer lightSensor; // LightSensorRecord
    vk::Buffer pulse;       // float[P]
    std::uint32_t n = 0;

    GpuScene(const vk::Device& device, const PreparedScene& scene, const SimConfig& config);
};

shared::LightSensorRecord makeLightSensorRecord(const SimConfig& config);

// Per-triangle transport records from the geometry and the direct terms.
std::vector<shared::GpuTransportTri> makeTransportRecords(const PreparedScene& scene,
                                                          const SimConfig& config,
                                                          const DirectTerms& direct);

// Splits [0, count) into launches of at most `maxPerLaunch` items; calls fn(begin, end).
template <class F> void forEachLaunch(std::uint64_t count, std::uint64_t maxPerLaunch, F&& fn) {
    for (std::uint64_t b = 0; b < count; b += maxPerLaunch)
        fn(std::uint32_t(b), std::uint32_t(std::min(count, b + maxPerLaunch)));
}

// Most items one 1-D launch may cover on this device (compute groups or ray dimensions).
std::uint64_t maxLinearLaunch(const vk::Device& device, std::uint32_t workgroupSize);

} // namespace rsim
