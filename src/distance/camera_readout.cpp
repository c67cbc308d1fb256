// SPDX-License-Identifier: MIT
// The camera's readout on the host (distance/camera_readout.h).
#include "distance/camera_readout.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <glm/geometric.hpp>

#include "distance/cpu_distance.h"
#include "distance/lens_scattering.h"
#include "rsim/shared/estimators.h"
#include "rsim/shared/pixel_outputs.h"
#include "rsim/shared/sensor_noise.h"
#include "util/error.h"
#include "util/parallel.h"

namespace rsim {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
// Salts of the noise draws of taps and gates (the pulsed bins use the seed as it is).
constexpr std::uint32_t kTapNoiseSalt = 0x74617073u;  // "taps"
constexpr std::uint32_t kGateNoiseSalt = 0x67617465u; // "gate"

class Readout {
  public:
    Readout(SensorImage& img, const SimConfig& c)
        : img_(img), c_(c), pixels_(std::size_t(img.width) * img.height), w_(amcwOmegas(c)),
          lightToSensor_(c.sensor.position - c.light.position), directions_(pixels_) {
        parallelFor(pixels_, 1024, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t p = begin; p < end; ++p)
                directions_[p] = shared::rsimPixelDirection(c.sensor, std::uint32_t(p % img.width),
                                                            std::uint32_t(p / img.width), img.width, img.height);
        });
        const float P = float(c.pulse.size());
        auto noSignal = [](std::uint32_t) { return 0.0f; };
        auto pulse = [&c](std::uint32_t k) { return c.pulse[k]; };
        for (std::uint32_t f = 0; f < w_.count; ++f)
            pulsePhase_[f] = shared::rsimPulsePhase(std::uint32_t(P), omega(f), noSignal, pulse);
    }

    // The lens's scattering of every raw image and amplitude; the ranges estimated again.
    void scatter() {
        img_.readout.scattered = true;
        scatterLight(img_.amplitude, img_.width, img_.height, 1, c_.scattering);
        if (c_.mode == SensorMode::Amcw) {
            scatterLight(img_.phasor, img_.width, img_.height, 2, c_.scattering);
            scatterLight(img_.taps, img_.width, img_.height, c_.taps, c_.scattering);
            for (std::size_t p = 0; p < pixels_; ++p) {
                img_.depth[p] = rangeOf(amcwSteps(p, img_.phasor.data()), p);
                for (std::uint32_t f = 0; f < w_.count; ++f)
                    img_.tapsPhase[f * pixels_ + p] = tapsPhase(f, &img_.taps[(f * pixels_ + p) * c_.taps]);
            }
        } else if (c_.mode == SensorMode::Gated) {
            scatterLight(img_.gates, img_.width, img_.height, 1, c_.scattering);
            for (std::size_t p = 0; p < pixels_; ++p) img_.depth[p] = rangeOf(gatedSteps(gatesOf(img_.gates, p)), p);
        } else {
            throw Error("internal: lens scattering of a pulsed camera's histograms");
        }
    }

    // Gated pixels whose echo came after the gates' range (their range is NaN already).
    void countOutOfRange() {
        auto& mask = img_.readout.outOfRangeMask;
        mask.assign(pixels_, 0);
        for (std::size_t p = 0; p < pixels_; ++p) {
            mask[p] = gatedSteps(gatesOf(img_.gates, p)) == shared::RSIM_GATE_OUT_OF_RANGE;
            img_.readout.outOfRange += std::uint64_t(mask[p]);
        }
    }

    // The range of each frequency's taps' phase, unwrapped to the path nearest the estimate of all
    // the frequencies' taps (with one frequency: within its ambiguity range).
    void tapsRanges() {
        auto& out = img_.readout.tapsRange;
        out.assign(std::size_t(w_.count) * pixels_, kNaN);
        forEachPixel([&](std::size_t p) {
            float phi[shared::RSIM_MAX_FREQUENCIES] = {};
            for (std::uint32_t f = 0; f < w_.count; ++f) phi[f] = img_.tapsPhase[f * pixels_ + p];
            perFrequencyRanges(phi, p, out);
        });
    }

    // Each pixel's electrons of one frame per unit of signal, and ambient electrons of a readout.
    void electrons(const PreparedScene& scene) {
        img_.readout.electronsPerUnit.assign(pixels_, 0.0f);
        img_.readout.ambientElectrons.assign(pixels_, 0.0f);
        forEachPixel([&](std::size_t p) {
            const float rho = img_.triangle[p] >= 0 ? scene.reflectance[std::size_t(img_.triangle[p])] : 0.0f;
            const glm::vec2 k = shared::rsimPixelElectrons(float(c_.noise.electronsPerUnit),
                                                           float(c_.noise.ambientPerReadout), rho,
                                                           glm::dot(direction(p), c_.sensor.forward));
            img_.readout.electronsPerUnit[p] = k.x;
            img_.readout.ambientElectrons[p] = k.y;
        });
    }

    // AMCW with the sensor model: each tap the difference of a pixel's two buckets, which split
    // the light by the correlation g in [-1, 1]: (1 + g) / 2 and (1 - g) / 2 of it, and half the
    // ambient light each. Each bucket is Poisson with its own read noise; the ambient's mean
    // cancels in the difference.
    void noisyTaps() {
        const std::uint32_t K = c_.taps;
        auto& taps = img_.readout.noisyTaps;
        taps.assign(std::size_t(w_.count) * pixels_ * K, 0.0f);
        img_.readout.noisyTapsRange.assign(std::size_t(w_.count) * pixels_, kNaN);
        img_.noisyDepth.assign(pixels_, kNaN);
        const float sigma = float(c_.noise.readSigma);
        forEachPixel([&](std::size_t p) {
            if (!(img_.amplitude[p] > 0.0f)) return;
            const float e = img_.readout.electronsPerUnit[p], halfAmbient = 0.5f * img_.readout.ambientElectrons[p];
            const float total = img_.amplitude[p] * e;
            float phi[shared::RSIM_MAX_FREQUENCIES] = {};
            for (std::uint32_t f = 0; f < w_.count; ++f) {
                float* tap = &taps[(f * pixels_ + p) * K];
                for (std::uint32_t k = 0; k < K; ++k) {
                    const float c = img_.taps[(f * pixels_ + p) * K + k] * e;
                    const std::uint32_t draw = ((f * K + k) * 2u) ^ kTapNoiseSalt;
                    const float a = shared::rsimNoisyElectrons(std::max(0.5f * (total + c), 0.0f), halfAmbient, sigma,
                                                               shared::rsimPairHash(std::uint32_t(p), draw, c_.noise.seed));
                    const float b = shared::rsimNoisyElectrons(
                        std::max(0.5f * (total - c), 0.0f), halfAmbient, sigma,
                        shared::rsimPairHash(std::uint32_t(p), draw + 1u, c_.noise.seed));
                    tap[k] = a - b;
                }
                phi[f] = tapsPhase(f, tap);
            }
            img_.noisyDepth[p] = rangeOf(perFrequencyRanges(phi, p, img_.readout.noisyTapsRange), p);
        });
    }

    // Gated with the sensor model: each gate Poisson in its signal and ambient electrons, with
    // read noise, minus the ambient's mean.
    void noisyGates() {
        const std::uint32_t G = c_.gates;
        auto& gates = img_.readout.noisyGates;
        gates.assign(std::size_t(G) * pixels_, 0.0f);
        img_.noisyDepth.assign(pixels_, kNaN);
        forEachPixel([&](std::size_t p) {
            if (!(img_.amplitude[p] > 0.0f)) return;
            const float e = img_.readout.electronsPerUnit[p], ambient = img_.readout.ambientElectrons[p];
            for (std::uint32_t k = 0; k < G; ++k)
                gates[k * pixels_ + p] = shared::rsimNoisyElectrons(
                    img_.gates[k * pixels_ + p] * e, ambient, float(c_.noise.readSigma),
                    shared::rsimPairHash(std::uint32_t(p), k ^ kGateNoiseSalt, c_.noise.seed));
            img_.noisyDepth[p] = rangeOf(gatedSteps(gatesOf(gates, p)), p);
        });
    }

  private:
    // fn(p) for every pixel, on every core: each call writes pixel p's entries alone.
    template <class Fn> void forEachPixel(Fn&& fn) const {
        parallelFor(pixels_, 1024, [&](std::size_t begin, std::size_t end, unsigned) {
            for (std::size_t p = begin; p < end; ++p) fn(p);
        });
    }
    float omega(std::uint32_t f) const { return f < 4 ? w_.lo[int(f)] : w_.hi[int(f - 4)]; }
    // Pixel p's ray (rsimPixelDirection, with its lens undistortion: worked out once a pixel).
    const glm::vec3& direction(std::size_t p) const { return directions_[p]; }
    // The sensor distance of a path of `steps` timesteps seen by pixel p (NaN for a negative
    // estimator code or NaN).
    float rangeOf(float steps, std::size_t p) const {
        if (!(steps >= 0.0f)) return kNaN;
        return shared::rsimSensorDistance(float(double(steps) * c_.cdtM), lightToSensor_, direction(p));
    }
    // Pixel p's path from the phases phi of every frequency (timesteps; returned), and each
    // frequency's path unwrapped next to it, as ranges in out[f][p] (NaN without a phase).
    float perFrequencyRanges(const float* phi, std::size_t p, std::vector<float>& out) const {
        float given[shared::RSIM_MAX_FREQUENCIES] = {};
        for (std::uint32_t f = 0; f < w_.count; ++f) {
            if (std::isnan(phi[f])) return shared::RSIM_NO_ECHO;
            given[f] = phi[f];
        }
        const float path = shared::rsimAmcwPathFromPhases(given, w_.lo, w_.hi, int(w_.count), float(c_.timesteps));
        for (std::uint32_t f = 0; f < w_.count; ++f) {
            const float U = 6.28318530718f / omega(f);
            out[f * pixels_ + p] = rangeOf(path + shared::rsimWrapSigned(phi[f] / omega(f) - path, U), p);
        }
        return path;
    }
    // The phase a K-tap camera computes from `taps` of frequency f (NaN when they are all 0).
    float tapsPhase(std::uint32_t f, const float* taps) const {
        glm::vec2 weighted(0.0f);
        bool any = false;
        for (std::uint32_t k = 0; k < c_.taps; ++k) {
            weighted += taps[k] * shared::rsimTapWeight(k, c_.taps);
            any = any || taps[k] != 0.0f;
        }
        return any ? shared::rsimTapsPhase(weighted, pulsePhase_[f]) : kNaN;
    }
    // The AMCW estimator on pixel p's phasors [F][pixels][2].
    float amcwSteps(std::size_t p, const float* phasors) const {
        float phi[shared::RSIM_MAX_FREQUENCIES] = {};
        for (std::uint32_t f = 0; f < w_.count; ++f) {
            const float x = phasors[(f * pixels_ + p) * 2], y = phasors[(f * pixels_ + p) * 2 + 1];
            if (x == 0.0f && y == 0.0f) return shared::RSIM_NO_ECHO;
            phi[f] = shared::rsimWrapPhase(-std::atan2(y, x) + pulsePhase_[f]);
        }
        return shared::rsimAmcwPathFromPhases(phi, w_.lo, w_.hi, int(w_.count), float(c_.timesteps));
    }
    glm::vec3 gatesOf(const std::vector<float>& gates, std::size_t p) const {
        glm::vec3 G(0.0f);
        for (std::uint32_t k = 0; k < c_.gates; ++k) G[int(k)] = gates[k * pixels_ + p];
        return G;
    }
    float gatedSteps(glm::vec3 G) const {
        return shared::rsimGatedFromGates(G, std::uint32_t(c_.pulse.size()), c_.gateStart, c_.gates);
    }

    SensorImage& img_;
    const SimConfig& c_;
    std::size_t pixels_;
    AmcwOmegas w_;
    glm::vec3 lightToSensor_;
    std::vector<glm::vec3> directions_;
    float pulsePhase_[shared::RSIM_MAX_FREQUENCIES] = {};
};

} // namespace

void applyCameraReadout(SensorImage& image, const SimConfig& c, const PreparedScene& scene) {
    if (image.readout.scattered) throw Error("internal: the camera readout applied twice to one image");
    image.readout = CameraReadout{};
    Readout r(image, c);
    if (c.scattering.on()) r.scatter();
    if (c.mode == SensorMode::Gated) r.countOutOfRange();
    if (c.mode == SensorMode::Amcw) r.tapsRanges();
    if (!c.noise.on) return;
    r.electrons(scene);
    if (c.mode == SensorMode::Amcw) r.noisyTaps();
    if (c.mode == SensorMode::Gated) r.noisyGates();
}

std::string outOfRangeWarning(const SensorImage& image, const SimConfig& c) {
    const std::uint64_t n = image.readout.outOfRange;
    if (n == 0) return {};
    const double rangeNs = double(c.gates - 1) * double(c.pulse.size()) * c.dtNs;
    return fmt::format("{} pixel(s) saw their echo after the gates' range (the {} ns from gate_start_ns on): their "
                       "range_m is NaN (images.h5 gated/out_of_range); a later gate_start_ns or a third gate would reach them",
                       n, rangeNs);
}

} // namespace rsim
