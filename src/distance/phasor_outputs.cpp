// SPDX-License-Identifier: MIT
// The phasors transport's per-triangle and per-pixel outputs (distance/phasor_outputs.h).
#include "distance/phasor_outputs.h"

#include <cmath>
#include <limits>

#include <glm/geometric.hpp>

#include "distance/cpu_distance.h"
#include "rsim/shared/estimators.h"
#include "rsim/shared/phasors.h"
#include "rsim/shared/pixel_outputs.h"
#include "rsim/shared/primary_hit.h"
#include "util/error.h"
#include "util/parallel.h"

namespace rsim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// exp(-j omega t) of a delay of t timesteps: exact, or in the test mode split as section 3 does.
glm::vec2 delayFactor(const SimConfig& c, float omega, float t) {
    return c.phasors.roundedDelays ? shared::rsimSplitFactor(omega, t) : shared::rsimDelayFactor(omega * t);
}

// The path in timesteps whose phases at the modulation frequencies are those of `phasor(f)`
// (f = 0.. modulations - 1) plus `delaySteps` (RSIM_NO_ECHO when one is zero).
template <class PhasorOf>
float pathFromPhasors(const AmcwOmegas& w, PhasorOf phasor, float pulsePhase[], float delaySteps, float maxSteps) {
    float phi[shared::RSIM_MAX_FREQUENCIES] = {};
    for (std::uint32_t f = 0; f < w.count; ++f) {
        const glm::vec2 ph = phasor(f);
        if (ph.x == 0.0f && ph.y == 0.0f) return shared::RSIM_NO_ECHO;
        const float omega = f < 4 ? w.lo[int(f)] : w.hi[int(f - 4)];
        phi[f] = shared::rsimPathPhase(ph, pulsePhase[f], omega, delaySteps);
    }
    return shared::rsimAmcwPathFromPhases(phi, w.lo, w.hi, int(w.count), maxSteps);
}

} // namespace

TriangleDistances phasorTriangleDistances(const PreparedScene& s, const SimConfig& c, const PhasorFrequencies& fr,
                                          const PosePhasors& x, const DirectTerms& direct) {
    const std::size_t n = s.size();
    TriangleDistances r;
    r.pathLength.assign(n, kNaN);
    r.distance.assign(n, kNaN);
    r.totalEnergy.assign(n, 0.0);
    const AmcwOmegas w = amcwOmegas(c);
    float noPulse[shared::RSIM_MAX_FREQUENCIES] = {}; // B^ holds no pulse factor
    const glm::vec3 a = c.sensor.position - c.light.position;
    parallelFor(n, 256, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t m = begin; m < end; ++m) {
            r.totalEnergy[m] = double(x.b(m, 0).x);
            if (!(r.totalEnergy[m] > 0.0) || !(direct.importance[m] > 0.0f)) continue;
            const float steps = pathFromPhasors(
                w, [&](std::uint32_t f) { return x.b(m, fr.index(f, 1)); }, noPulse, direct.tSensor[m],
                float(c.timesteps) + direct.tSensor[m]);
            if (!(steps >= 0.0f)) continue;
            const double L = double(steps) * c.cdtM;
            const glm::vec3 u = glm::normalize(s.centroid[m] - c.sensor.position);
            r.pathLength[m] = L;
            r.distance[m] = double(shared::rsimSensorDistance(float(L), a, u));
        }
    });
    return r;
}

namespace {

// A pixel's phasors (every frequency of PhasorFrequencies, the pulse's factor included) from its
// primary-hit records, with the indirect light or not.
class PixelPhasors {
  public:
    PixelPhasors(const SimConfig& c, const PhasorFrequencies& fr, const PosePhasors& x) : c_(c), fr_(fr), x_(x) {
        for (float omega : fr.omegas) {
            glm::vec2 acc(0.0f);
            for (std::size_t k = 0; k < c.pulse.size(); ++k) acc += c.pulse[k] * shared::rsimDelayFactor(omega * float(k));
            pulse_.push_back(acc);
        }
    }
    // Into `out` (one per frequency): the mean of the rays' phasors (the centre ray's when R = 1).
    void of(const glm::vec4* hits, std::uint32_t R, bool indirect, std::vector<glm::vec2>& out) const {
        const std::size_t F = fr_.omegas.size();
        out.assign(F, glm::vec2(0.0f));
        const std::uint32_t first = R == 1 ? 0 : 1;
        for (std::uint32_t k = first; k < R; ++k) {
            const glm::vec4 h = hits[k];
            if (!shared::rsimPrimarySignal(h)) continue;
            const std::size_t i = shared::rsimPrimaryTriangle(h);
            const float toSensor = float(c_.steps(double(h.y)));
            for (std::size_t f = 0; f < F; ++f) {
                const float omega = fr_.omegas[f];
                glm::vec2 v = h.z > 0.0f ? h.z * delayFactor(c_, omega, h.w) : glm::vec2(0.0f);
                if (indirect) v += shared::rsimComplexMul(x_.b(i, f) - x_.e(i, f), delayFactor(c_, omega, toSensor));
                out[f] += v;
            }
        }
        const float inv = 1.0f / float(R - first);
        for (std::size_t f = 0; f < F; ++f) out[f] = shared::rsimComplexMul(out[f] * inv, pulse_[f]);
    }
    float pulsePhase(std::size_t f) const { return std::atan2(pulse_[f].y, pulse_[f].x); }

