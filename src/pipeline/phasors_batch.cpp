// SPDX-License-Identifier: MIT
// The phasors transport's pose phase (pipeline/phasors_batch.h).
#include "pipeline/phasors_batch.h"

#include <algorithm>
#include <cmath>

#include <spdlog/spdlog.h>

#include "distance/camera_readout.h"
#include "distance/phasor_outputs.h"
#include "pipeline/k_phase.h"
#include "pipeline/run_checks.h"
#include "transport/sources.h"
#include "util/timer.h"

namespace rsim {

void PhasorPoses::run(BatchReport& report) {
    const std::size_t P = b_.poses.size();
    std::uint32_t group = kPhasorGroupPoses;
    if (b_.options.maxPoseGroup) group = std::min(group, b_.options.maxPoseGroup);
    group = std::uint32_t(std::min<std::size_t>(group, P));
    report.poses = std::uint32_t(P);
    report.groupSize = group;
    report.groups = std::uint32_t((P + group - 1) / group);
    if (b_.poses[0].config.indirect) placeKForTransport(*b_.backends.transport, b_.K, b_.poses[0].config, b_.times);
    if (P > 1)
        spdlog::info("batch: {} poses, phasors solved in {} group(s) of up to {}", P, report.groups, group);
    for (std::size_t g0 = 0; g0 < P; g0 += group) this->group(g0, std::min(P, g0 + group), report);
}

void PhasorPoses::group(std::size_t g0, std::size_t g1, BatchReport& report) {
    const PreparedScene& s = b_.scene;
    const SimConfig& first = b_.poses[g0].config;
    const PhasorFrequencies fr = phasorFrequencies(first);
    PhasorSystem sys;
    sys.config = &first;
    sys.n = std::uint32_t(s.size());
    sys.columns.poses = std::uint32_t(g1 - g0);
    sys.columns.omegas = fr.omegas;
    std::vector<const DirectTerms*> direct;
    for (std::size_t p = g0; p < g1; ++p) direct.push_back(&b_.direct[p]);
    sys.sources = phasorSources(s, direct, fr.omegas, first.phasors.roundedDelays);
    sys.reflectance = s.reflectance;
    sys.tolerance = first.phasors.tolerance;
    sys.maxIterations = first.phasors.maxIterations;
    sys.roundedDelays = first.phasors.roundedDelays;
    sys.invCdtSq = first.invCdtSq;
    sys.indirect = first.indirect && b_.K;
    const Stopwatch sw;
    if (g0 == 0 && b_.options.loopStarted) b_.options.loopStarted();
    PhasorSolution solved = b_.backends.transport->phasors(sys.indirect ? b_.K : nullptr, sys);
    const double secs = sw.seconds();
    noteDeviceMemory(*b_.backends.transport, b_.meta, "phasors");
    b_.times.add("phasors", secs);
    for (const auto& [name, value] : solved.details) {
        auto& all = b_.meta.timingDetails;
        auto it = std::find_if(all.begin(), all.end(), [&name = name](const auto& d) { return d.first == name; });
        if (it == all.end()) all.emplace_back(name, value);
        else it->second += value;
    }
    const std::uint32_t C = sys.columns.count();
    double worst = 0.0;
    for (std::uint32_t c = 0; c < C; ++c)
        worst = std::max(worst, solved.change[c] / std::max(solved.scale[c], 1e-30));
    spdlog::info("phasors: {} column(s) ({} pose(s) x {} frequencies), {} iteration(s), largest change {:.2g} of the "
                 "sources, {:.3f} s{}",
                 C, g1 - g0, fr.omegas.size(), solved.sweeps, worst, secs,
                 solved.summary.empty() ? "" : " (" + solved.summary + ")");
    if (!solved.converged)
        spdlog::warn("phasors: stopped after simulation.phasor_max_iterations = {} iterations with a change of {:.2g} "
                     "of the sources, above simulation.phasor_tolerance = {:.2g}; raise phasor_max_iterations",
                     sys.maxIterations, worst, sys.tolerance);
    // K's row sums bound the contraction: q = max_m rho_m sum_n F_mn <= max rho x the largest row sum.
    const double maxRho = s.reflectance.empty() ? 0.0 : double(*std::max_element(s.reflectance.begin(), s.reflectance.end()));
    const double q = sys.indirect && b_.kStats.maxRowSum > 0.0 ? maxRho * b_.kStats.maxRowSum : -1.0;
    for (std::size_t p = g0; p < g1 && b_.poseOutputsHere; ++p) {
        const SimConfig& c = b_.poses[p].config;
        SimulationResult r;
        r.n = sys.n;
        r.timesteps = c.timesteps;
        r.visibility = b_.kStats;
        r.direct = std::move(b_.direct[p]);
        PhasorReport& rep = r.phasors;
        rep.sweeps = solved.sweeps;
        rep.groupPoses = std::uint32_t(g1 - g0);
        rep.q = q;
        rep.converged = solved.converged;
        for (std::size_t f = 0; f < fr.omegas.size(); ++f) {
            const std::size_t col = f * (g1 - g0) + (p - g0);
            rep.omegas.push_back(fr.omegas[f]);
            rep.iterations.push_back(solved.iterations[col]);
            rep.change.push_back(solved.change[col]);
            rep.tolerance.push_back(sys.tolerance * solved.scale[col]);
        }
        const PosePhasors x{&solved.values, &sys.sources, C, std::uint32_t(g1 - g0), std::uint32_t(p - g0)};
        PhaseTimes own;
        own.add("direct", b_.directSeconds[p]);
        own.add("phasors", secs / double(g1 - g0));
        const Stopwatch out;
        TriangleDistances d = phasorTriangleDistances(s, c, fr, x, r.direct);
        r.pathLength = std::move(d.pathLength);
        r.distance = std::move(d.distance);
        r.totalEnergy = std::move(d.totalEnergy);
        r.directEnergy = directEnergies(s, c, r.direct);
        // No time series: NaN says "not computed" to the writers (batch.h5 has a row per pose).
        r.signalFwd.assign(c.timesteps, std::nan(""));
        r.signalAdj.assign(c.timesteps, std::nan(""));
        if (b_.options.images) {
            r.image = phasorImage(c, fr, x, b_.backends.primary->primaryHits(c));
            applyCameraReadout(r.image, c, s);
            if (const std::string w = backFaceWarning(s, c, r.image); !w.empty() && !backFaceWarned_) {
                spdlog::warn("{}{}", b_.poses.size() > 1 ? b_.poses[p].label + " (and maybe other poses): " : "", w);
                backFaceWarned_ = true;
            }
        }
        const double outSecs = out.seconds();
        b_.times.add("distance", outSecs);
        own.add("distance", outSecs);
        if (b_.options.keepK && b_.K) r.K = b_.K->host().decodeAll();
        if (trianglesWithDistance(r.distance) > 0) ++report.posesWithDistance;
        else if (b_.poses.size() > 1)
            spdlog::warn("{}: no triangle got a distance (its summary.json says why)", b_.poses[p].label);
        b_.sink(p, r, own);
    }
}

} // namespace rsim
