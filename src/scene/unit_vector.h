// SPDX-License-Identifier: MIT
// Directions from vectors of any finite size: scaled by their largest component first, so that
// neither a tiny (1e-200) nor a huge (1e200) vector under- or overflows on the way to unit length.
#pragma once
#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

namespace rsim {

// True when v has a direction: finite and not zero.
inline bool hasDirection(const glm::dvec3& v) {
    const double m = std::max({std::abs(v.x), std::abs(v.y), std::abs(v.z)});
    return m > 0.0 && std::isfinite(m);
}

// The unit vector along v; v must have a direction (hasDirection).
inline glm::dvec3 unitOf(const glm::dvec3& v) {
    const double m = std::max({std::abs(v.x), std::abs(v.y), std::abs(v.z)});
    return glm::normalize(v / m);
}

} // namespace rsim
