// SPDX-License-Identifier: MIT
#include "pipeline/simulate.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <spdlog/spdlog.h>

#include "transport/sources.h"
#include "util/error.h"

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
            p.x, p.y, p.z, std::acos(double(std::max(-1.0f, c.light.cosHalfAngle))) * 180.0 / M_PI,
            dir.x, dir.y, dir.z));
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
        const double needed =
            first + 2.0 + double(shared::rsimCentroidHalfWidth(int(c.pulse.size())));
        throw InputError(fmt::format(
            "the time window is too short for any light to return: light first reaches a "
            "surface the sensor sees after {:.6g} ns, but the window ends at {:.6g} ns ({} "
            "timesteps of {} ns). Set simulation.timesteps to at least {:.0f} (--timesteps), or "
            "raise simulation.dt_ns.",
            first * c.dtNs, double(c.timesteps) * c.dtNs, c.timesteps, c.dtNs, needed));
    }
}

SimulationResult simulate(const PhaseBackends& b, const PreparedScene& s, const SimConfig& c,
                          const RunOptions& opt, PhaseTimes& times, RunMetadata& meta) {
    b.geometry->describe(meta);
    std::vector<Backend*> distinct;
    for (Backend* x : {b.geometry, b.pose, b.distances})
        if (std::find(distinct.begin(), distinct.end(), x) == distinct.end()) distinct.push_back(x);
    std::uint64_t validationBefore = 0;
    for (Backend* x : distinct)
        validationBefore += x->validationErrors();
    SimulationResult r;
    r.n = std::uint32_t(s.size());
    r.timesteps = c.timesteps;

    // Geometry phase, part 1: the acceleration structures.
    Stopwatch sw;
    for (Backend* x : distinct)
        x->prepare(s);
    times.add("accel", sw.seconds());

    // Pose phase, part 1: the direct terms, before K, because they decide whether the run can
    // measure anything at all.
    sw = Stopwatch();
    r.direct = b.pose->direct(c);
    times.add("direct", sw.seconds());
    checkDirectTerms(r.direct, c);

    // Geometry phase, part 2: K (it depends on the triangles and c.k alone).
    std::unique_ptr<KHandle> K;
    if (c.indirect || opt.keepK) {
        sw = Stopwatch();
        VisibilityOutcome v = b.geometry->visibility(c.k);
        const double secs = sw.seconds();
        times.add("visibility", secs - v.compressSeconds);
        times.add("compress", v.compressSeconds);
        r.visibility = v.stats;
        meta.k = v.storage;
        meta.deviceMemory = v.deviceMemory;
        meta.timingDetails.insert(meta.timingDetails.end(), v.details.begin(), v.details.end());
        spdlog::info(
            "visibility: {} candidate pairs, {} non-zero, {} rays in {:.2f} s ({:.1f} Mrays/s)",
            r.visibility.candidatePairs, r.visibility.nonzeroPairs, r.visibility.raysCast, secs,
            double(r.visibility.raysCast) / secs * 1e-6);
        if (c.k.format != KFormat::Fp32)
            spdlog::info("compress: K as {} in {} chunk(s) of {} rows, {:.1f} MiB, "
                         "RMS error {:.3g} against fp32, {:.3f} s",
                         meta.k.format, meta.k.chunks, meta.k.rowsPerChunk,
                         double(meta.k.bytes) / 1048576.0, meta.k.rmsError, v.compressSeconds);
        K = std::move(v.K);
    } else {
        times.add("compress", 0.0);
    }

    // Pose phase, part 2: transport, then distances and the image.
    sw = Stopwatch();
    Histories sources;
    buildSources(s, c, r.direct, sources.E, sources.R);
    TransportOutcome t = b.pose->transport(c.indirect ? K.get() : nullptr, r.direct, sources, c);
    const double secs = sw.seconds();
    times.add("radiosity", secs - t.downloadSeconds);
    if (t.downloadSeconds > 0.0) times.add("download", t.downloadSeconds);
    meta.timingDetails.insert(meta.timingDetails.end(), t.details.begin(), t.details.end());
    spdlog::info("radiosity: {} timesteps in {:.3f} s{}", c.timesteps, secs,
                 t.summary.empty() ? "" : " (" + t.summary + ")");
    Histories& h = t.histories;
    h.E = std::move(sources.E);
    h.R = std::move(sources.R);

    sw = Stopwatch();
    sensorSignals(s, c.timesteps, h.B, h.Z, h.E, h.R, r.signalFwd, r.signalAdj);
    TriangleDistances d = b.distances->distances(h, r.direct, c);
    r.pathLength = std::move(d.pathLength);
    r.distance = std::move(d.distance);
    r.echoesCutOff = d.echoesCutOff;
    if (opt.images) r.image = b.distances->image(h, r.direct, c);
    times.add("distance", sw.seconds());

    if (opt.keepK && K) r.K = K->host().decodeAll();
    r.B = std::move(h.B);
    r.Z = std::move(h.Z);
    r.E = std::move(h.E);
    r.R = std::move(h.R);
    std::uint64_t validation = 0;
    for (Backend* x : distinct)
        validation += x->validationErrors();
    meta.validationErrors = validation - validationBefore;
    if (std::any_of(distinct.begin(), distinct.end(), [](Backend* x) { return x->validating(); }))
        spdlog::info("Vulkan validation: {} error(s) during the run", meta.validationErrors);
    return r;
}

} // namespace rsim
