// SPDX-License-Identifier: MIT
// The `paths` transport's batch (pipeline/paths_batch.h).
#include "pipeline/paths_batch.h"

#include <cmath>

#include <spdlog/spdlog.h>

#include "distance/camera_readout.h"
#include "pipeline/run_checks.h"
#include "pipeline/run_estimate.h"
#include "util/error.h"
#include "util/progress.h"
#include "util/timer.h"

namespace rsim {

std::size_t pixelsWithRange(const SensorImage& image) {
    std::size_t n = 0;
    for (float d : image.depth) n += std::isfinite(d);
    return n;
}

BatchReport simulatePathsBatch(const PhaseBackends& b, const PreparedScene& s, const std::vector<PoseConfig>& poses,
                               const RunOptions& opt, PhaseTimes& times, RunMetadata& meta, const PoseSink& sink) {
    if (opt.rowRanks && opt.rowRanks->many())
        throw Error("internal: the paths transport has no K's rows to share among ranks");
    Backend& tracer = *b.image;
    tracer.describe(meta);
    tracer.configure(BackendSettings{}); // nothing to warm: the paths pipeline is made at its first pose
    const std::uint64_t validationBefore = tracer.validationErrors();
    Stopwatch sw;
    tracer.prepare(s);
    times.add("accel", sw.seconds());
    spdlog::info("{}", describePathsEstimate(meta, poses[0].config, poses.size()));
    BatchReport report;
    report.poses = report.groups = std::uint32_t(poses.size());
    report.groupSize = 1;
    bool backFaceWarned = false;
    for (std::size_t p = 0; p < poses.size(); ++p) {
        const SimConfig& c = poses[p].config;
        spdlog::info("{}paths: {} x {} pixels, {} path(s) each{}", poses.size() > 1 ? poses[p].label + ": " : "",
                     c.width, c.height, c.pixelSampling.perPixel,
                     c.paths.maxBounces ? fmt::format(", at most {} vertices", c.paths.maxBounces) : std::string());
        const Stopwatch traced;
        SimulationResult r;
        r.n = std::uint32_t(s.size());
        r.timesteps = c.timesteps;
        r.image = tracer.pathTraced(c);
        applyCameraReadout(r.image, c, s);
        // No per-triangle result and no total signal: NaN says "not computed" to the writers
        // (batch.h5 has one row of them per pose).
        const double nan = std::nan("");
        r.distance.assign(s.size(), nan);
        r.pathLength.assign(s.size(), nan);
        r.signalFwd.assign(c.timesteps, nan);
        r.signalAdj.assign(c.timesteps, nan);
        const double seconds = traced.seconds();
        times.add("paths", seconds);
        spdlog::info("paths: {} pixel(s) with a range, {:.3f} s ({:.3g} Mpaths/s, {:.3g} Mrays/s)",
                     pixelsWithRange(r.image), seconds,
                     double(c.width) * c.height * c.pixelSampling.perPixel / std::max(seconds, 1e-9) * 1e-6,
                     double(r.image.rays) / std::max(seconds, 1e-9) * 1e-6);
        if (pixelsWithRange(r.image) > 0) ++report.posesWithDistance;
        else if (poses.size() > 1) spdlog::warn("{}: no pixel got a range (its summary.json says why)", poses[p].label);
        if (const std::string w = backFaceWarning(s, c, r.image); !w.empty() && !backFaceWarned) {
            spdlog::warn("{}{}", poses.size() > 1 ? poses[p].label + " (and maybe other poses): " : "", w);
            backFaceWarned = true;
        }
        if (const std::string w = outOfRangeWarning(r.image, c); !w.empty())
            spdlog::warn("{}{}", poses.size() > 1 ? poses[p].label + ": " : "", w);
        PhaseTimes own;
        own.add("paths", seconds);
        sink(p, r, own);
    }
    meta.validationErrors = tracer.validationErrors() - validationBefore;
    tracer.configure(BackendSettings{});
    return report;
}

} // namespace rsim
