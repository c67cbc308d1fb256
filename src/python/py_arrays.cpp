// SPDX-License-Identifier: MIT
#include "python/py_arrays.h"

#include <algorithm>

#include <glm/geometric.hpp>

#include "output/pixel_images.h"

namespace rsim::python {

// A pose's arrays as run() returns them: per triangle by id, the sensor signal, the histories
// on request, and every array of images.h5 under its name there (output/pixel_images.h).
std::vector<PoseArray> poseArrays(SimulationResult&& r, const PreparedScene& prepared, const SimConfig& c,
                                  bool histories) {
    const std::size_t n = prepared.size(), T = c.timesteps;
    std::vector<double> distance(n), truth(n), signal(T, 0.0);
    const glm::dvec3 eye(c.sensor.position);
    for (std::size_t id = 0; id < n; ++id) {
        const std::size_t i = prepared.internalOf[id];
        distance[id] = r.distance[i];
        truth[id] = glm::length(glm::dvec3(prepared.centroid[i]) - eye);
    }
    std::copy_n(r.signalFwd.begin(), std::min(T, r.signalFwd.size()), signal.begin());
    std::vector<PoseArray> out;
    out.push_back({"distance_m", {py::ssize_t(n)}, std::move(distance)});
    out.push_back({"true_distance_m", {py::ssize_t(n)}, std::move(truth)});
    out.push_back({"signal", {py::ssize_t(T)}, std::move(signal)});
    if (histories) {
        // B and Z [N, T] by triangle id (MODEL.md §5).
        std::vector<float> B(n * T), Z(n * T);
        for (std::size_t id = 0; id < n; ++id) {
            const std::size_t i = prepared.internalOf[id];
            std::copy_n(r.B.begin() + std::ptrdiff_t(i * T), T, B.begin() + std::ptrdiff_t(id * T));
            std::copy_n(r.Z.begin() + std::ptrdiff_t(i * T), T, Z.begin() + std::ptrdiff_t(id * T));
        }
        out.push_back({"B", {py::ssize_t(n), py::ssize_t(T)}, std::move(B)});
        out.push_back({"Z", {py::ssize_t(n), py::ssize_t(T)}, std::move(Z)});
    }
    std::vector<float> transient = std::move(r.image.transient);
    if (!r.image.depth.empty()) // [output] images = false: none
        for (output::PixelArray& a : output::pixelArrays(std::move(r.image), c, prepared)) {
            std::vector<py::ssize_t> shape(a.shape.begin(), a.shape.end());
            std::visit([&](auto& v) { out.push_back({a.name, std::move(shape), std::move(v)}); }, a.values);
        }
    if (!transient.empty()) {
        const SimConfig::Transient& tr = c.transient;
        out.push_back({"transient", {py::ssize_t(tr.h), py::ssize_t(tr.w), py::ssize_t(tr.bins)}, std::move(transient)});
    }
    return out;
}

} // namespace rsim::python
