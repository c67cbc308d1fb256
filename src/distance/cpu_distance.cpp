// SPDX-License-Identifier: MIT
// Distances, primary rays and the sensor image on the CPU (distance/cpu_distance.h).
#include "distance/cpu_distance.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/gtc/type_ptr.hpp>
#include <spdlog/spdlog.h>

#include "distance/cpu_pixel_outputs.h"
#include "rsim/shared/estimators.h"
#include "rsim/shared/pixel_outputs.h"
#include "rsim/shared/primary_hit.h"
#include "rsim/shared/sensor_noise.h"
#include "transport/sources.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace rsim {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

AmcwOmegas amcwOmegas(const SimConfig& c) {
    AmcwOmegas o;
    o.count = std::uint32_t(std::min<std::size_t>(c.modulationMhz.size(), shared::RSIM_MAX_FREQUENCIES));
    for (std::uint32_t k = 0; k < o.count; ++k)
        (k < 4 ? o.lo[int(k)] : o.hi[int(k - 4)]) = float(2.0 * M_PI * c.modulationMhz[k] * 1e-3 * c.dtNs);
    return o;
}

std::uint32_t sensorModeId(SensorMode mode) {
    return mode == SensorMode::Amcw ? shared::RSIM_MODE_AMCW : shared::RSIM_MODE_PULSED;
}

std::uint32_t pixelModeId(SensorMode mode) {
    return mode == SensorMode::Gated ? shared::RSIM_MODE_GATED : sensorModeId(mode);
}

// The terms past either end of s are zeros here, which leave a sum as it is: rsimMatchedFilter's
// sums in its order, with a loop over t that the compiler vectorises.
void matchedFilterAll(const float* s, std::uint32_t T, const std::vector<float>& pulse, std::vector<float>& padded,
                      std::vector<float>& m) {
    const std::size_t P = pulse.size(), U = T + P - 1;
    padded.assign(U + P - 1, 0.0f); // s at [P - 1, P - 1 + T)
    std::copy_n(s, T, padded.begin() + std::ptrdiff_t(P - 1));
    m.assign(U, 0.0f);
    for (std::size_t k = 0; k < P; ++k) {
        const float pk = pulse[k];
        const float* from = padded.data() + k;
        float* to = m.data();
        for (std::size_t u = 0; u < U; ++u) to[u] += from[u] * pk;
    }
}

double pathSteps(const float* s, std::uint32_t T, const SimConfig& c, float delaySteps, bool* cutOff, bool pixel) {
    const std::uint32_t mode = pixel ? pixelModeId(c.mode) : sensorModeId(c.mode), P = std::uint32_t(c.pulse.size());
    double steps;
    if (mode == shared::RSIM_MODE_PULSED && P > 0) {
        // rsimPulsedPeak with m computed for every t at once: the same sums, several times faster.
        thread_local std::vector<float> padded, m;
        matchedFilterAll(s, T, c.pulse, padded, m);
        auto matched = [](int t, std::uint32_t, std::uint32_t P_) { return m[std::size_t(t - 1 + int(P_))]; };
        steps = shared::rsimPathWithDelay(shared::rsimPulsedPeakOf(T, P, matched), delaySteps);
    } else {
        auto signal = [s](std::uint32_t t) { return s[t]; };
        auto pulse = [&c](std::uint32_t k) { return c.pulse[k]; };
        const AmcwOmegas w = amcwOmegas(c);
        steps = shared::rsimPathSteps(mode, T, P, w.lo, w.hi, int(w.count), glm::uvec2(c.gateStart, c.gates), delaySteps,
                                      signal, pulse);
    }
    if (cutOff) *cutOff = steps == double(shared::RSIM_ECHO_CUT_OFF);
    return steps < 0.0 ? kNaN : steps;
}