  private:
    const SimConfig& c_;
    const PhasorFrequencies& fr_;
    const PosePhasors& x_;
    std::vector<glm::vec2> pulse_; // P^ at every frequency
};

} // namespace

SensorImage phasorImage(const SimConfig& c, const PhasorFrequencies& fr, const PosePhasors& x,
                        const PrimaryHits& hits) {
    const std::size_t pixels = std::size_t(c.width) * c.height;
    const std::uint32_t R = c.primaryRaysPerPixel(), K = c.taps, M = fr.modulations;
    if (hits.values.size() != pixels * R * 4) throw Error("internal: primary hits of another image size");
    SensorImage img;
    img.width = c.width;
    img.height = c.height;
    img.rays = hits.rays;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    img.depth.assign(pixels, nan);
    img.trueDepth.assign(pixels, nan);
    img.directDepth.assign(pixels, nan);
    img.amplitude.assign(pixels, 0.0f);
    img.triangle.assign(pixels, -1);
    img.phasor.assign(std::size_t(M) * pixels * 2, 0.0f);
    img.taps.assign(std::size_t(M) * pixels * K, 0.0f);
    img.tapsPhase.assign(std::size_t(M) * pixels, nan);
    const PixelPhasors phasorsOf(c, fr, x);
    const AmcwOmegas w = amcwOmegas(c);
    float pulsePhase[shared::RSIM_MAX_FREQUENCIES] = {};
    for (std::uint32_t f = 0; f < M && f < shared::RSIM_MAX_FREQUENCIES; ++f) pulsePhase[f] = phasorsOf.pulsePhase(1 + f);
    const glm::vec3 lightToSensor = c.sensor.position - c.light.position;
    const float maxSteps = float(c.timesteps);
    std::vector<std::vector<glm::vec2>> scratch(threadCount());
    parallelFor(pixels, 256, [&](std::size_t begin, std::size_t end, unsigned worker) {
        std::vector<glm::vec2>& S = scratch[worker];
        for (std::size_t p = begin; p < end; ++p) {
            const glm::vec4* rec = reinterpret_cast<const glm::vec4*>(&hits.values[p * R * 4]);
            if (shared::rsimPrimaryHits(rec[0])) {
                img.triangle[p] = std::int32_t(shared::rsimPrimaryTriangle(rec[0]));
                img.trueDepth[p] = rec[0].y;
            }
            bool signal = false;
            for (std::uint32_t k = 0; k < R && !signal; ++k) signal = shared::rsimPrimarySignal(rec[k]);
            if (!signal) continue;
            const glm::vec3 dir = shared::rsimPixelDirection(c.sensor, std::uint32_t(p % c.width),
                                                             std::uint32_t(p / c.width), c.width, c.height);
            auto rangeOf = [&](float steps) {
                return steps >= 0.0f ? shared::rsimSensorDistance(float(double(steps) * c.cdtM), lightToSensor, dir)
                                     : nan;
            };
            phasorsOf.of(rec, R, false, S);
            img.directDepth[p] = rangeOf(pathFromPhasors(w, [&](std::uint32_t f) { return S[fr.index(f, 1)]; },
                                                         pulsePhase, 0.0f, maxSteps));
            phasorsOf.of(rec, R, c.indirect, S);
            img.amplitude[p] = S[0].x;
            img.depth[p] = rangeOf(pathFromPhasors(w, [&](std::uint32_t f) { return S[fr.index(f, 1)]; }, pulsePhase,
                                                   0.0f, maxSteps));
            for (std::uint32_t f = 0; f < M; ++f) {
                const glm::vec2 base = S[fr.index(f, 1)];
                img.phasor[(f * pixels + p) * 2] = base.x;
                img.phasor[(f * pixels + p) * 2 + 1] = base.y;
                glm::vec2 weighted(0.0f);
                for (std::uint32_t k = 0; k < K; ++k) {
                    const float theta = shared::rsimTapPhase(k, K);
                    float tap = base.x * std::cos(theta) - base.y * std::sin(theta);
                    if (c.waveform == shared::RSIM_WAVEFORM_SQUARE) {
                        // The triangle correlation's Fourier series: (8 / pi^2) sum_odd n^-2 cos(n x).
                        double sum = 0.0;
                        for (std::uint32_t h = 1; h <= fr.harmonics; h += 2) {
                            const glm::vec2 Sn = S[fr.index(f, h)];
                            const double a = double(h) * double(theta);
                            sum += (double(Sn.x) * std::cos(a) - double(Sn.y) * std::sin(a)) / (double(h) * h);
                        }
                        tap = float(8.0 / (M_PI * M_PI) * sum);
                    }
                    img.taps[(f * pixels + p) * K + k] = tap;
                    weighted += tap * shared::rsimTapWeight(k, K);
                }
                if (base.x != 0.0f || base.y != 0.0f)
                    img.tapsPhase[f * pixels + p] = shared::rsimTapsPhase(weighted, pulsePhase[f]);
            }
        }
    });
    return img;
}

} // namespace rsim
