// SPDX-License-Identifier: MIT
// The Vulkan backend's devices and scene, its geometry phase (visibility: K by the route the
// plan chooses) and its per-pose phases (direct terms, signals, distances, image). The transport
// is in backend_transport.cpp.
#include "backends/vulkan/backend.h"

#include <algorithm>
#include <cstring>
#include <string>

#include <spdlog/spdlog.h>

#include "accel/ray_bvh.h"
#include "accel/tile_lists.h"
#include "backends/vulkan/k_routes.h"
#include "backends/vulkan_backend.h"
#include "direct/vulkan_direct.h"
#include "distance/vulkan_distance.h"
#include "paths/vulkan_paths.h"
#include "k/vulkan_k_compact.h"
#include "k/vulkan_log_encode.h"
#include "transport/sources.h"
#include "transport/vulkan_near_pairs.h"
#include "util/error.h"
#include "util/timer.h"
#include "visibility/scene_shafts.h"
#include "visibility/vulkan_visibility.h"
#include "vulkan/pipeline_cache.h"

namespace rsim {

VulkanBackend::VulkanBackend(std::shared_ptr<vk::Instance> instance, const std::vector<const vk::PhysicalDeviceInfo*>& infos,
                             vk::RayPath path, const KMemoryLimits& limits, TransportTuning tuning, bool rays,
                             bool transferQueues)
    : instance_(std::move(instance)), limits_(limits), tuning_(tuning), rays_(rays) {
    for (std::size_t d = 0; d < infos.size(); ++d) {
        VulkanSlot s;
        // Several devices pass far sums through host memory they import (transport).
        s.device = std::make_unique<vk::Device>(*instance_, *infos[d], path,
                                                "device " + std::to_string(d) + " (" + infos[d]->name + ")", rays,
                                                transferQueues, infos.size() > 1);
        s.budgetAtStart = s.device->deviceLocalBudget();
        s.device->setUseCap(limits.maxDeviceBytes);
        slots_.push_back(std::move(s));
    }
}

void VulkanBackend::describe(RunMetadata& meta) const {
    meta.backend = "vulkan";
    for (const auto& slot : slots_) meta.devices.push_back(slot.device->info().described());
    meta.visibilityPath = vk::rayPathName(slots_[0].device->rayPath());
}

void VulkanBackend::configure(const BackendSettings& settings) {
    share_ = settings.rowShare;
    if (settings.shafts) adopted_ = settings.shafts;
    expectPhases(settings.expected);
}

// The pose phases run on the first device; their pipelines, and the visibility's on every
// device, compile while the scene is placed and the direct terms computed.
void VulkanBackend::expectPhases(const ExpectedPhases& e) {
    vk::Device& d = *slots_[0].device;
    const bool rays = d.rays();
    std::vector<vk::PipelineRecipe> recipes;
    if (e.direct && rays) recipes.push_back(directRecipe(d));
    const std::vector<vk::PipelineRecipe> pose = poseOutputRecipes(d, e.distances, e.image, e.primaryRays && rays);
    recipes.insert(recipes.end(), pose.begin(), pose.end());
    d.pipelineWarmup().start(recipes);
    if (e.visibility && rays)
        for (VulkanSlot& slot : slots_) warmVisibilityPipelines(*slot.device, *e.visibility);
}

// What follows K on the devices (its encoding, row sums and near lists, the near steps) compiles
// while the visibility runs; a device that turns out not to need one only compiled it.
void VulkanBackend::warmAfterVisibility(KFormat format, KLayout layout) {
    const std::uint32_t storage = kFormatInfo(format).storage;
    std::vector<vk::PipelineRecipe> recipes{formFactorSumsRecipe(storage), nearPairsRecipe(storage),
                                            radiosityNearRecipe()};
    if (kFormatInfo(format).logTable) recipes.push_back(logEncodeRecipe(format));
    if (layout == KLayout::Segments) recipes.push_back(compactRecipe(storage));
    for (VulkanSlot& slot : slots_) slot.device->pipelineWarmup().start(recipes);
}

// Every device gets the scene and its acceleration structure: with several devices, K's
// chunks and the transport's rows are spread over all of them.
void VulkanBackend::prepare(const PreparedScene& scene) {
    scene_ = &scene;
    dropBatchReuse();
    placed_.reset();
    placedFrom_ = nullptr;
    for (auto& slot : slots_) {
        slot.passes = {};
        slot.geometry.reset();
        slot.accel.reset();
    }
    for (std::size_t d = 0; d < slots_.size(); ++d) prepareDevice(d);
}

void VulkanBackend::prepareDevice(std::size_t d) {
    VulkanSlot& slot = slots_[d];
    const PreparedScene& s = scene();
    if (!rays_) { // the transport and distance passes read the triangles only
        slot.geometry = std::make_unique<GpuGeometry>(*slot.device, s, std::vector<shared::RayBvhNode>{},
                                                      std::vector<std::uint32_t>{}, std::vector<glm::uvec3>{});
        return;
    }
    std::call_once(shaftsBuilt_, [&] {
        shafts_ = adopted_ && adopted_->builtFrom(s) ? adopted_ : buildSceneShafts(s, 0);
        adopted_.reset();
        // The shafts' queries traverse the four-wide nodes as built (a box that only touches
        // a shaft's face stays out); the bvh path's rays the same nodes widened.
        queryNodes_ = rayBvhNodes(shafts_->bvh, 0.0f);
        if (std::any_of(slots_.begin(), slots_.end(), [](const VulkanSlot& x) { return !x.device->accelerationStructures(); }))
            rayNodes_ = rayBvhNodes(shafts_->bvh, rayBvhWiden(s));
    });
    slot.geometry = std::make_unique<GpuGeometry>(*slot.device, s, queryNodes_, shafts_->bvh.prims, shafts_->edges);
    if (!slot.device->accelerationStructures()) { // the bvh path: rsim's own BVH
        slot.accel = std::make_unique<vk::SceneAccel>(*slot.device, rayNodes_, shafts_->bvh.leafTriangles(s));
        return;
    }
    std::vector<glm::vec3> vertices(3 * s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        vertices[3 * i] = s.v0[i];
        vertices[3 * i + 1] = s.v1[i];
        vertices[3 * i + 2] = s.v2[i];
    }
    slot.accel = std::make_unique<vk::SceneAccel>(*slot.device, vertices);
}

namespace {

// What each device holds under `plan` (summary.json's device memory).
std::vector<DeviceMemory> deviceMemoryOf(const KPlan& plan, const std::vector<DeviceBudget>& budgets) {
    std::vector<DeviceMemory> out;
    for (std::size_t d = 0; d < budgets.size(); ++d) {
        DeviceMemory m{budgets[d].label, budgets[d].budgetBytes, budgets[d].fixedBytes, 0, 0, plan.streamed[d],
                       plan.streamed[d] ? plan.streamGroup[d] : 0};
        for (std::uint32_t c : plan.chunksOf(std::uint32_t(d))) {
            m.kBytes += plan.chunking.chunkBytes(c);
            ++m.chunks;
        }
        out.push_back(m);
    }
    return out;
}

} // namespace

// Each device turns the chunks it holds (each chunk has one) into segments (k/vulkan_k_compact.h),
// where the route did not place them as segments already (k_routes.h).
void VulkanBackend::makeSegments(std::vector<DeviceK>& parts, VisibilityOutcome& out) {
    Stopwatch sw;
    std::uint64_t bytes = 0, segments = 0;
    bool compacted = false;
    for (std::size_t d = 0; d < parts.size(); ++d) {
        DeviceK& part = parts[d];
        if (part.layout == KLayout::Dense) {
            compactDeviceK(*slots_[d].device, part);
            compacted = true;
        }
        const CompactedK held = segmentsOf(part);
        bytes += held.bytes;
        segments += held.segments;
        if (d < out.deviceMemory.size()) out.deviceMemory[d].kBytes = part.bytes() - (part.tables ? part.tables.size() : 0);
    }
    out.storage.layout = kLayoutName(KLayout::Segments);
    out.storage.bytes = bytes;
    out.storage.segments = segments;
    if (compacted) out.details.emplace_back("k_segments_on_device", sw.seconds());
    spdlog::info("K stored as segments: {:.1f} MiB, {} segments{}", double(bytes) / 1048576.0, segments,
                 compacted ? fmt::format(", made on the device{} in {:.3f} s", parts.size() > 1 ? "s" : "", sw.seconds())
                           : std::string(", made as K was placed"));
}

// K as segments where simulation.k_layout asks for them: resident (streamed only with --stream
// always). "auto" asks for them only where dense K could not be held at all: it would stream,
// from more host memory than K may take (--max-host-mb). Where dense K fits a device, it is kept
// dense: its far gather is faster (docs/benchmarks.md, "K stored as segments"). In row-block mode
// every rank stores its rows alike, or none as segments.
KPlan VulkanBackend::planWithLayout(const KSettings& k, std::vector<DeviceBudget>& budgets, std::uint64_t listBytes) {
    const std::uint32_t n = std::uint32_t(scene().size());
    const KChunking chunking = KChunking::forBudget(n, k.format, k.chunkBytes);
    const auto plan = [&](bool segments) {
        budgets.clear();
        return planKOnDevices(slots_, n, chunking, k.transportSteps, limits_, share_, budgets, listBytes, segments);
    };
    KPlan p = plan(k.layout == KLayout::Segments);
    if (k.layout == KLayout::Auto && p.anyStreamed() && limits_.stream != StreamMode::Always) {
        std::uint64_t streamedBytes = 0;
        for (std::uint32_t d = 0; d < p.streamed.size(); ++d)
            if (p.streamed[d])
                for (std::uint32_t c : p.chunksOf(d)) streamedBytes += chunking.chunkBytes(c);
        if (streamedBytes > limits_.maxHostBytes) {
            spdlog::info("K stored as segments (simulation.k_layout = \"auto\"): dense K would stream {:.1f} GiB from "
                         "host memory, more than the {:.1f} GiB K may take there (--max-host-mb)",
                         double(streamedBytes) / 1073741824.0, double(limits_.maxHostBytes) / 1073741824.0);
            p = plan(true);
        }
    }
    if (share_ && k.layout != KLayout::Dense) {
        std::vector<std::uint64_t> all{p.segments ? 1u : 0u};
        share_->ranks().min(all);
        if (!all[0] && p.segments) {
            spdlog::info("K stays dense: another rank keeps its rows dense");
            p = plan(false);
        }
    }
    return p;
}

VisibilityOutcome VulkanBackend::visibility(const KSettings& requested, KJournal* journal) {
    requireRays("K's visibility");
    dropBatchReuse(); // the memory plan for K sees what the devices hold
    const KSettings k = withTileLists(requested);
    warmAfterVisibility(k.format, k.layout);
    VisibilityOutcome out;
    // The tiles' occluder lists and the blocker rounds' area: one set per command buffer in
    // flight (two per device).
    std::uint64_t listBytes = 0;
    const std::uint32_t n = std::uint32_t(scene().size());
    for (const VulkanSlot& slot : slots_)
        listBytes = std::max(listBytes, 2 * visibilityListBytes(*slot.device, n, tileListMax(k), blockerRounds(k)));
    std::vector<DeviceBudget> budgets;
    KPlan plan = planWithLayout(k, budgets, listBytes);
    const KRouteInputs inputs{&slots_, visibilityDevices(slots_), &scene(), share_, limits_.maxHostBytes, journal};
    const std::unique_ptr<KRoute> route = chooseKRoute(inputs, plan, budgets);
    out.deviceMemory = deviceMemoryOf(plan, budgets);
    std::vector<DeviceK> parts = route->compute(k, out);
    out.storage.format = kFormatInfo(k.format).name;
    out.storage.bytes = parts[0].chunking.as(k.format).bytes(); // rows as allocated
    if (plan.segments) makeSegments(parts, out);
    out.storage.chunks = parts[0].chunking.chunks();
    out.storage.rowsPerChunk = parts[0].chunking.rowsPerChunk;
    out.storage.streaming = plan.anyStreamed();
    out.K = std::make_unique<VulkanK>(slots_, std::move(parts));
    return out;
}

// The settings with occluder lists only where a sample of tiles says they take at least
// kMinListedShare of the facing pairs: with fewer, the tiles' queries cost more than the lists
// save (docs/benchmarks.md, "Visibility settings chosen by measurement").
KSettings VulkanBackend::withTileLists(const KSettings& k) const {
    KSettings out = k;
    const std::uint32_t limit = tileListMax(k);
    if (limit == 0 || !shafts_) return out;
    constexpr double kMinListedShare = 0.5;
    const double share = shafts_->sampleLimit == limit ? shafts_->listedShare
                                                       : listedPairShare(scene(), shafts_->bvh, limit, kTileSample);
    if (share >= kMinListedShare) {
        spdlog::debug("visibility: occluder lists on: a sample of {} tiles puts {:.0f}% of the facing pairs in "
                      "tiles with at most {} possible occluders",
                      kTileSample, 100.0 * share, limit);
        return out;
    }
    spdlog::info("visibility: occluder lists off: a sample of {} tiles puts {:.0f}% of the facing pairs in tiles "
                 "with at most {} possible occluders (simulation.tile_list_max), fewer than the {:.0f}% that "
                 "pay for the lists; every ray traced",
                 kTileSample, 100.0 * share, limit, 100.0 * kMinListedShare);
    out.tileListMax = 0;
    return out;
}

DirectTerms VulkanBackend::direct(const SimConfig& c) {
    requireRays("the direct terms");
    VulkanSlot& s = slots_[0];
    const GpuPose& pose = gpuPose(c);
    return computeDirectVulkan(*s.device, *s.geometry, pose, *s.accel, s.passes, scene(), c);
}

TriangleDistances VulkanBackend::distances(const Histories& h, const DirectTerms& direct, const SimConfig& c) {
    VulkanSlot& s = slots_[0];
    const auto history = onDevice(h, direct, c);
    const GpuPose& pose = gpuPose(c);
    return computeTriangleDistancesVulkan(*s.device, pose, s.passes, history->view(*s.device, s.passes), h.n, c);
}

void VulkanBackend::signals(const Histories& h, const DirectTerms& direct, const SimConfig& c, std::vector<double>& fwd,
                            std::vector<double>& adj) {
    if (!h.B.empty() && !h.E.empty()) {
        sensorSignals(scene(), c.timesteps, h.B, h.Z, h.E, h.R, fwd, adj);
        return;
    }
    VulkanSlot& s = slots_[0];
    const auto history = onDevice(h, direct, c);
    const GpuPose& pose = gpuPose(c);
    sensorSignalsVulkan(*s.device, pose, s.passes, history->view(*s.device, s.passes), h.n, c, fwd, adj);
}

SensorImage VulkanBackend::image(const Histories& h, const DirectTerms& direct, const SimConfig& c,
                                 const PrimaryHits* hits) {
    if (!hits) requireRays("the sensor image's primary rays");
    VulkanSlot& s = slots_[0];
    const auto history = onDevice(h, direct, c);
    const GpuPose& pose = gpuPose(c);
    return renderSensorImageVulkan(*s.device, *s.geometry, pose, s.accel.get(), hits, s.passes,
                                   history->view(*s.device, s.passes), scene(), c);
}

SensorImage VulkanBackend::pathTraced(const SimConfig& c) {
    requireRays("the paths transport");
    VulkanSlot& s = slots_[0];
    const GpuPose& pose = gpuPose(c);
    return pathTracedImageVulkan(*s.device, *s.geometry, pose, *s.accel, s.passes, scene(), c);
}

std::vector<std::uint64_t> VulkanBackend::deviceBytesInUse() const {
    std::vector<std::uint64_t> out;
    for (const VulkanSlot& s : slots_) out.push_back(s.device->deviceLocalUsage());
    return out;
}

void VulkanBackend::saveCaches() {
    for (const VulkanSlot& s : slots_) s.device->pipelineCache().save();
}

const PreparedScene& VulkanBackend::scene() const {
    if (!scene_) throw Error("internal: the Vulkan backend ran a phase before prepare()");
    return *scene_;
}

void VulkanBackend::requireRays(const char* phase) const {
    if (!rays_) throw Error(std::string("internal: ") + phase + " asked of a Vulkan backend made without ray tracing");
}

std::shared_ptr<const VulkanHistory> VulkanBackend::onDevice(const Histories& h, const DirectTerms& direct,
                                                             const SimConfig& c) {
    auto mine = std::dynamic_pointer_cast<const VulkanHistory>(h.device);
    if (mine && mine->owner == this) return mine;
    vk::Device& d0 = *slots_[0].device;
    std::vector<glm::vec2> bz(h.B.size());
    for (std::size_t k = 0; k < bz.size(); ++k) bz[k] = glm::vec2(h.B[k], h.Z[k]);
    auto batch = std::make_shared<VulkanBatchHistory>();
    batch->history = vk::makeStorage(d0, bz, "B/Z history (uploaded)");
    batch->records = vk::makeStorage(d0, makeTransportRecords(scene(), c, direct), "transport triangles (distances)");
    batch->n = h.n;
    auto copy = std::make_shared<VulkanHistory>();
    copy->owner = this;
    copy->batch = std::move(batch);
    return copy;
}

const GpuPose& VulkanBackend::gpuPose(const SimConfig& config) {
    const shared::LightSensorRecord record = makeLightSensorRecord(config);
    if (!lastPose_ || std::memcmp(&record, &lastPoseRecord_, sizeof record) != 0 || config.pulse != lastPulse_) {
        lastPose_ = std::make_unique<GpuPose>(*slots_[0].device, config);
        lastPoseRecord_ = record;
        lastPulse_ = config.pulse;
    }
    return *lastPose_;
}

std::unique_ptr<Backend> makeVulkanBackendOn(std::shared_ptr<vk::Instance> instance,
                                             const std::vector<const vk::PhysicalDeviceInfo*>& infos,
                                             vk::RayPath path, StreamMode stream, std::uint64_t maxDeviceBytes,
                                             std::uint64_t maxHostBytes, const TransportTuning& tuning, bool rays,
                                             bool transferQueues) {
    return std::make_unique<VulkanBackend>(std::move(instance), infos, path,
                                           KMemoryLimits{stream, maxDeviceBytes, maxHostBytes}, tuning, rays,
                                           transferQueues);
}

} // namespace rsim
