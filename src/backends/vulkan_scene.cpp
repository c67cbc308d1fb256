// SPDX-License-Identifier: MIT
#include "backends/vulkan_scene.h"

#include <glm/geometric.hpp>

namespace rsim {

shared::LightSensorRecord makeLightSensorRecord(const SimConfig& c) {
    shared::LightSensorRecord r{};
    r.lightPosCos = glm::vec4(c.light.position, c.light.cosHalfAngle);
    r.lightDirFalloff = glm::vec4(c.light.direction, c.light.falloffExp);
    r.lightIntensity = glm::vec4(c.light.intensity, 0.0f, 0.0f, 0.0f);
    r.sensorPosTanH = glm::vec4(c.sensor.position, c.sensor.tanHalfFovH);
    r.sensorFwdTanV = glm::vec4(c.sensor.forward, c.sensor.tanHalfFovV);
    r.sensorRight = glm::vec4(c.sensor.right, 0.0f);
    r.sensorUp = glm::vec4(c.sensor.up, 0.0f);
    r.image = glm::uvec4(c.width, c.height, 0u, 0u);
    return r;
}

GpuScene::GpuScene(const vk::Device& device, const PreparedScene& s, const SimConfig& c)
    : n(std::uint32_t(s.size())) {
    std::vector<shared::GpuTriangle> tris(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        tris[i].v0Area = glm::vec4(s.v0[i], s.area[i]);
        tris[i].v1Rho = glm::vec4(s.v1[i], s.reflectance[i]);
        tris[i].v2 = glm::vec4(s.v2[i], 0.0f);
        tris[i].normal = glm::vec4(s.normal[i], 0.0f);
        tris[i].meta = glm::uvec4(s.id[i], s.twin[i], 0u, 0u);
    }
    triangles = vk::makeStorage(device, tris, "triangles");
    lightSensor = vk::makeStorage(device, std::vector<shared::LightSensorRecord>{makeLightSensorRecord(c)},
                                  "light and sensor");
    pulse = vk::makeStorage(device, c.pulse, "pulse");
}

std::vector<shared::GpuTransportTri> makeTransportRecords(const PreparedScene& s, const SimConfig& c,
                                                          const DirectTerms& d) {
    std::vector<shared::GpuTransportTri> out(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const glm::vec3 u = glm::normalize(glm::dvec3(s.centroid[i]) - glm::dvec3(c.sensor.position));
        out[i].centroidArea = glm::vec4(s.centroid[i], s.area[i]);
        out[i].source = glm::vec4(s.reflectance[i], s.reflectance[i] * d.irradiance[i],
                                  d.tLight[i], d.importance[i]);
        out[i].sensorDirDelay = glm::vec4(u, d.tSensor[i]);
        out[i].extra = glm::vec4(s.reflectance[i] * s.area[i], 0.0f, 0.0f, 0.0f);
    }
    return out;
}

std::uint64_t maxLinearLaunch(const vk::Device& device, std::uint32_t workgroupSize) {
    std::uint64_t m = std::uint64_t(device.limits().maxComputeWorkGroupCount[0]) * workgroupSize;
    if (device.rayPath() == vk::RayPath::Pipeline)
        m = std::min<std::uint64_t>(m, device.rtProperties().maxRayDispatchInvocationCount);
    return std::min<std::uint64_t>(m, 1u << 24);
}

} // namespace rsim
