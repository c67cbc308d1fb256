// SPDX-License-Identifier: MIT
// The CPU's ray-tracing acceleration structure: one Embree BVH over all triangles in internal
// order (primitive id == internal index). Thread-safe queries, no allocation per ray.
#pragma once
#include <cstdint>

#include <embree3/rtcore.h>
#include <glm/vec3.hpp>

#include "core/prepared_scene.h"
#include "rsim/shared/physics.h"

namespace rsim {

class EmbreeScene {
public:
    explicit EmbreeScene(const PreparedScene& scene);
    ~EmbreeScene();
    EmbreeScene(const EmbreeScene&) = delete;
    EmbreeScene& operator=(const EmbreeScene&) = delete;

    // True when anything blocks the segment origin + t dir, t in (tmin, tmax). Both sides of
    // every triangle occlude.
    bool occluded(const glm::vec3& origin, const glm::vec3& dir, float tmin, float tmax) const;

    // Occlusion of up to 16 segments at once (an Embree ray packet): coherent rays, such as the
    // samples between one pair of triangles, traverse the BVH together. occluded[k] is set for
    // k < count.
    void occluded16(const shared::RaySegment* segments, int count, bool* occluded) const;

    struct Hit {
        std::int32_t triangle = -1; // internal index, -1 for none
        float t = 0.0f;
    };
    Hit intersect(const glm::vec3& origin, const glm::vec3& dir, float tmin, float tmax) const;

    std::size_t memoryBytes() const { return bytes_; }

private:
    RTCDevice device_ = nullptr;
    RTCScene scene_ = nullptr;
    std::size_t bytes_ = 0;
};

} // namespace rsim
