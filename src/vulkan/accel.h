// SPDX-License-Identifier: MIT
// What the ray passes trace against. On the ray-query and pipeline paths: one BLAS of all
// triangles (internal order, so primitive id == internal index), built for fast trace and
// compacted, and a TLAS with one instance. On the bvh path: rsim's own BVH in storage buffers
// (RayBvhHeader, gpu_layout.h).
#pragma once
#include <vector>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "rsim/shared/gpu_layout.h"
#include "vulkan/buffer.h"

namespace rsim::vk {

class Pipeline;

class SceneAccel {
public:
    // vertices: 3 per triangle.
    SceneAccel(Device& device, const std::vector<glm::vec3>& vertices);
    // The bvh path: the nodes (boxes already widened) and the leaves' triangles, three vec4 per
    // entry of the leaves' list (RayBvhHeader).
    SceneAccel(Device& device, const std::vector<shared::RayBvhNode>& nodes,
               const std::vector<glm::vec4>& leafTriangles);
    // Binds the scene at set 0, binding 0 of a pipeline that traces rays.
    void bindTo(Pipeline& pipeline) const;
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
    Buffer bvhNodes_, bvhTriangles_, bvhHeader_; // the bvh path
    VkAccelerationStructureKHR blas_ = VK_NULL_HANDLE, tlas_ = VK_NULL_HANDLE;
    std::uint64_t blasBytes_ = 0, blasUncompacted_ = 0;
};

} // namespace rsim::vk
