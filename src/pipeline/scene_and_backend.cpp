// SPDX-License-Identifier: MIT
// loadSceneAndBackend (run_simulation.h): the meshes read and prepared while the devices are
// chosen and created, and the ways a GPU run may leave rays to the CPU (pipeline/host_rays.h):
// with K from the K cache, or with K computed on the CPU while the devices are created.
#include <future>

#include <spdlog/spdlog.h>

#include "backends/backend_choice.h"
#include "geometry/prepare.h"
#include "k/k_cache.h"
#include "pipeline/job_agreement.h"
#include "pipeline/k_phase.h"
#include "pipeline/run_simulation.h"
#include "scene/mesh_loader.h"
#include "util/host_memory.h"
#include "util/parallel.h"
#include "util/ranks.h"
#include "visibility/scene_shafts.h"
#include "visibility/vulkan_visibility.h"

namespace rsim {

PhaseBackends SceneAndBackend::phases() const {
    PhaseBackends b = PhaseBackends::all(*backend);
    if (cpu) b.geometry = b.direct = b.primary = cpu.get();
    return b;
}

void SceneAndBackend::applyTo(RunOptions& options, RunMetadata& meta) {
    options.k.cached = cachedK ? &*cachedK : nullptr;
    options.k.cachedComputedHere = kComputedOnCpu;
    options.k.cacheFailed = kCacheFailed;
    // A backend without ray tracing casts no ray that the shafts would serve.
    options.sceneShafts = cpu ? nullptr : shafts;
    if (cpu && kComputedOnCpu) meta.cpuPhases = {"visibility", "direct", "primary rays"};
    else if (cpu) meta.cpuPhases = {"direct", "primary rays"};
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

void logScene(const RunPlan& plan, std::size_t poses) {
    const SceneDesc& scene = plan.scene;
    spdlog::info("scene {}: {} mesh(es), {} material(s), T = {}, dt = {} ns, S = {}{}", plan.request.sceneFile.string(),
                 scene.meshes.size(), scene.materials.size(), scene.sim.timesteps, scene.sim.dt_ns, scene.sim.samples,
                 poses ? fmt::format(", {} pose(s)", poses) : std::string());
}

PreparedScene prepare(const LoadedGeometry& geometry, const SceneDesc& scene) {
    PreparedScene prepared = prepareScene(geometry, scene.sim.max_edge_m);
    const std::size_t n = prepared.size();
    const double kGiB = double(n) * double(n) * 4.0 / 1073741824.0;
    if (kGiB > 1.0 && scene.sim.transport != Transport::Paths) spdlog::info("K will take {:.1f} GiB (N = {})", kGiB, n);
    return prepared;
}

// The rays of a GPU run's poses outside K's visibility (direct terms, images), when the run may
// leave rays to the CPU at all: not with tuning.host_rays never or kij_errors, without indirect
// light, or with K's rows shared among MPI ranks.
std::optional<std::uint64_t> hostPoseRays(const RunPlan& plan, std::size_t poses, std::uint64_t triangles) {
    if (plan.hostRays == HostRays::Never || plan.request.kFormatErrors) return std::nullopt;
    if (plan.config.transport == Transport::Paths) return std::nullopt; // no K, no direct terms
    if (!plan.config.indirect || plan.rowBlocks) return std::nullopt;
    return std::uint64_t(std::max<std::size_t>(poses, 1)) * poseRays(triangles, plan.config, plan.scene.output.images);
}

// The rays a GPU run with K from the K cache would leave to the CPU, or 0 when it may not: it
// needs a K cache, and the direct terms' and images' rays of its poses must be few for this
// machine (or tuning.host_rays always).
std::uint64_t hostRaysOf(const RunPlan& plan, std::size_t poses, std::uint64_t triangles) {
    const std::optional<std::uint64_t> rays = plan.kCache() ? hostPoseRays(plan, poses, triangles) : std::nullopt;
    return rays && (plan.hostRays == HostRays::Always || fewHostRays(*rays, threadCount())) ? *rays : 0;
}

// Whether a GPU run may leave K's rays and the others to the CPU when K is not in the K cache:
// few rays of both kinds for this machine (or tuning.host_rays always, as long as the CPU's fp32
// K takes at most a quarter of the host memory available: the host's memory forecast comes
// later, in simulateBatch, and would not see this K).
bool hostKPossible(const RunPlan& plan, std::size_t poses, std::uint64_t triangles) {
    const std::optional<std::uint64_t> rays = hostPoseRays(plan, poses, triangles);
    if (!rays) return false;
    if (plan.hostRays == HostRays::Always) return triangles * triangles * 4 <= availableHostBytes() / 4;
    return fewHostRays(*rays, threadCount()) && fewHostKRays(kRaysBound(triangles, plan.config.k), threadCount());
}

// An upper bound of the run's triangles from the meshes' own: each may get a reversed twin
// (geometry/prepare.h); with subdivision there is none (0).
std::uint64_t trianglesAtMost(const SceneDesc& scene, std::size_t loaded) {
    return scene.sim.max_edge_m > 0.0 ? 0 : 2 * std::uint64_t(loaded);
}

// Whether the CPU may compute K for a GPU run on `selected`: with tuning.host_rays auto only
// where the path needs acceleration structures; elsewhere (the bvh path) a device with rays is
// created as soon as one without, so K is the GPU's, whatever the CPU's thread count.
bool cpuMayComputeKFor(const VulkanSelection& selected, const RunPlan& plan) {
    return selected && (vk::usesAccelerationStructures(selected.path) || plan.hostRays != HostRays::Auto);
}

// The GPU run of the chosen devices without ray tracing, created while the CPU computes K, when
// the CPU may (cpuMayComputeKFor) and the rays are few for it (pipeline/host_rays.h); otherwise
// nothing happens.
bool loadWithHostK(SceneAndBackend& out, BackendThread& devices, const RunPlan& plan, std::size_t poses,
                   PhaseTimes& times) {
    if (!cpuMayComputeKFor(devices.selection(), plan) || !hostKPossible(plan, poses, out.prepared.size()))
        return false;
    // When computing K fails, the devices go once made (BackendThread drops what no one takes).
    std::future<std::unique_ptr<Backend>> backend = devices.make(false, out.prepared.size());
    const KSettings& k = plan.config.k;
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
bool loadWithHostRays(SceneAndBackend& out, BackendThread& devices, const RunPlan& plan, std::size_t poses,
                      PhaseTimes& times) {
    const VulkanSelection& selected = devices.selection();
    const std::uint64_t rays = selected ? hostRaysOf(plan, poses, out.prepared.size()) : 0;
    if (rays == 0) return false;
    RunMetadata described;
    selected.describe(described);
    const KSettings& k = plan.config.k;
    const KChunking chunking = KChunking::forBudget(std::uint32_t(out.prepared.size()), k.format, k.chunkBytes);
    const KCache cache(plan.options.k.cacheDir, plan.options.k.cacheMaxBytes);
    const std::string key = KCache::key(out.prepared, k, chunking, KCache::computedBy(described));
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

SceneAndBackend loadSceneAndBackend(const RunPlan& plan, std::size_t poses, PhaseTimes& times) {
    Stopwatch sw;
    const SceneDesc& scene = plan.scene;
    const BackendChoice& choice = plan.request.backend;
    logScene(plan, poses);
    // The Vulkan instance is created on another thread while assimp reads the meshes in child
    // processes (scene/mesh_import.h), once they have all been forked: a fork while another
    // thread allocates can leave the child a lock that is never released (it did under
    // AddressSanitizer, whose allocator GCC 12 does not prepare for fork). The devices are
    // created on that thread after it (backends/backend_thread.h), which ends when they are
    // released.
    std::unique_ptr<BackendThread> devices;
    const LoadedGeometry geometry =
        loadMeshes(scene, [&devices, &choice] { devices = std::make_unique<BackendThread>(choice); });
    // A GPU device takes 0.06-0.3 s to create (docs/benchmarks.md, "GPU start-up"): it is made as
    // soon as the instance has chosen it, while this thread prepares the triangles. Two kinds of
    // run may make it without ray tracing instead (pipeline/host_rays.h), with K from elsewhere:
    // one whose K the K cache may hold, with few other rays, waits for the triangles, which tell
    // whether the cache holds K; one whose K the CPU may compute waits only when the chosen
    // device's ray path lets the CPU take K (on the bvh path, with tuning.host_rays auto, the
    // device casts K). (Subdivision only adds triangles: too many rays for the meshes' are too
    // many after it.)
    const bool cacheMayHoldK = hostRaysOf(plan, poses, geometry.v0.size()) > 0;
    const bool cpuMayTakeK = hostKPossible(plan, poses, geometry.v0.size());
    std::future<std::unique_ptr<Backend>> early;
    if (!cacheMayHoldK)
        early = devices->run([&plan, &choice, cpuMayTakeK, atMost = trianglesAtMost(scene, geometry.v0.size())](
                                 const VulkanSelection& selected) -> std::unique_ptr<Backend> {
            if (cpuMayTakeK && cpuMayComputeKFor(selected, plan)) return nullptr; // decided below
            return makeBackend(choice, selected, true, atMost);
        });
    SceneAndBackend out;
    out.prepared = prepare(geometry, scene);
    // What the GPU's ray passes build on the host from the triangles (rsim's BVH, the edge
    // neighbours, the tiles' sample: 0.01-0.02 s for the medium room), built here while the
    // driver creates the devices instead of after (wasted where "auto" finds no GPU, or where the
    // CPU then computes K: small scenes only).
    auto buildShafts = [&] { out.shafts = buildSceneShafts(out.prepared, tileListMax(plan.config.k)); };
    if (!cacheMayHoldK && choice.backend != "cpu") buildShafts();
    times.add("load", sw.seconds());
    out.backend = early.valid() ? early.get() : nullptr;
    if (!out.backend && !loadWithHostRays(out, *devices, plan, poses, times) &&
        !loadWithHostK(out, *devices, plan, poses, times)) {
        // The devices are made now, and the ray passes' host part beside them (as above).
        std::future<std::unique_ptr<Backend>> made = devices->make(true, out.prepared.size());
        if (devices->selection() && choice.backend != "cpu" && !out.shafts) buildShafts();
        out.backend = made.get();
    }
    out.devices = std::move(devices);
    // Under MPI every rank read the same meshes (pose mode would mix results of different scenes).
    if (Ranks::world().many()) checkRanksAgree(Ranks::world(), triangleFingerprint(out.prepared));
    return out;
}

} // namespace rsim
