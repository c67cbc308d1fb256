// SPDX-License-Identifier: MIT
// runSimulation: the plan, then its one pose (here) or its batch (run_batch.cpp).
#include "pipeline/run_simulation.h"

#include <cmath>
#include <ctime>
#include <future>

#include <spdlog/spdlog.h>

#include "output/file_modules.h"
#include "output/results_writer.h"
#include "pipeline/paths_batch.h"
#include "pipeline/run_checks.h"
#include "util/early_exit.h"
#include "util/error.h"
#include "util/ranks.h"
#include "util/timer.h"

namespace rsim {

namespace {

std::string isoNowUtc() {
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return buf;
}

// The mean |d_i - |c_i - sensor|| over the triangles with a distance, mm (for the log line).
double meanErrorMm(const SimulationResult& result, const PreparedScene& prepared, const SimConfig& config) {
    std::size_t withDistance = 0;
    double sumAbs = 0.0;
    for (std::size_t i = 0; i < prepared.size(); ++i) {
        if (std::isnan(result.distance[i])) continue;
        ++withDistance;
        double truth = double(glm::length(prepared.centroid[i] - config.sensor.position));
        sumAbs += std::abs(result.distance[i] - truth);
    }
    return withDistance ? 1e3 * sumAbs / double(withDistance) : 0.0;
}

} // namespace

RunInfo runInfoFor(const RunRequest& req) {
    RunInfo info;
    info.version = RSIM_VERSION;
    info.commandLine = req.commandLine;
    info.startedAt = isoNowUtc();
    return info;
}

RunOutcome runSimulation(const RunRequest& request) {
    const RunPlan plan = planRun(request);
    return plan.batch ? runBatch(plan) : runOnePose(plan);
}

RunOutcome runOnePose(const RunPlan& plan) {
    const SceneDesc& scene = plan.scene;
    Stopwatch total;
    PhaseTimes times;
    RunInfo info = runInfoFor(plan.request);
    const Ranks& ranks = Ranks::world();
    info.rowRanks = ranks.size();
    // Fail in milliseconds on an unusable output directory, not after the simulation.
    if (ranks.rank() == 0) {
        checkOutputDirectory(scene.output.dir);
        checkWriters(scene.output, false);
    }
    SceneAndBackend loaded = loadSceneAndBackend(plan, 0, times);
    const PreparedScene& prepared = loaded.prepared;
    const std::size_t n = prepared.size();

    const SimConfig& config = plan.config;
    RunOptions options = plan.options;
    if (ranks.many()) options.rowRanks = &ranks;
    RunMetadata meta;
    loaded.applyTo(options, meta);
    std::future<void> writersOpen; // rank 0 writes the files
    if (ranks.rank() == 0) options.loopStarted = [&] { writersOpen = openWriters(scene.output, false); };
    SimulationResult result;
    const BatchReport report =
        simulateBatch(loaded.phases(), prepared, {PoseConfig{"the pose", config}}, options, times, meta,
                      [&result](std::size_t, SimulationResult& r, const PhaseTimes&) { result = std::move(r); });
    const std::uint64_t deviceBytes = loaded.saveCachesAndMeasure();
    // The results are in host memory: the devices go (with the driver's teardown, a few hundredths
    // of a second) while the outputs are written. On an error, the future's destructor waits for
    // them.
    std::future<void> released = std::async(std::launch::async, [&loaded] {
        Stopwatch sw;
        loaded.release();
        spdlog::debug("shut-down: backend released in {:.4f} s, beside the outputs", sw.seconds());
    });
    RunOutcome out;
    out.outputDir = scene.output.dir;
    out.backend = meta.backend;
    out.triangles = n;
    if (ranks.rank() != 0) { // rank 0 has the results and writes them; the job ends when it has
        ranks.barrier();
        out.seconds = total.seconds();
        return out;
    }
    info.echoesCutOff = result.echoesCutOff;
    info.kFromCache = meta.kFromCache;
    checkSomeDistance(report.posesWithDistance, 1, report.firstEchoesCutOff, config);

    writeResultsDirectory(scene.output.dir, ResultsView{scene, prepared, config, result, meta, info}, times);
    ranks.barrier();
    out.seconds = total.seconds();
    const std::string measured =
        config.transport == Transport::Paths
            ? fmt::format("{} triangles, {} pixels with a range", n, pixelsWithRange(result.image))
            : fmt::format("{} triangles, {} with a distance, mean |error| {:.2f} mm", n,
                          trianglesWithDistance(result.distance), meanErrorMm(result, prepared, config));
    spdlog::info("wrote {} ({}{}) in {:.2f} s", out.outputDir.string(), measured,
                 ranks.many() ? fmt::format("; K's rows over {} ranks", ranks.size()) : std::string(), out.seconds);
    // The command may end here; the devices' release goes on unseen (util/early_exit.h).
    earlyexit::resultsInPlace(deviceBytes);
    released.get();
    return out;
}

} // namespace rsim
