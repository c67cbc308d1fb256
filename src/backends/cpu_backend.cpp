// SPDX-License-Identifier: MIT
// The CPU reference: MODEL.md §1-6 with Embree rays, on all cores. Clarity first; it is the
// oracle every other backend is tested against.
#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "compress/host_k.h"
#include "util/error.h"

#include "accel/embree_scene.h"
#include "backends/backend.h"
#include "direct/direct_terms.h"
#include "distance/estimators.h"
#include "transport/cpu_transport.h"
#include "transport/sources.h"
#include "util/parallel.h"
#include "visibility/cpu_visibility.h"

namespace rsim {

void checkDirectTerms(const DirectTerms& d, const SimConfig& c) {
    auto anyPositive = [](const std::vector<float>& v) {
        for (float x : v)
            if (x > 0.0f) return true;
        return false;
    };
    const glm::vec3 p = c.light.position, dir = c.light.direction;
    if (!anyPositive(d.irradiance))
        throw InputError(fmt::format(
            "the light at ({}, {}, {}) reaches no triangle: every triangle is outside its cone "
            "(half-angle {:.1f} deg around ({:.3f}, {:.3f}, {:.3f})), faces away from it, or is "
            "shadowed. Check [light] position, direction and half_angle_deg.",
            p.x, p.y, p.z, std::acos(double(std::max(-1.0f, c.light.cosHalfAngle))) * 180.0 / M_PI, dir.x,
            dir.y, dir.z));
    const glm::vec3 q = c.sensor.position, f = c.sensor.forward;
    if (!anyPositive(d.importance))
        throw InputError(fmt::format(
            "the sensor at ({}, {}, {}) looking along ({:.3f}, {:.3f}, {:.3f}) sees no triangle: "
            "none is inside its field of view and facing it. Check [sensor] position, look_at "
            "and fov_deg.",
            q.x, q.y, q.z, f.x, f.y, f.z));

    // Light reaches triangle i no earlier than tL_i (bin floor(tL_i)), directly or by way of
    // other triangles, and only after it has reached some lit triangle. When that is past the
    // window for every triangle the sensor sees, every distance would be NaN.
    double firstLit = INFINITY, firstSeen = INFINITY, firstLitSeen = INFINITY;
    for (std::size_t i = 0; i < d.tLight.size(); ++i) {
        const double t = std::floor(double(d.tLight[i]));
        const bool lit = d.irradiance[i] > 0.0f, seen = d.importance[i] > 0.0f;
        if (lit) firstLit = std::min(firstLit, t);
        if (seen) firstSeen = std::min(firstSeen, t);
        if (lit && seen) firstLitSeen = std::min(firstLitSeen, t);
    }
    const double first = c.indirect ? std::max(firstLit, firstSeen) : firstLitSeen;
    if (std::isfinite(first) && first >= double(c.timesteps)) {
        // rsimPulsedPeak needs the peak (at most one bin after `first`, the linear split) plus
        // the centroid's half-width inside the window.
        const double needed = first + 2.0 + double(shared::rsimCentroidHalfWidth(int(c.pulse.size())));
        throw InputError(fmt::format(
            "the time window is too short for any light to return: light first reaches a "
            "surface the sensor sees after {:.6g} ns, but the window ends at {:.6g} ns ({} "
            "timesteps of {} ns). Set simulation.timesteps to at least {:.0f} (--timesteps), or "
            "raise simulation.dt_ns.",
            first * c.dtNs, double(c.timesteps) * c.dtNs, c.timesteps, c.dtNs, needed));
    }
}

void finishSignals(const PreparedScene& scene, const SimConfig& config, SimulationResult& r) {
    sensorSignals(scene, config.timesteps, r.B, r.Z, r.E, r.R, r.signalFwd, r.signalAdj);
}

namespace {

class CpuBackend final : public Backend {
public:
    std::string name() const override { return "cpu"; }

