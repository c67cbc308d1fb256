// SPDX-License-Identifier: MIT
// A sensor image's per-pixel outputs from each pixel's signal s(t) (MODEL.md §6, §8), on the
// host, whichever transport made the signal: the radiosity pipeline's pixel gather
// (renderSensorImageCpu) or the paths transport (paths/cpu_paths.h). One pixel's outputs touch
// that pixel's entries only, so threads may fill different pixels at once.
#pragma once
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "core/results.h"
#include "core/sim_config.h"

namespace rsim {

class CpuPixelOutputs {
  public:
    // The image's arrays for `config` (ranges NaN, amplitudes 0, no triangle), and its ray count.
    CpuPixelOutputs(const SimConfig& config, std::uint64_t rays);

    // What pixel p's central ray hits: internal triangle `triangle` at `t` metres.
    void hit(std::size_t p, std::uint32_t triangle, float t);
    // range_direct_m from the pixel's direct signal alone (an exact pure delay, so its estimate is
    // the true range up to the estimator's own error).
    void directFrom(std::size_t p, const glm::vec3& dir, const float* signal);
    // Every other output from the pixel's whole signal: the AMCW phasors and taps, its part of the
    // transient, the amplitude, the range and, with the sensor model, the noisy range (the ambient
    // light of `reflectanceSeen`). `noisy` is the caller's scratch of T values for that.
    void from(std::size_t p, const glm::vec3& dir, const float* signal, float reflectanceSeen, std::vector<float>& noisy);

    SensorImage take() { return std::move(image_); }

  private:
    void amcw(std::size_t p, const float* signal);
    // Pixel p's bins of SimConfig::transient's region from `signal` into `into`, if p is in it.
    void keepTransient(std::size_t p, const float* signal, std::vector<float>& into) const;

    const SimConfig& c_;
    SensorImage image_;
    std::size_t pixels_;
    glm::vec3 lightToSensor_;
};

} // namespace rsim
