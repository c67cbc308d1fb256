// SPDX-License-Identifier: MIT
// The simulation, written once: the phases of MODEL.md in order, run by a backend (or, phase by
// phase, by several), with their timings, log lines and checks.
#pragma once
#include <array>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/run_metadata.h"
#include "k/k_cache.h"
#include "util/ranks.h"
#include "util/timer.h"

namespace rsim {

// K kept between batches on one backend (import rsim's Simulator): a batch given a HeldK with a
// K uses it instead of computing or reading K, and one with an empty HeldK leaves its K there.
// Only for the backend that made it, with the same triangles and K settings.
struct HeldK {
    std::unique_ptr<KHandle> K;
    VisibilityStats stats;
    KStorageReport storage;
};

// Where a batch's K comes from, besides computing it: the K cache, a K kept from an earlier
// batch (import rsim), or a K read or computed before the batch (pipeline/host_rays.h).
struct KSource {
    // The K cache (k/k_cache.h): its folder (empty: none) and the most it may hold.
    std::filesystem::path cacheDir;
    std::uint64_t cacheMaxBytes = 20ull << 30;
    // The cache's file for this K was read before the batch and rejected (with a warning): K is
    // computed and stored afresh without reading it again.
    bool cacheFailed = false;
    HeldK* held = nullptr; // K from and for other batches on the same backend (none: not kept)
    // K already read from the K cache while the devices were created, used as the cache's K
    // would be; the caller has timed and logged the read. The run is then described by the
    // transport's backend, which computed no K.
    CachedK* cached = nullptr;
    // `cached` was computed by the CPU in this process, not read from the cache; its phases
    // are timed already.
    bool cachedComputedHere = false;
};

struct RunOptions {
    bool keepK = false; // return the decoded K (output.kij, tests)
    bool images = true; // render the sensor image
    bool timeseries = true; // B, Z, E, R in host memory for the result (output.timeseries)
    // The caller keeps every pose's result until the batch ends (the Python module stacks them
    // into its arrays): the memory check counts them all, not one pose's.
    bool keepsEveryPose = false;
    // Poses whose transport runs at once, at most (0: as many as memory allows).
    std::uint32_t maxPoseGroup = 0;
    KSource k;
    // What the host built from the scene for the GPU's ray passes while the devices were
    // created (BackendSettings::shafts), or null.
    std::shared_ptr<const SceneShafts> sceneShafts;
    // Called by simulateBatch once K is in place (computed and stored in the cache, read from it,
    // or not needed), before the first pose's transport: the MPI ranks that read rank 0's K
    // from the cache wait for this (pipeline/run_batch.cpp).
    std::function<void()> kReady;
    // Called once, when the first pose group's time loop is under way, from where the host mostly
    // waits for the devices (Backend::transport): runSimulation opens the output modules there.
    std::function<void()> loopStarted;
    // Row-block mode of an MPI job (k/row_share.h): K's rows shared among these ranks, each
    // rank computing its rows' K and far sums. Every rank runs every pose's transport; only
    // rank 0 runs the poses' signals, distances and images and hands them to the sink. No K
    // cache, no held K, no keepK.
    const Ranks* rowRanks = nullptr;
};

// One pose of a batch: a name for messages and its configuration, which differs from the other
// poses' only in the light and the sensor.
struct PoseConfig {
    std::string label; // "pose \"a\" (poses.csv:2)"
    SimConfig config;
};

// How a batch ran (summary.json `batch`).
struct BatchReport {
    std::uint32_t poses = 0, groupSize = 0, groups = 0;
    // The poses handed to the sink that got a distance, and the echoes cut off at the end of the
    // time window in the first pose (pipeline/run_checks.h, checkSomeDistance).
    std::uint32_t posesWithDistance = 0, firstEchoesCutOff = 0;
};

// Receives each pose's result as soon as it is complete, in pose order, with the times of its
// own phases (direct, distance; radiosity as its share of its group's). It may move from
// `result`.
using PoseSink = std::function<void(std::size_t pose, SimulationResult& result, const PhaseTimes& times)>;

// The backends that run each phase; usually one backend for all of them. Every one of them is
// prepared for the scene.
struct PhaseBackends {
    Backend* geometry;  // visibility
    Backend* direct;    // the direct terms
    Backend* transport; // the transport
    Backend* distances; // the signals and the distances
    Backend* primary;   // the sensor image's primary rays
    Backend* image;     // the sensor image's pixels (from the histories)

    static PhaseBackends all(Backend& b) { return {&b, &b, &b, &b, &b, &b}; }
    std::array<Backend*, 6> roles() const { return {geometry, direct, transport, distances, primary, image}; }
};

// The geometry phase once (K from `config[0].k`), then the pose phase of every pose, the
// transport of up to a group of poses at once; `times` gets the shared phases and the sums of
// the per-pose ones. Each pose's result equals that of simulate() with its configuration.
BatchReport simulateBatch(const PhaseBackends& backends, const PreparedScene& scene,
                          const std::vector<PoseConfig>& poses, const RunOptions& options, PhaseTimes& times,
                          RunMetadata& meta, const PoseSink& sink);

// Runs every phase on `scene`; `times` gets the phases' wall times (summary.json timings_s) and
// `meta` the run's description (backend and devices from the first backend).
SimulationResult simulate(const PhaseBackends& backends, const PreparedScene& scene,
                          const SimConfig& config, const RunOptions& options, PhaseTimes& times,
                          RunMetadata& meta);

} // namespace rsim
