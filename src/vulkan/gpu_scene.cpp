// SPDX-License-Identifier: MIT
#include "vulkan/gpu_scene.h"

#include <algorithm>

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
    r.sensorIntrinsics = c.sensor.intrinsics;
    r.sensorDistortion = c.sensor.distortion;
    r.sensorDistortionK3Image = c.sensor.distortionK3Image;
    // The host's table (GpuPose puts the device's copy in its place): a new table, a new pose.
    r.lightProfile = c.light.profile;
    r.lightProfileShape = c.light.profileShape;
    r.lightProfileRange = c.light.profileRange;
    r.lightProfileRight = glm::vec4(c.light.profileRight, 0.0f);
    return r;
}

namespace {

// The light's profile table on the device (an empty buffer without one).
vk::Buffer profileOnDevice(vk::Device& device, const shared::PointLight& l) {
    if (l.profile == 0) return {};
    const auto* values = reinterpret_cast<const float*>(l.profile);
    const std::size_t n = std::size_t(l.profileShape.y) * std::max(l.profileShape.z, 1u);
    return vk::makeStorage(device, std::vector<float>(values, values + n), "light profile");
}

// The pose's record, pointing at the device's profile table.
shared::LightSensorRecord recordOnDevice(const SimConfig& c, const vk::Buffer& profile) {
    shared::LightSensorRecord r = makeLightSensorRecord(c);
    r.lightProfile = c.light.profile ? profile.address() : 0;
    return r;
}

} // namespace

GpuGeometry::GpuGeometry(vk::Device& device, const PreparedScene& s, const std::vector<shared::RayBvhNode>& nodes,
                         const std::vector<std::uint32_t>& prims, const std::vector<glm::uvec3>& edges)
    : shaftNodes(vk::makeStorage(device, nodes, "shaft BVH nodes")),
      shaftPrims(vk::makeStorage(device, prims, "shaft BVH triangles")), n(std::uint32_t(s.size())) {
    std::vector<shared::GpuTriangle> tris(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        tris[i].v0Area = glm::vec4(s.v0[i], s.area[i]);
        tris[i].v1Rho = glm::vec4(s.v1[i], s.reflectance[i]);
        tris[i].v2 = glm::vec4(s.v2[i], 0.0f);
        tris[i].normal = glm::vec4(s.normal[i], 0.0f);
        tris[i].meta = glm::uvec4(s.id[i], s.twin[i], s.materialOfId[s.id[i]], 0u);
        tris[i].edges = glm::uvec4(edges.empty() ? glm::uvec3(shared::RSIM_NO_NEIGHBOUR) : edges[i],
                                   shared::RSIM_NO_NEIGHBOUR);
    }
    triangles = vk::makeStorage(device, tris, "triangles");
}

GpuPose::GpuPose(vk::Device& device, const SimConfig& c)
    : profile(profileOnDevice(device, c.light)),
      lightSensor(vk::makeStorage(device, std::vector<shared::LightSensorRecord>{recordOnDevice(c, profile)},
                                  "light and sensor")),
      pulse(vk::makeStorage(device, c.pulse, "pulse")) {}

} // namespace rsim
