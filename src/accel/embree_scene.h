// SPDX-License-Identifier: MIT
// The CPU's ray-tracing acceleration structure: one Embree BVH over all triangles in internal
// order (primitive id == internal index). Thread-safe queries, no allocation per ray.
#pragma once
#include <cstdint>

#include <embree3/rtcore.h>
#include <glm/vec3.hpp>

#include "geometry/prepared_scene.h"

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
