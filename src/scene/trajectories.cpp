// SPDX-License-Identifier: MIT
#include "scene/trajectories.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <glm/geometric.hpp>

#include "util/error.h"

namespace rsim {
namespace {

std::string poseName(const std::string& kind, std::size_t k) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "-%03zu", k);
    return kind + buf;
}

} // namespace

std::vector<PoseDesc> makeTrajectory(const SceneDesc& scene, glm::dvec3 lo, glm::dvec3 hi,
                                     const TrajectoryRequest& r) {
    if (r.count == 0) throw InputError("rsim poses: the count must be at least 1");
    const glm::dvec3 up = glm::normalize(scene.sensor.up);
    const glm::dvec3 eye = scene.sensorPosition();
    // The horizontal plane through the camera: two axes a, b perpendicular to up.
    glm::dvec3 view = scene.sensor.look_at - eye;
    glm::dvec3 forward = view - glm::dot(view, up) * up;
    if (glm::length(forward) < 1e-9) forward = glm::abs(up.x) < 0.9 ? glm::dvec3(1, 0, 0) : glm::dvec3(0, 1, 0);
    forward = glm::normalize(forward - glm::dot(forward, up) * up);
    const glm::dvec3 side = glm::cross(forward, up);
    const glm::dvec3 centre = 0.5 * (lo + hi);
    // The centre moved to the camera's height.
    const glm::dvec3 middle = centre + glm::dot(eye - centre, up) * up;
    // Half-extents of the bounds along the horizontal axes (a box's support).
    const glm::dvec3 half = 0.5 * (hi - lo);
    auto extentAlong = [&](glm::dvec3 d) { return glm::dot(glm::abs(d), half); };

    std::vector<PoseDesc> out;
    auto add = [&](glm::dvec3 position, glm::dvec3 lookAt) {
        PoseDesc p;
        p.name = poseName(r.kind, out.size());
        p.position = position;
        p.lookAt = lookAt;
        p.where = "rsim poses (" + p.name + ")";
        out.push_back(p);
    };
    if (r.kind == "orbit") {
        const double radius = r.radiusFraction * std::min(extentAlong(forward), extentAlong(side));
        // The first pose sits opposite the scene camera's view, so it looks the same way.
        for (std::uint32_t k = 0; k < r.count; ++k) {
            const double a = 2.0 * M_PI * double(k) / double(r.count);
            add(middle - radius * (std::cos(a) * forward + std::sin(a) * side), middle);
        }
    } else if (r.kind == "grid") {
        const double ef = 0.6 * extentAlong(forward), es = 0.6 * extentAlong(side);
        for (std::uint32_t u = 0; u < r.count; ++u)
            for (std::uint32_t v = 0; v < r.count; ++v) {
                const double fu = r.count > 1 ? 2.0 * double(u) / double(r.count - 1) - 1.0 : 0.0;
                const double fv = r.count > 1 ? 2.0 * double(v) / double(r.count - 1) - 1.0 : 0.0;
                const glm::dvec3 p = middle + fu * ef * forward + fv * es * side;
                add(p, p + forward);
            }
    } else if (r.kind == "path") {
        // The room ahead: from the camera to the bounds along `forward`.
        double ahead = INFINITY;
        for (int a = 0; a < 3; ++a) {
            if (std::abs(forward[a]) < 1e-12) continue;
            const double wall = forward[a] > 0 ? hi[a] : lo[a];
            ahead = std::min(ahead, (wall - eye[a]) / forward[a]);
        }
        if (!(ahead > 0.0) || !std::isfinite(ahead))
            throw InputError("rsim poses --path: the scene's sensor is not inside the scene's bounds");
        const double length = r.lengthFraction * ahead;
        for (std::uint32_t k = 0; k < r.count; ++k) {
            const double s = r.count > 1 ? length * double(k) / double(r.count - 1) : 0.0;
            const glm::dvec3 p = eye + s * forward;
            add(p, p + view);
        }
    } else {
        throw InputError("rsim poses: unknown trajectory \"" + r.kind + "\"; expected orbit, grid or path");
    }
    return out;
}

} // namespace rsim