    SimulationResult simulate(const PreparedScene& s, const SimConfig& c, const RunOptions& opt,
                              PhaseTimes& times) override {
        SimulationResult r;
        r.n = std::uint32_t(s.size());
        r.timesteps = c.timesteps;
        r.backend = "cpu";
        r.threads = threadCount();
        r.devices = {"cpu (" + std::to_string(r.threads) + " threads)"};
        r.visibilityPath = "embree";

        Stopwatch sw;
        EmbreeScene rays(s);
        times.add("accel", sw.seconds());
        spdlog::info("accel: Embree BVH over {} triangles, {:.1f} MiB, {:.3f} s", s.size(),
                     double(rays.memoryBytes()) / 1048576.0, sw.seconds());

        sw = Stopwatch();
        r.direct = computeDirectCpu(s, c, rays);
        times.add("direct", sw.seconds());
        checkDirectTerms(r.direct, c);

        // K: fp32 (or fp16, converted in-band) while it is computed, then compressed.
        const std::uint32_t n = r.n;
        const KFormat format = c.kFormat;
        const std::uint32_t rowsPerChunk = chunkRows(n, format, c.chunkBytes);
        HostKMatrix K;
        if (c.indirect || opt.keepK) {
            sw = Stopwatch();
            K = HostKMatrix(n, format == KFormat::Fp16 ? KFormat::Fp16 : KFormat::Fp32, rowsPerChunk);
            double squaredError = 0.0;
            r.visibility = computeVisibilityCpu(s, c, rays, K, &squaredError);
            const double secs = sw.seconds();
            times.add("visibility", secs);
            spdlog::info("visibility: {} candidate pairs, {} non-zero, {} rays in {:.2f} s "
                         "({:.1f} Mrays/s)",
                         r.visibility.candidatePairs, r.visibility.nonzeroPairs,
                         r.visibility.raysCast, secs, double(r.visibility.raysCast) / secs * 1e-6);
            if (c.kFormatErrors && format == KFormat::Fp32) {
                std::vector<std::vector<float>> chunks;
                for (std::uint32_t ch = 0; ch < K.chunkCount(); ++ch) {
                    const auto& words = K.chunk(ch).words;
                    chunks.emplace_back(reinterpret_cast<const float*>(words.data()),
                                        reinterpret_cast<const float*>(words.data()) + words.size());
                }
                for (const FormatError& f : formatErrors(chunks, std::uint64_t(n) * n))
                    r.kFormatErrors.push_back({kFormatInfo(f.format).name, f.rms, f.maxAbs});
            }
            sw = Stopwatch();
            const HostKMatrix::Errors errors = K.compress(format);
            squaredError += errors.sumSquared;
            r.kMaxAbsError = errors.maxAbs;
            times.add("compress", sw.seconds());
            r.kRmsError = std::sqrt(squaredError / (double(n) * double(n)));
            r.kFormat = kFormatInfo(format).name;
            r.kBytes = K.bytes();
            r.kChunks = K.chunkCount();
            r.kRowsPerChunk = K.rowsPerChunk();
            const VisibilityStats energy = formFactorDiagnostics(s, K);
            r.visibility.clampedFormFactors = energy.clampedFormFactors;
            r.visibility.maxRowSum = energy.maxRowSum;
            r.visibility.rowsOverOne = energy.rowsOverOne;
            if (format != KFormat::Fp32)
                spdlog::info("compress: K as {} in {} chunk(s) of {} rows, {:.1f} MiB, RMS error {:.3g} "
                             "against fp32, {:.3f} s",
                             r.kFormat, r.kChunks, r.kRowsPerChunk, double(r.kBytes) / 1048576.0,
                             r.kRmsError, sw.seconds());
        } else {
            times.add("compress", 0.0);
        }

        sw = Stopwatch();
        buildSources(s, c, r.direct, r.E, r.R);
        runTransportCpu(s, c, K, r.E, r.R, r.B, r.Z);
        times.add("radiosity", sw.seconds());
        spdlog::info("radiosity: {} timesteps in {:.2f} s", c.timesteps, sw.seconds());

        sw = Stopwatch();
        finishSignals(s, c, r);
        r.echoesCutOff = computeTriangleDistances(s, c, r);
        if (opt.images) r.image = renderSensorImageCpu(s, c, rays, r);
        times.add("distance", sw.seconds());
        if (opt.keepK) r.K = K.decodeAll();
        return r;
    }
};

} // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

} // namespace rsim
