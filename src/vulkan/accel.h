// SPDX-License-Identifier: MIT
// Acceleration structures: one BLAS of all triangles (internal order, so primitive id ==
// internal index), built for fast trace and compacted, and a TLAS with one instance.
#pragma once
#include <vector>

#include <glm/vec3.hpp>

#include "vulkan/buffer.h"

namespace rsim::vk {

class SceneAccel {
public:
    // vertices: 3 per triangle.
    SceneAccel(Device& device, const std::vector<glm::vec3>& vertices);
    ~SceneAccel();
    SceneAccel(const SceneAccel&) = delete;
    SceneAccel& operator=(const SceneAccel&) = delete;

    VkAccelerationStructureKHR tlas() const { return tlas_; }
    std::uint64_t blasBytes() const { return blasBytes_; }
    std::uint64_t blasBytesBeforeCompaction() const { return blasUncompacted_; }
    std::uint64_t tlasBytes() const { return tlasBuffer_.size(); }

private:
    Device& device_;
    Buffer blasBuffer_, tlasBuffer_;
    VkAccelerationStructureKHR blas_ = VK_NULL_HANDLE, tlas_ = VK_NULL_HANDLE;
    std::uint64_t blasBytes_ = 0, blasUncompacted_ = 0;
};

} // namespace rsim::vk