TriangleDistances computeTriangleDistances(const PreparedScene& s, const SimConfig& c, const Histories& h,
                                           const DirectTerms& direct) {
    const std::size_t n = s.size(), T = c.timesteps;
    TriangleDistances r;
    r.pathLength.assign(n, kNaN);
    r.distance.assign(n, kNaN);
    r.totalEnergy.assign(n, 0.0);
    const glm::dvec3 a = glm::dvec3(c.sensor.position) - glm::dvec3(c.light.position);
    std::vector<std::uint64_t> cut(threadCount(), 0);
    parallelFor(n, 64, [&](std::size_t begin, std::size_t end, unsigned w) {
        for (std::size_t i = begin; i < end; ++i) {
            const float* b = &h.B[i * T];
            double total = 0.0;
            for (std::size_t t = 0; t < T; ++t) total += double(b[t]);
            r.totalEnergy[i] = total;
            if (!(total > 0.0) || !(direct.importance[i] > 0.0f)) continue;
            bool cutOff = false;
            double steps = pathSteps(b, c.timesteps, c, direct.tSensor[i], &cutOff);
            cut[w] += cutOff;
            if (std::isnan(steps)) continue;
            const double L = steps * c.cdtM;
            const glm::dvec3 u = glm::normalize(glm::dvec3(s.centroid[i]) - glm::dvec3(c.sensor.position));
            r.pathLength[i] = L;
            r.distance[i] = double(shared::rsimSensorDistance(float(L), glm::vec3(a), glm::vec3(u)));
        }
    });
    for (auto v : cut) r.echoesCutOff += v;
    return r;
}

namespace {

// The primary-hit record of the ray from the sensor along `dir` (rsim/shared/primary_hit.h).
glm::vec4 primaryRecord(const PreparedScene& s, const SimConfig& c, const EmbreeScene& rays, const glm::vec3& dir) {
    const EmbreeScene::Hit hit = rays.intersect(c.sensor.position, dir, 0.0f, INFINITY);
    if (hit.triangle < 0) return shared::rsimPrimaryMiss();
    std::uint32_t i = std::uint32_t(hit.triangle);
    // Twins of a two-sided surface coincide: take the one that faces the sensor.
    if (shared::rsimSeesTwin(s.normal[i], dir, s.twin[i])) i = s.twin[i];
    if (glm::dot(s.normal[i], dir) >= 0.0f) return shared::rsimPrimaryBackFace(i, hit.t);
    // Direct term at x, delayed by light -> x -> sensor.
    const glm::vec3 x = c.sensor.position + hit.t * dir;
    const shared::RaySegment l = shared::rsimLightSample(c.light, x, s.normal[i], s.rayEps);
    const float amount =
        l.weight > 0.0f && !rays.occluded(l.origin, l.dir, l.tmin, l.tmax) ? s.reflectance[i] * l.weight : 0.0f;
    return shared::rsimPrimaryFront(i, hit.t, amount,
                                    float(c.steps(double(glm::length(c.light.position - x)) + double(hit.t))));
}

// Adds to `sig` the indirect part B_i - E_i of the triangle of the ray whose record is `hit`,
// delayed by x -> sensor.
void addRayIndirect(const glm::vec4& hit, const SimConfig& c, const Histories& r, float* sig) {
    if (!c.indirect) return;
    const std::size_t T = c.timesteps;
    const std::size_t i = shared::rsimPrimaryTriangle(hit);
    const glm::vec3 split = shared::rsimLinearSplit(float(c.steps(double(hit.y))));
    const std::size_t shift = std::size_t(split.x);
    const float* b = &r.B[i * T];
    const float* e = &r.E[i * T];
    for (std::size_t t = shift; t < T; ++t) {
        float x0 = b[t - shift] - e[t - shift];
        float x1 = t > shift ? b[t - shift - 1] - e[t - shift - 1] : 0.0f;
        sig[t] += shared::rsimDelayedValue(split, x0, x1);
    }
}

// The signal of the ray whose record is `hit` (a front face) into `sig`: the direct term at its
// hit point, delayed by light -> x -> sensor, and unless `directOnly` the indirect part.
void raySignal(const glm::vec4& hit, const SimConfig& c, const Histories& r, bool directOnly, float* sig) {
    std::fill(sig, sig + c.timesteps, 0.0f);
    if (hit.z > 0.0f) depositPulse(hit.z, hit.w, c.pulse, c.timesteps, sig);
    if (!directOnly) addRayIndirect(hit, c, r, sig);
}

// A pixel's signal into `sig` from its R primary-hit records `hits`: its centre ray's when R is
// 1, else the mean of its other rays' (pixels with area), in the order of the GPU's sum.
void pixelSignal(const glm::vec4* hits, std::uint32_t R, const SimConfig& c, const Histories& r, bool directOnly,
                 std::vector<float>& one, float* sig) {
    if (R == 1) return raySignal(hits[0], c, r, directOnly, sig);
    const std::size_t T = c.timesteps;
    std::fill(sig, sig + T, 0.0f);
    for (std::uint32_t k = 1; k < R; ++k) {
        if (!shared::rsimPrimarySignal(hits[k])) continue;
        raySignal(hits[k], c, r, directOnly, one.data());
        for (std::size_t t = 0; t < T; ++t) sig[t] += one[t];
    }
    const float inv = 1.0f / float(R - 1);
    for (std::size_t t = 0; t < T; ++t) sig[t] *= inv;
}

} // namespace

