// SPDX-License-Identifier: MIT
// `rsim run --poses`: the scene at every pose of a batch, K computed once and the transport run
// for a group of poses at once (pipeline/simulate.h). Each pose's results directory is written
// as soon as the pose is done, inside the batch's temporary directory, which replaces the
// output directory only when every pose is written.
#include <cmath>

#include <spdlog/spdlog.h>

#include "backends/backend_choice.h"
#include "geometry/prepare.h"
#include "output/batch_outputs.h"
#include "output/h5_writer.h"
#include "pipeline/run_simulation.h"
#include "pipeline/simulate.h"
#include "scene/mesh_loader.h"
#include "scene/poses.h"
#include "util/background_tasks.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/timer.h"

namespace rsim {

RunOutcome runBatch(const RunRequest& req, const SceneDesc& scene, const std::vector<PoseDesc>& poseDescs) {
    Stopwatch total;
    PhaseTimes times;
    RunInfo info = runInfoFor(req);

    // Every pose is checked before any work.
    checkPoses(poseDescs, scene);
    std::vector<SceneDesc> posed;
    std::vector<PoseConfig> poses;
    for (const PoseDesc& p : poseDescs) {
        posed.push_back(applyPose(scene, p));
        poses.push_back({p.where, configFor(posed.back(), req)});
    }
    checkOutputDirectory(scene.output.dir);

    auto [prepared, backend] = loadSceneAndBackend(scene, req, poses.size(), times);
    const RunOptions options = optionsFor(scene, req);
    RunMetadata meta;
    BatchCollector collector(prepared.size(), scene.sim.timesteps, scene.sensor.width, scene.sensor.height,
                             scene.output.images);
    VisibilityStats visibility;
    BatchReport report;
    std::uint64_t measuredPoses = 0;
    writeBatchDirectory(scene.output.dir, [&](const std::filesystem::path& tmp) {
        // Each pose's files are written on background threads while the next poses run; the
        // collector takes its small arrays here, in pose order. Each writer holds a pose's
        // result: with time series (large, and written one at a time under HDF5's lock) two.
        // images.h5 is HDF5 too: one writer only where the library is not thread-safe.
        const bool series = scene.output.timeseries || scene.output.kij;
        const bool h5 = series || scene.output.images;
        const unsigned writerCount = h5 && !output::hdf5ThreadSafe() ? 1u
                                     : series                         ? 2u
                                                                      : std::max(1u, std::min(8u, threadCount() / 2));
        BackgroundTasks writers(writerCount);
        report = simulateBatch(
            PhaseBackends::all(*backend), prepared, poses, options, times, meta,
            [&](std::size_t p, SimulationResult& r, const PhaseTimes& own) {
                const PoseDesc& desc = poseDescs[p];
                visibility = r.visibility;
                if (r.echoesCutOff > 0)
                    spdlog::warn("{}: {} triangle(s) have their echo peak too close to the end of the simulated "
                                 "time ({} steps) and get no distance; increase timesteps",
                                 desc.where, r.echoesCutOff, scene.sim.timesteps);
                // What the writer reads, owned by it: the pipeline goes on changing `meta`.
                struct PoseOutput {
                    SceneDesc scene;
                    SimulationResult result;
                    RunMetadata meta;
                    RunInfo info;
                    PhaseTimes times;
                };
                auto job = std::make_shared<PoseOutput>(PoseOutput{posed[p], std::move(r), meta, info, own});
                job->scene.output.dir = scene.output.dir / desc.name;
                job->info.pose = desc.name;
                job->info.echoesCutOff = job->result.echoesCutOff;
                job->info.kFromCache = meta.kFromCache; // K is settled before the first pose ends
                // The batch's summary.json has the sub-phase details, summed over its groups.
                job->meta.timingDetails.clear();
                Stopwatch collect;
                collector.add(desc.name, ResultsView{job->scene, prepared, poses[p].config, job->result, job->meta,
                                                     job->info});
                times.add("output", collect.seconds());
                if (collector.rows().back().trianglesMeasured == 0)
                    spdlog::warn("{}: no triangle got a distance (see its summary.json)", desc.where);
                else
                    ++measuredPoses;
                const SimConfig* config = &poses[p].config;
                const std::filesystem::path dir = tmp / desc.name;
                writers.submit([job, config, dir, &prepared] {
                    writeResultsFiles(dir, ResultsView{job->scene, prepared, *config, job->result, job->meta, job->info},
                                      job->times);
                });
            });
        // The time the last poses' files took beyond the simulation.
        Stopwatch sw;
        writers.wait();
        times.add("output", sw.seconds());
        sw = Stopwatch();
        collector.writeCsv(tmp / "batch.csv");
        collector.writeH5(tmp / "batch.h5");
        times.add("output", sw.seconds());
        info.kFromCache = meta.kFromCache;
        writeBatchSummaryJson(tmp / "summary.json",
                              BatchSummary{info, meta, prepared, visibility, report.groupSize, report.groups, times},
                              collector);
    });
    RunOutcome out;
    out.outputDir = scene.output.dir;
    out.backend = meta.backend;
    out.triangles = prepared.size();
    out.seconds = total.seconds();
    spdlog::info("wrote {} ({} poses, {} with distances, transport in {} group(s) of up to {}) in {:.2f} s",
                 out.outputDir.string(), poses.size(), measuredPoses, report.groups, report.groupSize, out.seconds);
    return out;
}

} // namespace rsim
