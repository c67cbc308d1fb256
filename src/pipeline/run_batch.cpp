// SPDX-License-Identifier: MIT
// `rsim run --poses`: the scene at every pose of a batch, K computed once and the transport run
// for a group of poses at once (pipeline/simulate.h). Each pose's results directory is written
// as soon as the pose is done, inside the batch's temporary directory, which replaces the
// output directory only when every pose is written. Under MPI the poses are shared by the ranks.
#include <future>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "output/batch_outputs.h"
#include "output/file_modules.h"
#include "pipeline/run_checks.h"
#include "pipeline/run_simulation.h"
#include "util/background_tasks.h"
#include "util/cancel.h"
#include "util/early_exit.h"
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

// What a pose's writer reads, owned by it: the pipeline goes on changing `meta`.
struct PoseOutput {
    SceneDesc scene;
    SimulationResult result;
    RunMetadata meta;
    RunInfo info;
    PhaseTimes times;
};

// The poses' writers on background threads and the batch tables' collector they fill.
struct PoseWriters {
    BatchCollector collector;
    std::optional<BackgroundTasks> tasks; // started with the first pose's results
};

// A batch on this rank: its poses simulated (simulateBatch) and each written by a background
// writer into the batch's temporary directory; rank 0 then writes the batch's tables.
class BatchOnRank {
public:
    explicit BatchOnRank(const RunPlan& plan) : plan_(plan), ranks_(Ranks::world()) {
        for (const PoseDesc& p : plan.poses) {
            checkCancel(); // thousands of poses: a stop between two
            posed_.push_back(applyPose(plan.scene, p));
            allPoses_.push_back({p.where, plan.configAt(posed_.back())});
        }
        // Under MPI each rank runs a block of the poses (README.md, "Several machines"), or, with
        // --mpi-split rows, every pose with a block of K's rows (rank 0 then has every result).
        std::tie(first_, last_) = plan.rowBlocks ? std::pair<std::size_t, std::size_t>(0, plan.poses.size())
                                                 : posesOfRank(plan.poses.size(), ranks_.rank(), ranks_.size());
        poses_.assign(allPoses_.begin() + std::ptrdiff_t(first_), allPoses_.begin() + std::ptrdiff_t(last_));
        if (ranks_.many() && !plan.rowBlocks)
            spdlog::info("rank {} of {}: poses {} to {} of {}", ranks_.rank(), ranks_.size(), first_ + 1, last_,
                         plan.poses.size());
    }

