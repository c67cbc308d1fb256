// SPDX-License-Identifier: MIT
// `rsim run`: scene file -> results directory. runSimulation plans the run (pipeline/run_plan.h)
// and executes the plan: one pose (run_simulation.cpp) or a batch (run_batch.cpp), both through
// simulateBatch (pipeline/simulate.h) with the same policies.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "backends/backend_thread.h"
#include "core/prepared_scene.h"
#include "output/results_writer.h"
#include "pipeline/run_plan.h"
#include "pipeline/simulate.h"
#include "util/timer.h"

namespace rsim {

struct RunOutcome {
    std::filesystem::path outputDir;
    std::string backend;
    std::size_t triangles = 0;
    double seconds = 0.0;
};

// One run, or a batch when the request or the scene file has poses.
RunOutcome runSimulation(const RunRequest& request);
// The plan's one pose, written as a results directory.
RunOutcome runOnePose(const RunPlan& plan);
// The plan's batch (pipeline/run_batch.cpp): the scene at every pose, K computed once, written
// as a batch directory. Under MPI the poses (or K's rows) are shared by the ranks.
RunOutcome runBatch(const RunPlan& plan);

// The run's description for summary.json (version, command line, start time: now).
RunInfo runInfoFor(const RunRequest& request);

// The scene's meshes loaded and prepared (timed as the `load` phase; `poses` for the log line, 0:
// a single run), with the plan's backend (makeBackend) created on another thread while the
// triangles are prepared. Under MPI the ranks then check that they loaded the same triangles
// (pipeline/job_agreement.h). (pipeline/scene_and_backend.cpp)
//
// A GPU run whose K is in the K cache and whose other rays are few (pipeline/host_rays.h) gets
// devices without ray tracing, created while K is read from the cache, and the CPU backend for
// the direct terms and the image; one whose K's rays are few as well gets them while the CPU
// computes K.
struct SceneAndBackend {
    // The thread that created the instance and the devices; it ends at the release (or last).
    std::unique_ptr<BackendThread> devices;
    PreparedScene prepared;
    std::unique_ptr<Backend> backend; // every phase, or all but those of `cpu`
    std::unique_ptr<Backend> cpu;     // the direct terms and the image of a GPU without ray tracing
    std::optional<CachedK> cachedK;   // K, read from the K cache while `backend` was created
    bool kComputedOnCpu = false;      // or computed by `cpu` meanwhile
    bool kCacheFailed = false;        // the K cache's file was there but could not be used
    // What the host built for the GPU's ray passes while the devices were created (or null).
    std::shared_ptr<const SceneShafts> shafts;

    PhaseBackends phases() const;
    // The run's options and description with `cachedK`, the shafts and the phases on the CPU.
    void applyTo(RunOptions& options, RunMetadata& meta);
    // Releases the devices (`cpu` first: it holds no device), then ends their thread.
    void release();
    // Before the release: what later runs read is written now (Backend::saveCaches), and the
    // device-local bytes the devices hold, summed (what early_exit.h weighs).
    std::uint64_t saveCachesAndMeasure();
};
SceneAndBackend loadSceneAndBackend(const RunPlan& plan, std::size_t poses, PhaseTimes& times);

} // namespace rsim
