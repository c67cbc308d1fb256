// SPDX-License-Identifier: MIT
// A path-traced pixel's outputs from its signal, on the host, for every backend's paths: what its
// centre ray shows (the true range, triangle and ambient reflectance, as the radiosity pipeline's
// primary ray) and the estimates of distance/cpu_pixel_outputs.h from its signals.
#pragma once
#include <cstdint>
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "distance/cpu_pixel_outputs.h"

namespace rsim {

class PathPixels {
  public:
    PathPixels(const PreparedScene& scene, const SimConfig& config);

    // The triangle a ray along `dir` sees at its hit on `triangle`: the twin that faces it, or -1
    // for the back of a one-sided triangle.
    std::int64_t facing(std::uint32_t triangle, const glm::vec3& dir) const;

    // Pixel p from its centre ray's hit (`hitTriangle` -1: none) and its paths' signal `total`
    // and first vertices' part `direct` (T values each). `noisy`: the caller's scratch.
    void finish(std::size_t p, std::int64_t hitTriangle, float hitT, const float* total, const float* direct,
                std::vector<float>& noisy);

    SensorImage take() { return out_.take(); }

  private:
    const PreparedScene& s_;
    const SimConfig& c_;
    CpuPixelOutputs out_;
};

} // namespace rsim