    RunOutcome run() {
        Stopwatch total;
        info_ = runInfoFor(plan_.request);
        info_.rowRanks = plan_.rowBlocks ? ranks_.size() : 1;
        if (ranks_.rank() == 0) {
            checkOutputDirectory(plan_.scene.output.dir);
            checkWriters(plan_.scene.output, true);
        }
        loaded_ = loadSceneAndBackend(plan_, std::max<std::size_t>(poses_.size(), 1), times_);
        options_ = plan_.options;
        // K once: rank 0 computes it and stores it in the K cache; the other ranks wait for that,
        // then read it (on a file system that every rank sees). Without the cache each rank
        // computes K itself.
        shareK_ = ranks_.many() && !plan_.rowBlocks && plan_.kCache();
        if (plan_.rowBlocks) options_.rowRanks = &ranks_;
        if (shareK_ && ranks_.rank() == 0) options_.kReady = [this] { ranks_.barrier(); };
        loaded_.applyTo(options_, meta_);
        // Rank 0 writes into its temporary directory and puts it in place; the other ranks write
        // their poses' directories into the same one (its path comes from rank 0).
        const auto write = [this](const std::filesystem::path& tmp) { writeBatch(tmp); };
        if (ranks_.rank() == 0)
            writeBatchDirectory(plan_.scene.output.dir, write);
        else
            write({});
        // The other ranks end when rank 0 has put the results in place.
        ranks_.barrier();
        RunOutcome out;
        out.outputDir = plan_.scene.output.dir;
        out.backend = meta_.backend;
        out.triangles = loaded_.prepared.size();
        out.seconds = total.seconds();
        if (ranks_.rank() == 0)
            spdlog::info("wrote {} ({} poses{}, transport in {} group(s) of up to {}) in {:.2f} s",
                         out.outputDir.string(), plan_.poses.size(),
                         ranks_.many() ? fmt::format(" over {} ranks", ranks_.size())
                                       : fmt::format(", {} with {}", measuredPoses_,
                                                     allPoses_[0].config.transport == Transport::Paths
                                                         ? "ranges" : "distances"),
                         report_.groups, report_.groupSize, out.seconds);
        // The command may end here; the devices' release goes on unseen (util/early_exit.h).
        earlyexit::resultsInPlace(deviceBytes_);
        return out;
    }

private:
    void writeBatch(const std::filesystem::path& tmpOfRank0) {
        tmp_ = ranks_.broadcast(tmpOfRank0.string());
        const SceneDesc& scene = plan_.scene;
        // The writers are joined before the collector they fill goes, and before this returns
        // (or throws: the temporary directory is then removed, with nothing writing into it).
        PoseWriters out{BatchCollector(loaded_.prepared.size(), scene.sim.timesteps, scene.output.images,
                                       poses_.size()),
                        std::nullopt};
        out_ = &out;
        if (shareK_ && ranks_.rank() != 0) ranks_.barrier();
        // The writers start with the first pose's results. By then the modules their files need
        // were opened on a thread of their own once the time loop was under way (openWriters, as
        // for one pose), so that whether HDF5 is thread-safe, which decides how many writers
        // there are, is asked without loading it before the devices' first work.
        options_.loopStarted = [this] { modulesOpen_ = openWriters(plan_.scene.output, true); };
        if (!poses_.empty())
            report_ = simulateBatch(loaded_.phases(), loaded_.prepared, poses_, options_, times_, meta_,
                                    [this](std::size_t mine, SimulationResult& r, const PhaseTimes& own) {
                                        handOver(mine, r, own);
                                    });
        options_.loopStarted = {}; // it refers to this object's future
        deviceBytes_ = loaded_.saveCachesAndMeasure();
        // The time the last poses' files took beyond the simulation.
        const Stopwatch sw;
        if (out.tasks) out.tasks->wait();
        times_.add("output", sw.seconds());
        writeTables(out.collector);
    }

    // How many writers write the poses' files on background threads while the next poses run.
    // Each holds a pose's result: with time series (large, and written one at a time under
    // HDF5's lock) two. images.h5 is HDF5 too: one writer only where the library is not
    // thread-safe. With the transport on a GPU the CPU threads are free for them: one per
    // thread, at most 16 (docs/benchmarks.md, "Batches: many poses, K once"); on the CPU backend half the
    // threads, at most 8.
    unsigned writerCount() const {
        const SceneDesc& scene = plan_.scene;
        const bool series = scene.output.timeseries || scene.output.kij;
        const bool h5 = series || scene.output.images;
        RunMetadata described;
        loaded_.backend->describe(described);
        const unsigned writerDefault =
            described.backend == "cpu" ? std::min(8u, threadCount() / 2) : std::min(16u, threadCount());
        return h5 && !hdf5().threadSafe() ? 1u
               : plan_.request.writers    ? plan_.request.writers
               : series                   ? 2u
                                          : std::max(1u, writerDefault);
    }

    BackgroundTasks& writers() {
        std::optional<BackgroundTasks>& tasks = out_->tasks;
        if (!tasks) {
            if (modulesOpen_.valid()) modulesOpen_.get();
            const bool series = plan_.scene.output.timeseries || plan_.scene.output.kij;
            // Without time series the poses that wait for a writer (up to kWriterBacklogBytes) do
            // not hold up the next poses: their files are written while the next group's
            // transport runs.
            constexpr std::uint64_t kWriterBacklogBytes = 512ull << 20;
            tasks.emplace(writerCount(), series ? 0 : kWriterBacklogBytes);
        }
        return *tasks;
    }

