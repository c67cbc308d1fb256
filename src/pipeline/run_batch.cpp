// SPDX-License-Identifier: MIT
// `rsim run --poses`: the scene at every pose of a batch, K computed once and the transport run
// for a group of poses at once (pipeline/simulate.h). Each pose's results directory is written
// as soon as the pose is done, inside the batch's temporary directory, which replaces the
// output directory only when every pose is written. Under MPI the poses are shared by the ranks.
#include <cmath>
#include <future>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "backends/backend_choice.h"
#include "geometry/prepare.h"
#include "output/batch_outputs.h"
#include "output/file_modules.h"
#include "pipeline/run_simulation.h"
#include "pipeline/simulate.h"
#include "scene/mesh_loader.h"
#include "scene/poses.h"
#include "util/background_tasks.h"
#include "util/early_exit.h"
#include "util/cancel.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/ranks.h"
#include "util/timer.h"

namespace rsim {

namespace {

// This rank's poses: a contiguous block [first, last); rank 0's block is never empty.
std::pair<std::size_t, std::size_t> posesOfRank(std::size_t poses, int rank, int ranks) {
    auto start = [&](std::size_t r) { return (r * poses + std::size_t(ranks) - 1) / std::size_t(ranks); };
    return {start(std::size_t(rank)), start(std::size_t(rank) + 1)};
}

} // namespace

RunOutcome runBatch(const RunRequest& req, const SceneDesc& scene, const std::vector<PoseDesc>& poseDescs) {
    Stopwatch total;
    PhaseTimes times;
    RunInfo info = runInfoFor(req);
    const Ranks& ranks = Ranks::world();

    // Every pose is checked before any work.
    checkPoses(poseDescs, scene);
    std::vector<SceneDesc> posed;
    std::vector<PoseConfig> allPoses;
    for (const PoseDesc& p : poseDescs) {
        checkCancel(); // thousands of poses: a stop between two
        posed.push_back(applyPose(scene, p));
        allPoses.push_back({p.where, configFor(posed.back(), req)});
    }
    if (ranks.rank() == 0) {
        checkOutputDirectory(scene.output.dir);
        checkWriters(scene.output, true);
    }
    // Under MPI each rank runs a block of the poses (README.md, "Several machines"), or, with
    // --mpi-split rows, every pose with a block of K's rows (rank 0 then has every result).
    const bool rowMode = rowBlockMode(req, scene, true);
    info.rowRanks = rowMode ? ranks.size() : 1;
    const auto [first, last] = rowMode ? std::pair<std::size_t, std::size_t>(0, poseDescs.size())
                                       : posesOfRank(poseDescs.size(), ranks.rank(), ranks.size());
    const std::vector<PoseConfig> poses(allPoses.begin() + std::ptrdiff_t(first), allPoses.begin() + std::ptrdiff_t(last));
    if (ranks.many() && !rowMode)
        spdlog::info("rank {} of {}: poses {} to {} of {}", ranks.rank(), ranks.size(), first + 1, last,
                     poseDescs.size());

    SceneAndBackend loaded = loadSceneAndBackend(scene, req, std::max<std::size_t>(poses.size(), 1), times);
    const PreparedScene& prepared = loaded.prepared;
    RunOptions options = optionsFor(scene, req);
    // K once: rank 0 computes it and stores it in the K cache; the other ranks wait for that,
    // then read it (on a file system that every rank sees). Without the cache each rank computes
    // K itself.
    const bool shareK = ranks.many() && !rowMode && !options.kCacheDir.empty();
    if (rowMode) options.rowRanks = &ranks;
    if (shareK && ranks.rank() == 0) options.kReady = [&] { ranks.barrier(); };
    RunMetadata meta;
    loaded.applyTo(options, meta);
    VisibilityStats visibility;
    BatchReport report;
    std::uint64_t measuredPoses = 0;
    std::uint64_t deviceBytes = 0;
    // Rank 0 writes into its temporary directory and puts it in place; the other ranks write
    // their poses' directories into the same one (its path comes from rank 0).
    auto writeBatch = [&](const std::filesystem::path& tmpOfRank0) {
        const std::filesystem::path tmp = ranks.broadcast(tmpOfRank0.string());
        BatchCollector collector(prepared.size(), scene.sim.timesteps, scene.output.images, poses.size());
        if (shareK && ranks.rank() != 0) ranks.barrier();
        // Each pose's files are written on background threads while the next poses run, and the
        // collector takes its small arrays there, each pose into its own place. Each writer holds a pose's
        // result: with time series (large, and written one at a time under HDF5's lock) two.
        // images.h5 is HDF5 too: one writer only where the library is not thread-safe. Without
        // time series the poses that wait for a writer (up to kWriterBacklogBytes) do not hold
        // up the next poses: their files are written while the next group's transport runs.
        const bool series = scene.output.timeseries || scene.output.kij;
        const bool h5 = series || scene.output.images;
        // With the transport on a GPU the CPU threads are free for them: one per thread, at most
        // 16 (H100 machine, 16 threads: 32 poses of the medium room 2.86-2.91 s with 16 writers,
        // 3.07 s with 8; docs/benchmarks.md); on the CPU backend half the threads, at most 8.
        RunMetadata described;
        loaded.backend->describe(described);
        const unsigned writerDefault = described.backend == "cpu" ? std::min(8u, threadCount() / 2)
                                                                   : std::min(16u, threadCount());
        constexpr std::uint64_t kWriterBacklogBytes = 512ull << 20;
        // The writers start with the first pose's results. By then the modules their files need
        // were opened on a thread of their own once the time loop was under way (openWriters, as
        // for one pose), so that whether HDF5 is thread-safe, which decides how many writers
        // there are, is asked without loading it before the devices' first work.
        std::future<void> modulesOpen;
        options.loopStarted = [&] { modulesOpen = openWriters(scene.output, true); };
        std::optional<BackgroundTasks> writers;
        auto started = [&]() -> BackgroundTasks& {
            if (!writers) {
                if (modulesOpen.valid()) modulesOpen.get();
                const unsigned writerCount = h5 && !hdf5().threadSafe() ? 1u
                                             : req.writers                    ? req.writers
                                             : series                         ? 2u
                                                                              : std::max(1u, writerDefault);
                writers.emplace(writerCount, series ? 0 : kWriterBacklogBytes);
            }
            return *writers;
        };
        if (!poses.empty())
            report = simulateBatch(
                loaded.phases(), prepared, poses, options, times, meta,
                [&](std::size_t mine, SimulationResult& r, const PhaseTimes& own) {
                    const std::size_t p = first + mine;
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
                    const SimConfig* config = &allPoses[p].config;
                    const std::filesystem::path dir = tmp / desc.name;
                    // Waiting for a free writer is output time too.
                    Stopwatch handOver;
                    const std::uint64_t held = heldBytes(job->result);
                    started().submit(
                        [job, config, dir, mine, &prepared, &collector, name = desc.name, where = desc.where] {
                            const Stopwatch sw;
                            const ResultsView view{job->scene, prepared, *config, job->result, job->meta, job->info};
                            collector.add(mine, name, view);
                            writeResultsFiles(dir, view, job->times);
                            spdlog::debug("{}: files written in {:.3f} s", where, sw.seconds());
                        },
                        held);
                    const double waited = handOver.seconds();
                    times.add("output", waited);
                    if (waited > 0.001) spdlog::debug("{}: waited {:.3f} s for a free writer", desc.where, waited);
                });
        options.loopStarted = {}; // it refers to this scope's future
        deviceBytes = loaded.saveCachesAndMeasure();
        // The time the last poses' files took beyond the simulation.
        Stopwatch sw;
        if (writers) writers->wait();
        times.add("output", sw.seconds());
        // (In row-block mode the other ranks have no pose outputs.)
        for (std::size_t mine = 0; (!rowMode || ranks.rank() == 0) && mine < collector.rows().size(); ++mine)
            if (collector.rows()[mine].trianglesMeasured == 0)
                spdlog::warn("{}: no triangle got a distance (see its summary.json)", poseDescs[first + mine].where);
            else
                ++measuredPoses;
        // Every rank's rows and arrays, in rank order, which is pose order (in row mode, and in
        // one process, rank 0 has them all).
        BatchCollector all(prepared.size(), scene.sim.timesteps, scene.output.images);
        const BatchCollector* whole = &collector;
        if (ranks.many() && !rowMode) {
            const std::vector<std::string> parts = ranks.gather(collector.pack());
            for (const std::string& part : parts) all.append(part);
            whole = &all;
        }
        if (ranks.rank() != 0) return;
        sw = Stopwatch();
        whole->writeCsv(tmp / "batch.csv");
        const double csvSeconds = sw.seconds();
        // Every pose's folder is in place here (the other ranks wrote theirs into this one):
        // batch.h5's views of their images.h5, and its tables.
        std::vector<const SimConfig*> configs;
        for (const PoseConfig& p : allPoses) configs.push_back(&p.config);
        hdf5().writeBatch(tmp / "batch.h5", whole->tables(configs, prepared));
        times.add("output", sw.seconds());
        info.kFromCache = meta.kFromCache;
        Stopwatch json;
        writeBatchSummaryJson(tmp / "summary.json",
                              BatchSummary{info, meta, prepared, visibility, report.groupSize, report.groups, times,
                                           ranks.size()},
                              *whole);
        spdlog::debug("batch.csv {:.3f} s, batch.h5 {:.3f} s, summary.json {:.3f} s", csvSeconds,
                      sw.seconds() - csvSeconds - json.seconds(), json.seconds());
    };
    if (ranks.rank() == 0)
        writeBatchDirectory(scene.output.dir, writeBatch);
    else
        writeBatch({});
    // The other ranks end when rank 0 has put the results in place.
    ranks.barrier();
    RunOutcome out;
    out.outputDir = scene.output.dir;
    out.backend = meta.backend;
    out.triangles = prepared.size();
    out.seconds = total.seconds();
    if (ranks.rank() == 0)
        spdlog::info("wrote {} ({} poses{}, transport in {} group(s) of up to {}) in {:.2f} s", out.outputDir.string(),
                     poseDescs.size(),
                     ranks.many() ? fmt::format(" over {} ranks", ranks.size())
                                  : fmt::format(", {} with distances", measuredPoses),
                     report.groups, report.groupSize, out.seconds);
    // The command may end here; the devices' release goes on unseen (util/early_exit.h).
    earlyexit::resultsInPlace(deviceBytes);
    return out;
}

} // namespace rsim
