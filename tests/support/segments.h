// SPDX-License-Identifier: MIT
// A double-precision reference for the occlusion tests: does a segment cross a triangle?
#pragma once
#include <cmath>

#include <glm/glm.hpp>

#include "rsim/shared/physics.h"

namespace rsim::test {

// Moller-Trumbore in double: does the segment a -> b cross the interior of t, at least `margin`
// inside its barycentric range (negative: the triangle grown by -margin), away from the
// segment's ends?
inline bool segmentCrosses(glm::dvec3 a, glm::dvec3 b, const shared::Tri& t, double margin) {
    const glm::dvec3 v0(t.v0), e1 = glm::dvec3(t.v1) - v0, e2 = glm::dvec3(t.v2) - v0, d = b - a;
    const glm::dvec3 p = glm::cross(d, e2);
    const double det = glm::dot(e1, p);
    if (std::abs(det) < 1e-14) return false;
    const glm::dvec3 s = a - v0;
    const double u = glm::dot(s, p) / det;
    const glm::dvec3 q = glm::cross(s, e1);
    const double v = glm::dot(d, q) / det, w = glm::dot(e2, q) / det;
    return u > margin && v > margin && u + v < 1 - margin && w > 1e-6 && w < 1 - 1e-6;
}

} // namespace rsim::test