PrimaryHits primaryHitsCpu(const PreparedScene& s, const SimConfig& c, const EmbreeScene& rays) {
    const std::uint32_t R = c.primaryRaysPerPixel();
    PrimaryHits out;
    out.rays = std::uint64_t(c.width) * c.height * R;
    out.values.assign(out.rays * 4, 0.0f);
    spdlog::debug("primary rays: {} x {} pixels, {} each", c.width, c.height, R);
    Progress progress("primary rays", c.height, "rows");
    parallelFor(c.height, 1, [&](std::size_t begin, std::size_t end, unsigned) {
        for (std::size_t py = begin; py < end; ++py)
            for (std::uint32_t px = 0; px < c.width; ++px)
                for (std::uint32_t k = 0; k < R; ++k) {
                    const glm::vec3 dir =
                        shared::rsimPrimaryRayDirection(c.sensor, px, std::uint32_t(py), c.width, c.height, k, c.seed);
                    const glm::vec4 record = primaryRecord(s, c, rays, dir);
                    std::copy_n(&record.x, 4, &out.values[((py * c.width + px) * R + k) * 4]);
                }
        progress.add(end - begin);
    });
    progress.finish();
    return out;
}

SensorImage renderSensorImageCpu(const PreparedScene& s, const SimConfig& c, const PrimaryHits& hits,
                                 const Histories& r) {
    const std::size_t pixels = std::size_t(c.width) * c.height, T = c.timesteps;
    const std::uint32_t R = c.primaryRaysPerPixel();
    if (hits.values.size() != pixels * R * 4) throw Error("internal: primary hits of another image size");
    CpuPixelOutputs out(c, hits.rays);
    std::vector<std::vector<float>> scratch(threadCount(), std::vector<float>(T)),
        ones(threadCount(), std::vector<float>(R > 1 ? T : 0)),
        noisy(threadCount(), std::vector<float>(c.noise.on ? T : 0));
    Progress progress("image", c.height, "rows");
    parallelFor(c.height, 1, [&](std::size_t begin, std::size_t end, unsigned w) {
        std::vector<float>& sig = scratch[w];
        for (std::size_t py = begin; py < end; ++py)
            for (std::uint32_t px = 0; px < c.width; ++px) {
                const std::size_t p = py * c.width + px;
                const glm::vec3 dir = shared::rsimPixelDirection(c.sensor, px, std::uint32_t(py),
                                                                 c.width, c.height);
                const glm::vec4* records = reinterpret_cast<const glm::vec4*>(&hits.values[p * R * 4]);
                const glm::vec4 centre = records[0]; // rsim/shared/primary_hit.h
                float reflectanceSeen = 0.0f;
                if (shared::rsimPrimaryHits(centre)) {
                    const std::size_t i = shared::rsimPrimaryTriangle(centre);
                    out.hit(p, std::uint32_t(i), centre.y);
                    reflectanceSeen = s.reflectance[i];
                }
                // A pixel with area has a signal when any of its rays has (a front face).
                bool signal = shared::rsimPrimarySignal(centre);
                for (std::uint32_t k = 1; k < R && !signal; ++k) signal = shared::rsimPrimarySignal(records[k]);
                if (!signal) continue;
                pixelSignal(records, R, c, r, true, ones[w], sig.data());
                out.directFrom(p, dir, sig.data());
                // One ray: its direct signal is in `sig` already; several: their mean again.
                if (R == 1) addRayIndirect(centre, c, r, sig.data());
                else pixelSignal(records, R, c, r, false, ones[w], sig.data());
                out.from(p, dir, sig.data(), reflectanceSeen, noisy[w]);
            }
        progress.add(end - begin);
    });
    progress.finish();
    return out.take();
}

} // namespace rsim
