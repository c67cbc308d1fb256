// SPDX-License-Identifier: MIT
// `rsim run`: scene file -> results directory.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend_choice.h"
#include "backends/backend_thread.h"
#include "core/prepared_scene.h"
#include "output/results_writer.h"
#include "pipeline/simulate.h"
#include "scene/scene_desc.h"
#include "util/timer.h"

namespace rsim {

struct RunRequest {
    std::filesystem::path sceneFile;
    std::vector<SceneOverride> overrides;   // from --set and the dedicated flags
    std::optional<std::filesystem::path> outputDir; // --output, relative to the working dir
    BackendChoice backend;                  // --backend, --devices, --visibility, --validation
    std::string commandLine;
    std::string kFormat;                    // --kij (empty: the default format)
    double chunkMb = 16.0;                  // tuning.chunk_mb
    bool kFormatErrors = false;             // tuning.kij_errors
    std::optional<std::filesystem::path> posesFile; // --poses (else the scene's [[pose]] tables)
    std::uint32_t maxPoseGroup = 0;         // tuning.pose_group (0: as memory allows)
    std::uint32_t writers = 0;              // tuning.writers (0: the default)
    std::optional<std::filesystem::path> kCacheDir; // --k-cache (else KCache::defaultDir())
    bool noKCache = false;                  // --no-k-cache
    double kCacheMaxGb = 20.0;              // --k-cache-max-gb
    std::string mpiSplit;                   // --mpi-split rows|poses (empty: poses for a batch, else rows)
    std::string hostRays = "auto";          // tuning.host_rays auto|always|never (pipeline/host_rays.h)
};

// Under MPI: whether this run shares K's rows among the ranks (row-block mode, k/row_share.h);
// throws InputError for what that mode cannot do, and leaves ranks other than 0 logging errors
// only. False with one rank.
bool rowBlockMode(const RunRequest& request, const SceneDesc& scene, bool batch);

struct RunOutcome {
    std::filesystem::path outputDir;
    std::string backend;
    std::size_t triangles = 0;
    double seconds = 0.0;
};

// One run, or a batch when the request or the scene file has poses.
RunOutcome runSimulation(const RunRequest& request);

// A batch (pipeline/run_batch.cpp): the scene at every pose, K computed once.
RunOutcome runBatch(const RunRequest& request, const SceneDesc& scene, const std::vector<PoseDesc>& poses);

// `request` with the scene's [tuning] table applied (pipeline/run_tuning.cpp, docs/tuning.md);
// InputError for tuning that would do nothing.
RunRequest tunedRequest(const RunRequest& request, const SceneDesc& scene);

// The simulation settings of `scene` with the request's K options.
SimConfig configFor(const SceneDesc& scene, const RunRequest& request);
// The run options of `scene` with the request's batch and K-cache options.
RunOptions optionsFor(const SceneDesc& scene, const RunRequest& request);

// The run's description for summary.json (version, command line, start time: now).
RunInfo runInfoFor(const RunRequest& request);
// The scene's meshes loaded and prepared (timed as the `load` phase; `poses` for the log line, 0:
// a single run), with the request's backend (makeBackend) created on another thread while the
// triangles are prepared. Under MPI the ranks then check that they loaded the same triangles
// (pipeline/job_agreement.h).
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

    PhaseBackends phases() const;
    // The run's options and description with `cachedK` and the phases on the CPU.
    void applyTo(RunOptions& options, RunMetadata& meta);
    // Releases the devices (`cpu` first: it holds no device), then ends their thread.
    void release();
    // Before the release: what later runs read is written now (Backend::saveCaches), and the
    // device-local bytes the devices hold, summed (what early_exit.h weighs).
    std::uint64_t saveCachesAndMeasure();
};
SceneAndBackend loadSceneAndBackend(const SceneDesc& scene, const RunRequest& request, std::size_t poses,
                                    PhaseTimes& times);

} // namespace rsim
