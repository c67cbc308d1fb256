// SPDX-License-Identifier: MIT
// The pinhole camera of shared::rsimPixelDirection as images.h5 describes it (MODEL.md §8), for
// every writer and API that hands out pixels: OpenCV intrinsics (pixel centres at integer
// coordinates), the camera's pose, and each pixel's ray angle to the optical axis.
#pragma once
#include <array>
#include <cstddef>
#include <vector>

#include <glm/geometric.hpp>

#include "core/sim_config.h"

namespace rsim::output {

// K, row-major 3 x 3: the lens's fx, fy, cx, cy, or without one f_x = W / (2 tan(fov_h / 2)),
// c_x = (W - 1) / 2, and the same in y.
inline std::array<double, 9> cameraMatrix(const SimConfig& c) {
    if (const glm::vec4 k = c.sensor.intrinsics; k.x > 0.0f)
        return {double(k.x), 0.0, double(k.z), 0.0, double(k.y), double(k.w), 0.0, 0.0, 1.0};
    const double W = c.width, H = c.height;
    return {W / (2.0 * double(c.sensor.tanHalfFovH)), 0.0, 0.5 * W - 0.5,
            0.0, H / (2.0 * double(c.sensor.tanHalfFovV)), 0.5 * H - 0.5,
            0.0, 0.0, 1.0};
}

// world_from_camera, row-major 4 x 4: columns right, -up, forward (OpenCV's x, y, z) and the
// sensor's position.
inline std::array<double, 16> worldFromCamera(const shared::PinholeSensor& s) {
    const glm::vec3 cols[4] = {s.right, -s.up, s.forward, s.position};
    std::array<double, 16> m{};
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 4; ++k) m[std::size_t(4 * r + k)] = double(cols[k][r]);
    m[15] = 1.0;
    return m;
}

// OpenCV's distortion coefficients k1, k2, p1, p2, k3 (zeros without a lens model).
inline std::array<double, 5> distortionCoefficients(const SimConfig& c) {
    const shared::PinholeSensor& s = c.sensor;
    return {double(s.distortion.x), double(s.distortion.y), double(s.distortion.z), double(s.distortion.w),
            double(s.distortionK3Image.x)};
}

// cos of pixel p's ray (row-major, row 0 at the top) to the optical axis.
inline float axisCosine(const SimConfig& c, std::size_t p) {
    const glm::vec3 dir = shared::rsimPixelDirection(c.sensor, std::uint32_t(p % c.width), std::uint32_t(p / c.width),
                                                     c.width, c.height);
    return glm::dot(dir, c.sensor.forward);
}

// Ranges along the pixels' rays as z-depths along the optical axis.
inline std::vector<float> alongAxis(const std::vector<float>& range, const SimConfig& c) {
    std::vector<float> z(range.size());
    for (std::size_t p = 0; p < range.size(); ++p) z[p] = range[p] * axisCosine(c, p);
    return z;
}

} // namespace rsim::output
