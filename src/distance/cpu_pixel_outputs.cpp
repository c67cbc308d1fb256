// SPDX-License-Identifier: MIT
// The per-pixel outputs of a sensor image on the host (distance/cpu_pixel_outputs.h).
#include "distance/cpu_pixel_outputs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/geometric.hpp>

#include "distance/cpu_distance.h"
#include "rsim/shared/estimators.h"
#include "rsim/shared/pixel_outputs.h"
#include "rsim/shared/sensor_noise.h"

namespace rsim {

CpuPixelOutputs::CpuPixelOutputs(const SimConfig& c, std::uint64_t rays)
    : c_(c), pixels_(std::size_t(c.width) * c.height), lightToSensor_(c.sensor.position - c.light.position) {
    SensorImage& img = image_;
    img.width = c.width;
    img.height = c.height;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    img.depth.assign(pixels_, nan);
    img.trueDepth.assign(pixels_, nan);
    img.directDepth.assign(pixels_, nan);
    if (pulsedNoise(c)) img.noisyDepth.assign(pixels_, nan);
    if (c.mode == SensorMode::Gated) img.gates.assign(std::size_t(c.gates) * pixels_, 0.0f);
    img.amplitude.assign(pixels_, 0.0f);
    img.triangle.assign(pixels_, -1);
    const std::size_t F = c.mode == SensorMode::Amcw ? amcwOmegas(c).count : 0;
    img.phasor.assign(F * pixels_ * 2, 0.0f);
    img.taps.assign(F * pixels_ * c.taps, 0.0f);
    img.tapsPhase.assign(F * pixels_, nan);
    const SimConfig::Transient& tr = c.transient;
    img.transient.assign(std::size_t(tr.w) * tr.h * tr.bins, 0.0f);
    if (tr.direct) img.directTransient.assign(img.transient.size(), 0.0f);
    img.rays = rays;
}

void CpuPixelOutputs::hit(std::size_t p, std::uint32_t triangle, float t) {
    image_.triangle[p] = std::int32_t(triangle);
    image_.trueDepth[p] = t;
}

void CpuPixelOutputs::keepTransient(std::size_t p, const float* sig, std::vector<float>& into) const {
    const SimConfig::Transient& tr = c_.transient;
    const std::size_t px = p % c_.width, py = p / c_.width;
    if (px >= tr.x0 && px < tr.x0 + tr.w && py >= tr.y0 && py < tr.y0 + tr.h)
        std::copy_n(sig + tr.start, tr.bins, into.begin() + std::ptrdiff_t(((py - tr.y0) * tr.w + (px - tr.x0)) * tr.bins));
}

void CpuPixelOutputs::directFrom(std::size_t p, const glm::vec3& dir, const float* sig) {
    if (c_.transient.direct) keepTransient(p, sig, image_.directTransient);
    if (const double direct = pathSteps(sig, c_.timesteps, c_, 0.0f, nullptr, true); !std::isnan(direct))
        image_.directDepth[p] = shared::rsimSensorDistance(float(direct * c_.cdtM), lightToSensor_, dir);
}

void CpuPixelOutputs::from(std::size_t p, const glm::vec3& dir, const float* sig, float reflectanceSeen,
                           std::vector<float>& noisy) {
    const SimConfig& c = c_;
    const std::size_t T = c.timesteps;
    if (c.mode == SensorMode::Amcw) amcw(p, sig);
    if (c.mode == SensorMode::Gated) {
        auto signal = [sig](std::uint32_t t) { return sig[t]; };
        auto pulse = [&c](std::uint32_t k) { return c.pulse[k]; };
        const glm::vec3 G = shared::rsimGateSums(c.timesteps, std::uint32_t(c.pulse.size()), c.gateStart, c.gates,
                                                 signal, pulse);
        for (std::uint32_t k = 0; k < c.gates; ++k) image_.gates[k * pixels_ + p] = G[int(k)];
    }
    keepTransient(p, sig, image_.transient);
    double amp = 0.0;
    for (std::size_t t = 0; t < T; ++t) amp += double(sig[t]);
    image_.amplitude[p] = float(amp);
    const double steps = pathSteps(sig, c.timesteps, c, 0.0f, nullptr, true);
    if (!std::isnan(steps)) image_.depth[p] = shared::rsimSensorDistance(float(steps * c.cdtM), lightToSensor_, dir);
    if (!pulsedNoise(c)) return;
    // The sensor model: the signal as electrons, drawn bin by bin (sensor_noise.h).
    const glm::vec2 k = shared::rsimPixelElectrons(c.noise.electronsPerUnit, c.noise.ambientPerReadout,
                                                   reflectanceSeen, glm::dot(dir, c.sensor.forward));
    noisy.resize(T);
    for (std::size_t t = 0; t < T; ++t)
        noisy[t] = shared::rsimNoisyElectrons(sig[t] * k.x, k.y, float(c.noise.readSigma),
                                              shared::rsimPairHash(std::uint32_t(p), std::uint32_t(t), c.noise.seed)) /
                   k.x;
    const double noisySteps = pathSteps(noisy.data(), c.timesteps, c, 0.0f, nullptr, true);
    if (!std::isnan(noisySteps))
        image_.noisyDepth[p] = shared::rsimSensorDistance(float(noisySteps * c.cdtM), lightToSensor_, dir);
}

// Pixel p's AMCW phasors, taps and taps' phase per frequency (MODEL.md §8) from its signal.
void CpuPixelOutputs::amcw(std::size_t p, const float* sig) {
    const SimConfig& c = c_;
    auto signal = [sig](std::uint32_t t) { return sig[t]; };
    auto pulse = [&c](std::uint32_t k) { return c.pulse[k]; };
    const AmcwOmegas w = amcwOmegas(c);
    const std::uint32_t K = c.taps, P = std::uint32_t(c.pulse.size());
    SensorImage& img = image_;
    for (std::uint32_t f = 0; f < w.count; ++f) {
        const float omega = f < 4 ? w.lo[int(f)] : w.hi[int(f - 4)];
        const glm::vec2 ph = shared::rsimPhasor(c.timesteps, omega, signal, pulse);
        img.phasor[(f * pixels_ + p) * 2] = ph.x;
        img.phasor[(f * pixels_ + p) * 2 + 1] = ph.y;
        glm::vec2 weighted(0.0f);
        for (std::uint32_t k = 0; k < K; ++k) {
            const float tap = shared::rsimTap(c.timesteps, omega, c.waveform, k, K, ph, signal, pulse);
            img.taps[(f * pixels_ + p) * K + k] = tap;
            weighted += tap * shared::rsimTapWeight(k, K);
        }
        if (ph.x != 0.0f || ph.y != 0.0f)
            img.tapsPhase[f * pixels_ + p] = shared::rsimTapsPhase(weighted, shared::rsimPulsePhase(P, omega, signal, pulse));
    }
}

} // namespace rsim