    // A pose's result handed to a writer, which writes its directory and its row of the batch's
    // tables (the collector takes its small arrays there, each pose into its own place).
    void handOver(std::size_t mine, SimulationResult& r, const PhaseTimes& own) {
        const std::size_t p = first_ + mine;
        const PoseDesc& desc = plan_.poses[p];
        visibility_ = r.visibility;
        auto job = std::make_shared<PoseOutput>(PoseOutput{posed_[p], std::move(r), meta_, info_, own});
        job->scene.output.dir = plan_.scene.output.dir / desc.name;
        job->info.pose = desc.name;
        job->info.echoesCutOff = job->result.echoesCutOff;
        job->info.kFromCache = meta_.kFromCache; // K is settled before the first pose ends
        // The batch's summary.json has the sub-phase details, summed over its groups.
        job->meta.timingDetails.clear();
        const SimConfig* config = &allPoses_[p].config;
        const std::filesystem::path dir = tmp_ / desc.name;
        // Waiting for a free writer is output time too.
        const Stopwatch waiting;
        const std::uint64_t held = heldBytes(job->result);
        writers().submit(
            [job, config, dir, mine, &prepared = loaded_.prepared, collector = &out_->collector, name = desc.name,
             where = desc.where] {
                const Stopwatch sw;
                const ResultsView view{job->scene, prepared, *config, job->result, job->meta, job->info};
                collector->add(mine, name, view);
                writeResultsFiles(dir, view, job->times);
                spdlog::debug("{}: files written in {:.3f} s", where, sw.seconds());
            },
            held);
        const double waited = waiting.seconds();
        times_.add("output", waited);
        if (waited > 0.001) spdlog::debug("{}: waited {:.3f} s for a free writer", desc.where, waited);
    }

    // Rank 0: every rank's rows and arrays, in rank order, which is pose order (in row mode, and
    // in one process, rank 0 has them all), into batch.csv, batch.h5 and summary.json. A batch
    // none of whose poses got a distance fails (run_checks.h).
    void writeTables(const BatchCollector& collector) {
        const PreparedScene& prepared = loaded_.prepared;
        const SceneDesc& scene = plan_.scene;
        BatchCollector all(prepared.size(), scene.sim.timesteps, scene.output.images);
        const BatchCollector* whole = &collector;
        if (ranks_.many() && !plan_.rowBlocks) {
            const std::vector<std::string> parts = ranks_.gather(collector.pack());
            for (const std::string& part : parts) all.append(part);
            whole = &all;
        }
        if (ranks_.rank() != 0) return;
        // A pose measured something: a triangle's distance, or with the paths transport (which has
        // no per-triangle results) a pixel's range.
        const bool paths = allPoses_[0].config.transport == Transport::Paths;
        for (const BatchPoseRow& row : whole->rows())
            measuredPoses_ += (paths ? row.pixelsMeasured : row.trianglesMeasured) > 0 ? 1 : 0;
        checkSomeDistance(measuredPoses_, plan_.poses.size(), report_.firstEchoesCutOff, allPoses_[0].config);
        Stopwatch sw;
        whole->writeCsv(tmp_ / "batch.csv");
        const double csvSeconds = sw.seconds();
        // Every pose's folder is in place here (the other ranks wrote theirs into this one):
        // batch.h5's views of their images.h5, and its tables.
        std::vector<const SimConfig*> configs;
        for (const PoseConfig& p : allPoses_) configs.push_back(&p.config);
        hdf5().writeBatch(tmp_ / "batch.h5", whole->tables(configs, prepared));
        times_.add("output", sw.seconds());
        info_.kFromCache = meta_.kFromCache;
        const Stopwatch json;
        writeBatchSummaryJson(tmp_ / "summary.json",
                              BatchSummary{info_, meta_, prepared, visibility_, report_.groupSize, report_.groups,
                                           times_, ranks_.size()},
                              *whole);
        spdlog::debug("batch.csv {:.3f} s, batch.h5 {:.3f} s, summary.json {:.3f} s", csvSeconds,
                      sw.seconds() - csvSeconds - json.seconds(), json.seconds());
    }

    const RunPlan& plan_;
    const Ranks& ranks_;
    std::vector<SceneDesc> posed_;
    std::vector<PoseConfig> allPoses_, poses_; // every pose; this rank's
    std::size_t first_ = 0, last_ = 0;
    PhaseTimes times_;
    RunInfo info_;
    SceneAndBackend loaded_;
    RunOptions options_;
    RunMetadata meta_;
    bool shareK_ = false;
    std::filesystem::path tmp_;
    std::future<void> modulesOpen_;
    PoseWriters* out_ = nullptr; // writeBatch's
    VisibilityStats visibility_;
    BatchReport report_;
    std::uint64_t measuredPoses_ = 0;
    std::uint64_t deviceBytes_ = 0;
};

} // namespace

RunOutcome runBatch(const RunPlan& plan) { return BatchOnRank(plan).run(); }

} // namespace rsim
