// SPDX-License-Identifier: MIT
#include "pipeline/run_simulation.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <future>

#include <spdlog/spdlog.h>

#include "backends/backend_choice.h"
#include "backends/backend_thread.h"
#include "geometry/prepare.h"
#include "k/k_cache.h"
#include "pipeline/host_rays.h"
#include "pipeline/job_agreement.h"
#include "pipeline/simulate.h"
#include "scene/scene_config.h"
#include "output/file_modules.h"
#include "output/results_writer.h"
#include "scene/mesh_loader.h"
#include "scene/poses.h"
#include "util/early_exit.h"
#include "util/error.h"
#include "util/host_memory.h"
#include "util/parallel.h"
#include "util/ranks.h"
#include "util/timer.h"
#include "visibility/scene_shafts.h"
#include "visibility/vulkan_visibility.h"

namespace rsim {

namespace {

std::string isoNowUtc() {
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return buf;
}

} // namespace

RunInfo runInfoFor(const RunRequest& req) {
    RunInfo info;
    info.version = RSIM_VERSION;
    info.commandLine = req.commandLine;
    info.startedAt = isoNowUtc();
    return info;
}

namespace {

void logScene(const SceneDesc& scene, const RunRequest& req, std::size_t poses) {
    spdlog::info("scene {}: {} mesh(es), {} material(s), T = {}, dt = {} ns, S = {}{}", req.sceneFile.string(),
                 scene.meshes.size(), scene.materials.size(), scene.sim.timesteps, scene.sim.dt_ns, scene.sim.samples,
                 poses ? fmt::format(", {} pose(s)", poses) : std::string());
}

PreparedScene prepare(const LoadedGeometry& geometry, const SceneDesc& scene) {
    PreparedScene prepared = prepareScene(geometry, scene.sim.max_edge_m);
    const std::size_t n = prepared.size();
    const double kGiB = double(n) * double(n) * 4.0 / 1073741824.0;
    if (kGiB > 1.0) spdlog::info("K will take {:.1f} GiB (N = {})", kGiB, n);
    return prepared;
}

} // namespace

PhaseBackends SceneAndBackend::phases() const {
    PhaseBackends b = PhaseBackends::all(*backend);
    if (cpu) b.geometry = b.direct = b.primary = cpu.get();
    return b;
}

void SceneAndBackend::applyTo(RunOptions& options, RunMetadata& meta) {
    options.cachedK = cachedK ? &*cachedK : nullptr;
    options.cachedKComputedHere = kComputedOnCpu;
    options.kCacheFailed = kCacheFailed;
    if (cpu) meta.cpuPhases = {"direct", "primary rays"};
    if (kComputedOnCpu) meta.cpuPhases.insert(meta.cpuPhases.begin(), "visibility");
}

void SceneAndBackend::release() {
    cpu.reset();
    backend.reset();
    devices.reset();
}

std::uint64_t SceneAndBackend::saveCachesAndMeasure() {
    std::uint64_t bytes = 0;
    for (Backend* b : {backend.get(), cpu.get()}) {
        if (!b) continue;
        b->saveCaches();
        for (std::uint64_t d : b->deviceBytesInUse()) bytes += d;
    }
    return bytes;
}

namespace {

// What decides whether a GPU run of `triangles` leaves rays to the CPU (pipeline/host_rays.h):
// the mode, the run's settings and the rays of its poses outside K's visibility (direct terms,
// images). Nothing when it never may: --host-rays never, --kij-errors, no indirect light, or K's
// rows shared among MPI ranks.
struct HostRaysCase {
    HostRays mode;
    SimConfig config;
    std::uint64_t poseRays;
};
std::optional<HostRaysCase> hostRaysCase(const SceneDesc& scene, const RunRequest& req, std::size_t poses,
                                         std::uint64_t triangles) {
    const HostRays mode = parseHostRays(req.hostRays);
    if (mode == HostRays::Never || req.kFormatErrors) return std::nullopt;
    SimConfig config = configFor(scene, req);
    if (!config.indirect || rowBlockMode(req, scene, poses > 0)) return std::nullopt;
    const std::uint64_t rays =
        std::uint64_t(std::max<std::size_t>(poses, 1)) * poseRays(triangles, config, scene.output.images);
    return HostRaysCase{mode, std::move(config), rays};
}

// The rays a GPU run with K from the K cache would leave to the CPU, or 0 when it may not: it
// needs a K cache, and the direct terms' and images' rays of its poses must be few for this
// machine (or --host-rays always).
std::uint64_t hostRaysOf(const SceneDesc& scene, const RunRequest& req, std::size_t poses, std::uint64_t triangles) {
    const bool kCache = !req.noKCache && (req.kCacheDir || !KCache::defaultDir().empty());
    const std::optional<HostRaysCase> c = kCache ? hostRaysCase(scene, req, poses, triangles) : std::nullopt;
    return c && (c->mode == HostRays::Always || fewHostRays(c->poseRays, threadCount())) ? c->poseRays : 0;
}

// Whether a GPU run may leave K's rays and the others to the CPU when K is not in the K cache:
// few rays of both kinds for this machine (or --host-rays always, as long as the CPU's fp32 K takes
// at most a quarter of the host memory available: the host's memory forecast comes later, in
// simulateBatch, and would not see this K).
bool hostKPossible(const SceneDesc& scene, const RunRequest& req, std::size_t poses, std::uint64_t triangles) {
    const std::optional<HostRaysCase> c = hostRaysCase(scene, req, poses, triangles);
    if (!c) return false;
    if (c->mode == HostRays::Always) return triangles * triangles * 4 <= availableHostBytes() / 4;
    return fewHostRays(c->poseRays, threadCount()) && fewHostKRays(kRaysBound(triangles, c->config.k), threadCount());
}

// An upper bound of the run's triangles from the meshes' own: each may get a reversed twin
// (geometry/prepare.h); with subdivision there is none (0).
std::uint64_t trianglesAtMost(const SceneDesc& scene, std::size_t loaded) {
    return scene.sim.max_edge_m > 0.0 ? 0 : 2 * std::uint64_t(loaded);
}

// Whether the CPU may compute K for a GPU run on `selected`: with --host-rays auto only where the
// path needs acceleration structures; elsewhere (the bvh path) a device with rays is created as
// soon as one without, so K is the GPU's, whatever the CPU's thread count.
bool cpuMayComputeKFor(const VulkanSelection& selected, const RunRequest& req) {
    return selected && (vk::usesAccelerationStructures(selected.path) || parseHostRays(req.hostRays) != HostRays::Auto);
}

// The GPU run of the chosen devices without ray tracing, created while the CPU computes K, when
// the CPU may (cpuMayComputeKFor) and the rays are few for it (pipeline/host_rays.h); otherwise
// nothing happens.
bool loadWithHostK(SceneAndBackend& out, BackendThread& devices, const SceneDesc& scene, const RunRequest& req,
                   std::size_t poses, PhaseTimes& times) {
    if (!cpuMayComputeKFor(devices.selection(), req) || !hostKPossible(scene, req, poses, out.prepared.size()))
        return false;
    // When computing K fails, the devices go once made (BackendThread drops what no one takes).
    std::future<std::unique_ptr<Backend>> backend = devices.make(false, out.prepared.size());
    const KSettings k = configFor(scene, req).k;
    spdlog::info("rays on the CPU: K's rays (at most about {}) and the others are few for {} thread(s); the CPU "
                 "computes K while the GPU is created without ray tracing for the transport (--host-rays never: "
                 "the GPU casts them)",
                 kRaysBound(out.prepared.size(), k), threadCount());
    // Its Embree BVH is built again when simulateBatch prepares every backend: a few ms for the
    // scenes that take this way.
    std::unique_ptr<Backend> cpu = makeCpuBackend();
    Stopwatch sw;
    cpu->prepare(out.prepared);
    times.add("accel", sw.seconds());
    RunMetadata computed;
    VisibilityStats stats;
    const std::unique_ptr<KHandle> K = computeK(*cpu, k, times, computed, stats, nullptr);
    out.cachedK = CachedK{K->host(), stats, computed.k};
    out.kComputedOnCpu = true;
    out.backend = backend.get();
    out.cpu = std::move(cpu);
    return true;
}

// The GPU run of the chosen devices without ray tracing, with K read from the K cache while they
// are created (pipeline/host_rays.h), when the cache holds K and the run's other rays are few
// enough; otherwise nothing happens and the caller makes the usual backend.
bool loadWithHostRays(SceneAndBackend& out, BackendThread& devices, const SceneDesc& scene, const RunRequest& req,
                      std::size_t poses, PhaseTimes& times) {
    const VulkanSelection& selected = devices.selection();
    const std::uint64_t rays = selected ? hostRaysOf(scene, req, poses, out.prepared.size()) : 0;
    if (rays == 0) return false;
    const SimConfig config = configFor(scene, req);
    const RunOptions options = optionsFor(scene, req);
    RunMetadata described;
    selected.describe(described);
    const KChunking chunking =
        KChunking::forBudget(std::uint32_t(out.prepared.size()), config.k.format, config.k.chunkBytes);
    const KCache cache(options.kCacheDir, options.kCacheMaxBytes);
    const std::string key = KCache::key(out.prepared, config.k, chunking, KCache::computedBy(described));
    if (!cache.holds(key, chunking)) return false;

    // When reading K fails, the devices go once made, before others are (BackendThread runs one
    // job after the other, and drops what no one takes).
    std::future<std::unique_ptr<Backend>> backend = devices.make(false, out.prepared.size());
    Stopwatch sw;
    std::optional<CachedK> hit = cache.load(key, chunking);
    if (!hit) { // the cache said why; K is computed on devices with ray tracing, and stored afresh
        out.kCacheFailed = true;
        return false;
    }
    times.add("k_cache", sw.seconds());
    spdlog::info("K cache: K ({}, {:.1f} MiB) read from {} in {:.3f} s, while the devices were created",
                 hit->storage.format, double(hit->storage.bytes) / 1048576.0, cache.fileOf(key).string(),
                 sw.seconds());
    spdlog::info("rays on the CPU: with K from the K cache, the other {} rays are few for {} thread(s); the GPU "
                 "runs the transport without ray tracing (--host-rays never: the GPU casts them)",
                 rays, threadCount());
    out.cachedK = std::move(hit);
    out.backend = backend.get();
    out.cpu = makeCpuBackend();
    return true;
}

} // namespace

SceneAndBackend loadSceneAndBackend(const SceneDesc& scene, const RunRequest& req, std::size_t poses,
                                    PhaseTimes& times) {
    Stopwatch sw;
    logScene(scene, req, poses);
    // The Vulkan instance (about 0.1 s on an H100's driver) is created on another thread while
    // assimp reads the meshes in child processes (scene/mesh_import.h), once they have all been
    // forked: a fork while another thread allocates can leave the child a lock that is never
    // released (it did under AddressSanitizer, whose allocator GCC 12 does not prepare for fork).
    // The devices are created on that thread after it (backends/backend_thread.h), which ends
    // when they are released.
    std::unique_ptr<BackendThread> devices;
    const LoadedGeometry geometry =
        loadMeshes(scene, [&devices, &req] { devices = std::make_unique<BackendThread>(req.backend); });
    // A GPU device takes 0.06-0.3 s to create (docs/benchmarks.md, "GPU start-up"): it is made as
    // soon as the instance has chosen it, while this thread prepares the triangles. Two kinds of
    // run may make it without ray tracing instead (pipeline/host_rays.h), with K from elsewhere:
    // one whose K the K cache may hold, with few other rays, waits for the triangles, which tell
    // whether the cache holds K; one whose K the CPU may compute waits only when the chosen
    // device's ray path lets the CPU take K (on the bvh path, with --host-rays auto, the device
    // casts K). (Subdivision only adds triangles: too many rays for the meshes' are too many
    // after it.)
    const bool cacheMayHoldK = hostRaysOf(scene, req, poses, geometry.v0.size()) > 0;
    const bool cpuMayTakeK = hostKPossible(scene, req, poses, geometry.v0.size());
    std::future<std::unique_ptr<Backend>> early;
    if (!cacheMayHoldK)
        early = devices->run([&req, cpuMayTakeK, atMost = trianglesAtMost(scene, geometry.v0.size())](
                                 const VulkanSelection& selected) -> std::unique_ptr<Backend> {
            if (cpuMayTakeK && cpuMayComputeKFor(selected, req)) return nullptr; // decided below
            return makeBackend(req.backend, selected, true, atMost);
        });
    SceneAndBackend out;
    out.prepared = prepare(geometry, scene);
    // What the GPU's ray passes build on the host from the triangles (rsim's BVH, the edge
    // neighbours, the tiles' sample: 0.01-0.02 s for the medium room), built here while the
    // driver creates the devices instead of after (wasted where "auto" finds no GPU, or where the
    // CPU then computes K: small scenes only).
    std::shared_ptr<const SceneShafts> shafts;
    auto buildShafts = [&] { shafts = buildSceneShafts(out.prepared, tileListMax(configFor(scene, req).k)); };
    if (!cacheMayHoldK && req.backend.backend != "cpu") buildShafts();
    times.add("load", sw.seconds());
    out.backend = early.valid() ? early.get() : nullptr;
    if (!out.backend && !loadWithHostRays(out, *devices, scene, req, poses, times) &&
        !loadWithHostK(out, *devices, scene, req, poses, times)) {
        // The devices are made now, and the ray passes' host part beside them (as above).
        std::future<std::unique_ptr<Backend>> made = devices->make(true, out.prepared.size());
        if (devices->selection() && req.backend.backend != "cpu" && !shafts) buildShafts();
        out.backend = made.get();
    }
    if (shafts && !out.cpu) out.backend->adoptSceneShafts(std::move(shafts));
    out.devices = std::move(devices);
    // Under MPI every rank read the same meshes (pose mode would mix results of different scenes).
    if (Ranks::world().many()) checkRanksAgree(Ranks::world(), triangleFingerprint(out.prepared));
    return out;
}

SimConfig configFor(const SceneDesc& scene, const RunRequest& req) {
    SimConfig config = makeSimConfig(scene);
    if (!req.kFormat.empty()) config.k.format = parseKFormat(req.kFormat);
    config.k.chunkBytes = std::uint64_t(req.chunkMb * 1048576.0);
    config.k.formatErrors = req.kFormatErrors;
    return config;
}

RunOptions optionsFor(const SceneDesc& scene, const RunRequest& req) {
    RunOptions options;
    options.keepK = scene.output.kij;
    options.images = scene.output.images;
    options.timeseries = scene.output.timeseries;
    options.maxPoseGroup = req.maxPoseGroup;
    if (!req.noKCache) options.kCacheDir = req.kCacheDir ? *req.kCacheDir : KCache::defaultDir();
    options.kCacheMaxBytes = std::uint64_t(req.kCacheMaxGb * 1073741824.0);
    if (options.kCacheDir.empty() && !req.noKCache)
        spdlog::debug("K cache: off (neither XDG_CACHE_HOME nor HOME is set; use --k-cache DIR)");
    return options;
}

bool rowBlockMode(const RunRequest& req, const SceneDesc& scene, bool batch) {
    if (!Ranks::world().many()) return false;
    const bool rows = req.mpiSplit.empty() ? !batch : req.mpiSplit == "rows";
    if (!rows) return false;
    // Each rank holds its rows of K only: what needs all of K in one place cannot run.
    if (scene.output.kij)
        throw InputError("output.kij (--write-kij) needs all of K in one process; under mpirun with --mpi-split rows "
                         "each rank holds its rows only. Drop it, or run one process");
    if (req.kFormatErrors)
        throw InputError("--kij-errors needs all of K in one process; under mpirun with --mpi-split rows each rank "
                         "holds its rows only. Drop it, or run one process");
    // Every rank runs the same phases and would repeat rank 0's warnings: the others report
    // errors only.
    if (Ranks::world().rank() > 0) spdlog::set_level(spdlog::level::err);
    return true;
}

RunOutcome runSimulation(const RunRequest& given) {
    SceneDesc scene = loadSceneFile(given.sceneFile, given.overrides);
    const RunRequest req = tunedRequest(given, scene);
    if (req.outputDir) scene.output.dir = std::filesystem::absolute(*req.outputDir);
    // Under MPI: the first collective of every job, before the ranks take their ways (a rank
    // with --poses beside one without would otherwise wait in another collective for ever).
    if (Ranks::world().many()) checkRanksAgree(Ranks::world(), jobFingerprint(req, scene));
    if (req.posesFile) {
        if (!scene.poses.empty())
            spdlog::warn("--poses {}: replaces the scene file's {} [[pose]] table(s)", req.posesFile->string(),
                         scene.poses.size());
        return runBatch(req, scene, readPosesCsv(*req.posesFile));
    }
    if (!scene.poses.empty()) return runBatch(req, scene, scene.poses);
    if (req.maxPoseGroup > 0 || req.writers > 0)
        throw InputError(std::string(req.maxPoseGroup > 0 ? "tuning.pose_group" : "tuning.writers") +
                         " (--" + (req.maxPoseGroup > 0 ? "pose-group" : "writers") +
                         "): sets how a batch of poses runs, and this run has one pose (no --poses FILE, no [[pose]] "
                         "tables in the scene file); drop it");
    const Ranks& ranks = Ranks::world();
    if (ranks.many() && !rowBlockMode(req, scene, false))
        throw InputError("--mpi-split poses shares the poses of a batch (--poses FILE or [[pose]] tables) among the "
                         "ranks; this run has one pose. Use --mpi-split rows (the default for one pose)");

    Stopwatch total;
    PhaseTimes times;
    RunInfo info = runInfoFor(req);
    info.rowRanks = ranks.size();
    // Fail in milliseconds on an unusable output directory, not after the simulation.
    if (ranks.rank() == 0) {
        checkOutputDirectory(scene.output.dir);
        checkWriters(scene.output, false);
    }
    SceneAndBackend loaded = loadSceneAndBackend(scene, req, 0, times);
    const PreparedScene& prepared = loaded.prepared;
    const std::size_t n = prepared.size();

    SimConfig config = configFor(scene, req);
    RunOptions options = optionsFor(scene, req);
    if (ranks.many()) options.rowRanks = &ranks;
    RunMetadata meta;
    loaded.applyTo(options, meta);
    std::future<void> writersOpen; // rank 0 writes the files
    if (ranks.rank() == 0) options.loopStarted = [&] { writersOpen = openWriters(scene.output, false); };
    SimulationResult result = simulate(loaded.phases(), prepared, config, options, times, meta);
    const std::uint64_t deviceBytes = loaded.saveCachesAndMeasure();
    // The results are in host memory: the devices go (with the driver's teardown, 0.04-0.05 s on an
    // H100) while the outputs are written. On an error, the future's destructor waits for them.
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

    std::size_t withDistance = 0;
    double sumAbs = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(result.distance[i])) continue;
        ++withDistance;
        double truth = double(glm::length(prepared.centroid[i] - config.sensor.position));
        sumAbs += std::abs(result.distance[i] - truth);
    }
    const double windowNs = double(config.timesteps) * config.dtNs;
    if (withDistance == 0 && result.echoesCutOff > 0)
        throw InputError(fmt::format(
            "no triangle got a distance: the echoes of {} triangle(s) were cut off at the end of the time window ({} timesteps of {} ns = {:.6g} ns). "
            "Raise simulation.timesteps (--timesteps), e.g. to {}, or simulation.dt_ns.",
            result.echoesCutOff, config.timesteps, config.dtNs, windowNs,
            std::uint64_t(config.timesteps) * 2));
    if (withDistance == 0)
        throw InputError(fmt::format(
            "no triangle got a distance: no triangle the sensor sees returned a usable echo "
            "within the time window ({} timesteps of {} ns = {:.6g} ns). Check [light] and "
            "[sensor], or raise simulation.timesteps.",
            config.timesteps, config.dtNs, windowNs));
    if (result.echoesCutOff > 0)
        spdlog::warn("{} triangle(s) have their echo peak too close to the end of the simulated "
                     "time ({} steps of {} ns) and get no distance; increase timesteps",
                     result.echoesCutOff, config.timesteps, config.dtNs);

    writeResultsDirectory(scene.output.dir, ResultsView{scene, prepared, config, result, meta, info}, times);
    ranks.barrier();
    out.seconds = total.seconds();
    spdlog::info("wrote {} ({} triangles, {} with a distance, mean |error| {:.2f} mm{}) in {:.2f} s",
                 out.outputDir.string(), n, withDistance,
                 withDistance ? 1e3 * sumAbs / double(withDistance) : 0.0,
                 ranks.many() ? fmt::format("; K's rows over {} ranks", ranks.size()) : std::string(), out.seconds);
    // The command may end here; the devices' release goes on unseen (util/early_exit.h).
    earlyexit::resultsInPlace(deviceBytes);
    released.get();
    return out;
}

} // namespace rsim
