// SPDX-License-Identifier: MIT
// The Vulkan backend: every phase of MODEL.md on one or several GPUs (or software devices);
// only results (direct terms, B/Z histories, distances, the sensor image) come back to the host.
//
// K takes one of two routes. When one device can hold fp32 K beside everything else, that
// device computes K in place and compresses it there. Otherwise (several devices, streaming, or
// a K too large for fp32 on the device) K is computed chunk by chunk, assembled and encoded in
// host memory, and each chunk goes to the device that gathers from it: resident in device
// memory, or pinned in host memory and streamed every time block (k/k_plan.h).
#include "backends/vulkan_backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <utility>

#include <spdlog/spdlog.h>

#include "direct/vulkan_direct.h"
#include "distance/vulkan_distance.h"
#include "k/gpu_k.h"
#include "k/k_diagnostics.h"
#include "k/shared_block_claims.h"
#include "k/vulkan_log_encode.h"
#include "transport/vulkan_near_pairs.h"
#include "transport/sources.h"
#include "transport/row_exchange.h"
#include "transport/vulkan_transport.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/timer.h"
#include "accel/ray_bvh.h"
#include "accel/tile_lists.h"
#include "visibility/scene_shafts.h"
#include "visibility/vulkan_visibility.h"
#include "visibility/vulkan_visibility_chunked.h"
#include "visibility/vulkan_visibility_ranks.h"
#include "vulkan/device_group.h"
#include "vulkan/piece_reader.h"
#include "vulkan/pipeline_cache.h"

namespace rsim {
namespace {

struct Slot {
    std::unique_ptr<vk::Device> device;
    std::unique_ptr<GpuGeometry> geometry;
    std::unique_ptr<vk::SceneAccel> accel;
    vk::PosePasses passes; // bind `accel`: reset with it
    // The history of a batch's last group, for the next group (VulkanBatchHistory gives it back).
    std::shared_ptr<vk::Buffer> spareHistory = std::make_shared<vk::Buffer>();
    std::uint64_t budgetAtStart = 0; // deviceLocalBudget() before rsim allocated anything
};

// K on the devices: the part each device holds (all of it on device 0 when computed in place).
class VulkanK final : public KHandle {
public:
    VulkanK(const std::vector<Slot>& slots, std::vector<DeviceK> parts) : slots_(&slots), parts_(std::move(parts)) {}
    const HostK& host() override {
        if (!host_) {
            host_ = std::make_unique<HostK>(HostK::unfilled(parts_[0].chunking));
            for (std::size_t d = 0; d < parts_.size(); ++d) copyChunksToHost(*(*slots_)[d].device, parts_[d], *host_);
        }
        return *host_;
    }
    void dropHostCopy() override { host_.reset(); }
    const std::vector<DeviceK>& parts() const { return parts_; }
    bool belongsTo(const std::vector<Slot>& slots) const { return slots_ == &slots; }

private:
    const std::vector<Slot>* slots_;
    std::vector<DeviceK> parts_;
    std::unique_ptr<HostK> host_;
};

// A batch's B/Z history and transport records on device 0, shared by its poses.
struct VulkanBatchHistory {
    vk::Buffer history, records; // B and Z (rsimHistoryIndex, or with `lanes` rsimLaneHistoryIndex), GpuTransportTri[poses][n]
    std::uint32_t n = 0, timesteps = 0;
    bool lanes = false;
    // With pose lanes: the one pose read out into a plain vec2[n][T] last (the distance phases
    // take one pose at a time, three passes each).
    mutable vk::Buffer plain;
    mutable std::uint32_t inPlain = UINT32_MAX;
    // Where the history goes when the group's poses are done: the next group takes it.
    std::weak_ptr<vk::Buffer> spare;

    VulkanBatchHistory() = default;
    VulkanBatchHistory(const VulkanBatchHistory&) = delete;
    VulkanBatchHistory& operator=(const VulkanBatchHistory&) = delete;
    ~VulkanBatchHistory() {
        if (const auto to = spare.lock(); to && !*to) *to = std::move(history);
    }

    // Pose p's vec2[n][T] on `device` (device 0).
    VkDeviceAddress poseHistory(std::uint32_t p, vk::Device& device, vk::PosePasses& passes) const {
        const std::uint64_t poseBytes = std::uint64_t(n) * timesteps * sizeof(glm::vec2);
        if (!lanes) return history.address() + VkDeviceAddress(p) * poseBytes;
        if (inPlain != p) {
            if (!plain) plain = vk::Buffer(device, poseBytes, vk::kStorageUsage, vk::MemoryKind::Device, "B/Z history of a pose");
            if (!passes.fromLanes)
                passes.fromLanes = std::make_unique<vk::Pass<shared::HistoryFromLanesPush>>(
                    device, vk::shaders::historyFromLanes(), vk::SpecConstants{}, "B/Z history from pose lanes");
            shared::HistoryFromLanesPush push{};
            push.source = history.address();
            push.destination = plain.address();
            push.n = n;
            push.timesteps = timesteps;
            push.pose = p;
            device.submitAndWait([&](VkCommandBuffer cmd) {
                vk::computeBarrier(device, cmd);
                passes.fromLanes->bind(cmd);
                passes.fromLanes->dispatchRows(cmd, push, std::uint64_t(n) * timesteps);
            });
            inPlain = p;
        }
        return plain.address();
    }
};

// One pose's view of it, for the distance phases.
struct VulkanHistory final : DeviceCopy {
    const void* owner = nullptr;
    std::shared_ptr<const VulkanBatchHistory> batch;
    std::uint32_t pose = 0;
    DeviceHistoryView view(vk::Device& device, vk::PosePasses& passes) const {
        return {batch->records.address() + VkDeviceAddress(pose) * batch->n * sizeof(shared::GpuTransportTri),
                batch->poseHistory(pose, device, passes)};
    }
};

class VulkanBackend final : public Backend {
public:
    VulkanBackend(std::shared_ptr<vk::Instance> instance, const std::vector<const vk::PhysicalDeviceInfo*>& infos,
                  vk::RayPath path, StreamMode stream, std::uint64_t maxDeviceBytes, std::uint64_t maxHostBytes,
                  TransportTuning tuning, bool rays, bool transferQueues)
        : instance_(std::move(instance)), stream_(stream), maxDeviceBytes_(maxDeviceBytes), maxHostBytes_(maxHostBytes),
          tuning_(tuning), rays_(rays) {
        for (std::size_t d = 0; d < infos.size(); ++d) {
            Slot s;
            // Several devices pass far sums through host memory they import (transport).
            s.device = std::make_unique<vk::Device>(*instance_, *infos[d], path,
                                                    "device " + std::to_string(d) + " (" + infos[d]->name + ")", rays,
                                                    transferQueues, infos.size() > 1);
            s.budgetAtStart = s.device->deviceLocalBudget();
            s.device->setUseCap(maxDeviceBytes);
            slots_.push_back(std::move(s));
        }
    }

    void describe(RunMetadata& meta) const override {
        meta.backend = "vulkan";
        for (const auto& slot : slots_) meta.devices.push_back(slot.device->info().described());
        meta.visibilityPath = vk::rayPathName(slots_[0].device->rayPath());
    }

    bool validating() const override { return instance_->validation(); }
    std::uint64_t validationErrors() const override { return instance_->validationErrors(); }

    // The pose phases run on the first device; their pipelines, and the visibility's on every
    // device, compile while the scene is placed and the direct terms computed.
    void expectPhases(const ExpectedPhases& e) override {
        vk::Device& d = *slots_[0].device;
        const bool rays = d.rays();
        std::vector<vk::PipelineRecipe> recipes;
        if (e.direct && rays) recipes.push_back(directRecipe(d));
        const std::vector<vk::PipelineRecipe> pose = poseOutputRecipes(d, e.distances, e.image, e.primaryRays && rays);
        recipes.insert(recipes.end(), pose.begin(), pose.end());
        d.pipelineWarmup().start(recipes);
        if (e.visibility && rays)
            for (Slot& slot : slots_) warmVisibilityPipelines(*slot.device, *e.visibility);
    }

    // What follows K on the devices (its encoding, row sums and near lists, the near steps) compiles
    // while the visibility runs; a device that turns out not to need one only compiled it.
    void warmAfterVisibility(KFormat format) {
        const std::uint32_t storage = kFormatInfo(format).storage;
        std::vector<vk::PipelineRecipe> recipes{formFactorSumsRecipe(storage), nearPairsRecipe(storage),
                                                radiosityNearRecipe()};
        if (kFormatInfo(format).logTable) recipes.push_back(logEncodeRecipe(format));
        for (Slot& slot : slots_) slot.device->pipelineWarmup().start(recipes);
    }

    // Every device gets the scene and its acceleration structure: with several devices, K's
    // chunks and the transport's rows are spread over all of them.
    void adoptSceneShafts(std::shared_ptr<const SceneShafts> shafts) override { adopted_ = std::move(shafts); }

    void prepare(const PreparedScene& scene) override {
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

    // Row-block mode: this rank's chunks only, computed where they live; far sums exchanged with
    // the other ranks every pass.
    void shareRows(const RowShare* share) override { share_ = share; }

    VisibilityOutcome visibility(const KSettings& requested) override {
        requireRays("K's visibility");
        dropBatchReuse(); // the memory plan for K sees what the devices hold
        const KSettings k = withTileLists(requested);
        warmAfterVisibility(k.format);
        VisibilityOutcome out;
        std::vector<DeviceBudget> budgets;
        // The tiles' occluder lists and the blocker rounds' area: one set per command buffer in
        // flight (two per device).
        std::uint64_t listBytes = 0;
        const std::uint32_t n = std::uint32_t(scene().size());
        for (const Slot& slot : slots_)
            listBytes = std::max(listBytes, 2 * visibilityListBytes(*slot.device, n, tileListMax(k), blockerRounds(k)));
        KPlan plan = planFor(KChunking::forBudget(std::uint32_t(scene().size()), k.format, k.chunkBytes),
                             k.transportSteps, budgets, listBytes);
        if (castOnceOnDevices(plan, budgets)) plan = plan.withBlocks(RowShare(plan.chunking, int(slots_.size()), 0).firsts());
        for (std::size_t d = 0; d < budgets.size(); ++d) {
            DeviceMemory m{budgets[d].label, budgets[d].budgetBytes, budgets[d].fixedBytes, 0, 0, plan.streamed[d],
                           plan.streamed[d] ? plan.streamGroup[d] : 0};
            for (std::uint32_t c : plan.chunksOf(std::uint32_t(d))) {
                m.kBytes += plan.chunking.chunkBytes(c);
                ++m.chunks;
            }
            out.deviceMemory.push_back(m);
        }
        std::vector<DeviceK> parts = rankAssembled(plan, budgets) ? rankAssembledK(k, plan, out)
                                     : plan.castOnceOnDevices ? castOnceOnDevicesK(k, plan, out)
                                     : plan.hostAssembled ? hostAssembledK(k, plan, out)
                                     : plan.whereItLives ? whereItLivesK(k, plan, out)
                                                         : inPlaceK(k, out);
        out.storage.format = kFormatInfo(k.format).name;
        out.storage.bytes = parts[0].chunking.as(k.format).bytes(); // rows as allocated
        out.storage.chunks = parts[0].chunking.chunks();
        out.storage.rowsPerChunk = parts[0].chunking.rowsPerChunk;
        out.storage.streaming = plan.anyStreamed();
        out.K = std::make_unique<VulkanK>(slots_, std::move(parts));
        return out;
    }

    DirectTerms direct(const SimConfig& c) override {
        requireRays("the direct terms");
        Slot& s = slots_[0];
        const GpuPose& pose = gpuPose(c);
        return computeDirectVulkan(*s.device, *s.geometry, pose, *s.accel, s.passes, scene(), c);
    }

    bool keepsHistoriesOnDevice() const override { return true; }
    // The devices' sources come from the direct terms (makeTransportRecords).
    bool transportReadsSources() const override { return false; }

    std::vector<std::uint64_t> deviceBytesInUse() const override {
        std::vector<std::uint64_t> out;
        for (const Slot& s : slots_) out.push_back(s.device->deviceLocalUsage());
        return out;
    }

    void saveCaches() override {
        for (const Slot& s : slots_) s.device->pipelineCache().save();
    }

    TransportOutcome transport(KHandle* K, const std::vector<TransportPose>& batch, bool hostHistories,
                               const std::function<void()>& loopStarted) override {
        TransportOutcome out;
        const SimConfig& c = *batch[0].config;
        const std::uint32_t n = std::uint32_t(scene().size()), P = paddedPoses(std::uint32_t(batch.size()), tuning_);
        std::vector<shared::GpuTransportTri> records;
        records.reserve(std::size_t(n) * P);
        for (const TransportPose& p : batch) {
            const auto r = makeTransportRecords(scene(), *p.config, *p.direct);
            records.insert(records.end(), r.begin(), r.end());
        }
        // Padding poses: the first pose's geometry without sources, so their B and Z stay 0.
        for (std::uint32_t p = std::uint32_t(batch.size()); p < P; ++p)
            for (std::uint32_t i = 0; i < n; ++i) {
                shared::GpuTransportTri r = records[i];
                r.source = glm::vec4(r.source.x, 0.0f, 0.0f, 0.0f);
                records.push_back(r);
            }
        VulkanK* mine = onDevices(K, c);
        if (placementSeconds_ > 0.0) out.details.emplace_back("k_placement", std::exchange(placementSeconds_, 0.0));
        // The records go to each device once, for the near lists, the transport and (device 0)
        // the distances.
        std::vector<GpuPose> pulses;
        std::vector<vk::Buffer> onDevices;
        std::vector<TransportDevice> devices;
        const std::size_t D = mine && c.indirect ? slots_.size() : 1;
        for (std::size_t d = 0; d < D; ++d) {
            pulses.emplace_back(*slots_[d].device, c);
            onDevices.push_back(vk::makeStorage(*slots_[d].device, records, "transport triangles"));
        }
        for (std::size_t d = 0; d < D; ++d)
            devices.push_back({slots_[d].device.get(), &pulses[d], &onDevices[d],
                               mine && c.indirect ? &mine->parts()[d] : nullptr, slots_[d].spareHistory.get()});
        // Row-block mode: every rank gathers the same steps per pass (a rank that streams K would
        // choose more), or their exchanges would not match.
        TransportTuning tuning = tuning_;
        if (share_ && mine && c.indirect) {
            std::vector<std::uint64_t> blocks{transportNearBelow(devices, tuning_, true) / shared::RSIM_TIME_BLOCK};
            share_->ranks().max(blocks);
            tuning.passBlocks = std::uint32_t(blocks[0]);
        }
        // The near lists depend on the geometry, K and the time step, not on the poses: a batch's
        // later groups take the first group's.
        const std::uint32_t nearBelow = transportNearBelow(devices, tuning, share_ != nullptr);
        const NearKey nearKey{mine, c.invCdtSq, nearBelow, D};
        // Several devices' far sums pass through host memory they import: pinned beside the near
        // lists' building, and kept for the batch's later groups while large enough.
        std::future<std::unique_ptr<FarSumsMail>> mailAhead;
        if (!(mail_ && mail_->holds(farSumsBytes(n, nearBelow, P)))) {
            mail_.reset();
            if (devices.size() > 1)
                mailAhead = std::async(std::launch::async, [&] {
                    return makeFarSumsMail(devices, n, P, tuning, c.indirect, share_ != nullptr);
                });
        }
        if (mine && c.indirect && !(nearKey == nearKey_)) {
            Stopwatch sw;
            std::vector<NearLists> parts(D);
            vk::forEachDevice(D, [&](std::size_t d) {
                parts[d] = buildNearListsVulkan(*slots_[d].device, mine->parts()[d], onDevices[d], scene(), c, nearBelow);
            });
            const Stopwatch merge;
            near_ = mergeNearLists(parts);
            if (D > 1) spdlog::debug("the devices' near lists merged in {:.4f} s", merge.seconds());
            if (share_) near_ = shareNearLists(near_, *share_);
            nearKey_ = nearKey;
            out.details.emplace_back("near_lists", sw.seconds());
        }
        if (mailAhead.valid()) mail_ = mailAhead.get();
        const NearLists none;
        GpuTransport gpu = runTransportVulkan(devices, n, P, mine && c.indirect ? near_ : none, c, c.indirect, tuning,
                                             share_, loopStarted, mail_.get());
        out.details.emplace_back("radiosity_setup", gpu.setupSeconds);
        out.details.emplace_back("radiosity_loop", gpu.loopSeconds);
        const bool exchanged = devices.size() > 1 || (share_ && c.indirect);
        if (exchanged) out.details.emplace_back("radiosity_exchange", gpu.exchangeSeconds);
        if (gpu.sharedExchangeBytes)
            out.details.emplace_back("radiosity_exchange_shared_mib", double(gpu.sharedExchangeBytes) / 1048576.0);
        if (gpu.streamedBytes) {
            out.details.emplace_back("streamed_gib", double(gpu.streamedBytes) / 1073741824.0);
        }
        out.summary = fmt::format("{:.3f} s time loop{}{}", gpu.loopSeconds,
                                  !exchanged ? std::string()
                                  : gpu.sharedExchangeBytes
                                      ? fmt::format(", far sums through host memory the devices share")
                                      : fmt::format(", {:.3f} s combining far sums", gpu.exchangeSeconds),
                                  gpu.streamedBytes ? fmt::format(", {:.1f} GiB of K streamed",
                                                                  double(gpu.streamedBytes) / 1073741824.0)
                                                    : "");
        // B and Z of every pose stay on device 0 for the distance phases, and come to the host
        // only when asked for.
        Stopwatch sw;
        vk::Device& d0 = *slots_[0].device;
        const std::size_t count = std::size_t(n) * c.timesteps;
        auto shared = std::make_shared<VulkanBatchHistory>();
        shared->history = std::move(gpu.history);
        shared->records = std::move(onDevices[0]);
        shared->n = n;
        shared->timesteps = c.timesteps;
        shared->lanes = gpu.lanes;
        shared->spare = slots_[0].spareHistory;
        out.histories.resize(batch.size());
        const std::uint32_t real = std::uint32_t(batch.size());
        if (hostHistories) {
            // B and Z zeroed on other threads (their pages' first touch) while the first pieces
            // come; each piece then goes straight into them. Each pose's [n][T] follows the
            // previous one's, or the poses lie side by side in lanes (gpu_layout.h).
            std::future<void> sized = std::async(std::launch::async, [&] {
                parallelFor(2 * std::size_t(real), 1, [&](std::size_t begin, std::size_t end, unsigned) {
                    for (std::size_t x = begin; x < end; ++x)
                        (x % 2 ? out.histories[x / 2].Z : out.histories[x / 2].B).resize(count);
                });
            });
            const std::uint32_t T = c.timesteps;
            vk::downloadPieces(d0, shared->history, std::uint64_t(count) * P * sizeof(glm::vec2),
                               [&](std::uint64_t offset, const void* data, std::uint64_t bytes) {
                if (sized.valid()) sized.get();
                const auto* bz = static_cast<const glm::vec2*>(data);
                const std::size_t first = std::size_t(offset / sizeof(glm::vec2));
                parallelFor(std::size_t(bytes / sizeof(glm::vec2)), 1 << 14, [&](std::size_t begin, std::size_t end, unsigned) {
                    for (std::size_t e = begin; e < end; ++e) {
                        const std::size_t at = first + e;
                        std::size_t p, k;
                        if (gpu.lanes) { // history indices are 32-bit (runTransportVulkan checks)
                            const glm::uvec2 entry = shared::rsimLaneHistoryEntry(std::uint32_t(at), T, n);
                            p = entry.x;
                            k = entry.y;
                        } else {
                            p = at / count;
                            k = at % count;
                        }
                        if (p >= real) continue; // a padding pose
                        out.histories[p].B[k] = bz[e].x;
                        out.histories[p].Z[k] = bz[e].y;
                    }
                });
            });
            if (sized.valid()) sized.get();
        }
        for (std::uint32_t p = 0; p < real; ++p) {
            Histories& h = out.histories[p];
            h.n = n;
            h.timesteps = c.timesteps;
            auto copy = std::make_shared<VulkanHistory>();
            copy->owner = this;
            copy->batch = shared;
            copy->pose = p;
            h.device = copy;
        }
        out.downloadSeconds = sw.seconds();
        return out;
    }

    // Poses whose histories fit device 0 (and every device with K) beside what is there now,
    // K included (placed first when it comes from elsewhere).
    std::uint32_t poseGroupLimit(KHandle* K, const SimConfig& c) override {
        dropBatchReuse(); // a new batch
        onDevices(K, c);
        const std::uint32_t n = std::uint32_t(scene().size());
        const std::uint64_t perPose = transportBytesPerPose(n, c.timesteps);
        std::uint64_t fit = std::numeric_limits<std::uint64_t>::max();
        for (const Slot& slot : slots_) {
            std::uint64_t avail = slot.device->deviceLocalBudget();
            // --max-device-mb caps all of rsim's use of the device, what it holds already too.
            if (maxDeviceBytes_) {
                const std::uint64_t used = slot.budgetAtStart > avail ? slot.budgetAtStart - avail : 0;
                avail = std::min(avail, maxDeviceBytes_ > used ? maxDeviceBytes_ - used : 0);
            }
            // A margin for the near lists, the distance passes and the driver.
            const std::uint64_t margin = (256ull << 20) + avail / 10;
            fit = std::min(fit, avail > margin ? (avail - margin) / perPose : 0);
        }
        // The history is one buffer, its entries indexed in 32 bits.
        const std::uint64_t history = std::uint64_t(n) * c.timesteps;
        fit = std::min(fit, ((std::uint64_t(1) << 32) - 1) / history);
        fit = std::min(fit, slots_[0].device->maxAllocationBytes() / (history * sizeof(glm::vec2)));
        fit = std::min<std::uint64_t>(fit, 1u << 20);
        // A multiple of RSIM_LANES where that many fit (pose lanes).
        if (usesPoseLanes(poseLaneGroup(std::uint32_t(fit), tuning_), tuning_))
            return poseLaneGroup(std::uint32_t(fit), tuning_);
        // Padded to what one far-gather invocation serves, within the dispatch's z limit.
        const std::uint32_t k = posesPerInvocation(std::uint32_t(fit), tuning_);
        fit = std::min<std::uint64_t>(fit, std::uint64_t(slots_[0].device->limits().maxComputeWorkGroupCount[2]) * k);
        fit = std::max<std::uint64_t>(fit - fit % k, k);
        return std::uint32_t(std::clamp<std::uint64_t>(fit, 1, 1u << 20));
    }

    std::uint32_t preferredPoseGroup(std::uint32_t group) const override { return poseLaneGroup(group, tuning_); }

    TriangleDistances distances(const Histories& h, const DirectTerms& direct, const SimConfig& c) override {
        Slot& s = slots_[0];
        const auto history = onDevice(h, direct, c);
        const GpuPose& pose = gpuPose(c);
        return computeTriangleDistancesVulkan(*s.device, pose, s.passes, history->view(*s.device, s.passes), h.n, c);
    }

    void signals(const Histories& h, const DirectTerms& direct, const SimConfig& c, std::vector<double>& fwd,
                 std::vector<double>& adj) override {
        if (!h.B.empty() && !h.E.empty()) {
            sensorSignals(scene(), c.timesteps, h.B, h.Z, h.E, h.R, fwd, adj);
            return;
        }
        Slot& s = slots_[0];
        const auto history = onDevice(h, direct, c);
        const GpuPose& pose = gpuPose(c);
        sensorSignalsVulkan(*s.device, pose, s.passes, history->view(*s.device, s.passes), h.n, c, fwd, adj);
    }

    SensorImage image(const Histories& h, const DirectTerms& direct, const SimConfig& c, const PrimaryHits* hits) override {
        if (!hits) requireRays("the sensor image's primary rays");
        Slot& s = slots_[0];
        const auto history = onDevice(h, direct, c);
        const GpuPose& pose = gpuPose(c);
        return renderSensorImageVulkan(*s.device, *s.geometry, pose, s.accel.get(), hits, s.passes,
                                       history->view(*s.device, s.passes), scene(), c);
    }

private:
    // What a batch's groups reuse (spare histories, near lists) is dropped when a new batch, a
    // visibility or a scene begins: the spares would take memory the new plan counts on, and the
    // near lists' K may be gone (a new one could have its address).
    void dropBatchReuse() {
        for (Slot& slot : slots_) slot.spareHistory->reset();
        nearKey_ = NearKey{};
        near_ = NearLists{};
        mail_.reset();
    }

    const PreparedScene& scene() const {
        if (!scene_) throw Error("internal: the Vulkan backend ran a phase before prepare()");
        return *scene_;
    }

    // A backend made without ray tracing (pipeline/host_rays.h) runs no ray phase.
    void requireRays(const char* phase) const {
        if (!rays_) throw Error(std::string("internal: ") + phase + " asked of a Vulkan backend made without ray tracing");
    }

    // K on these devices: this backend's own, or one from elsewhere (another backend, the K
    // cache) placed here as if assembled here, once for all the groups of a batch. Null
    // without K.
    VulkanK* onDevices(KHandle* K, const SimConfig& c) {
        VulkanK* mine = dynamic_cast<VulkanK*>(K);
        if (!K || (mine && mine->belongsTo(slots_))) return mine;
        if (placedFrom_ != K) {
            Stopwatch sw;
            placed_.reset();
            std::vector<DeviceBudget> budgets;
            const KPlan plan = planFor(K->host().chunking(), c.timesteps, budgets);
            placed_ = std::make_unique<VulkanK>(slots_, place(K->host(), plan));
            placedFrom_ = K;
            placementSeconds_ += sw.seconds();
        }
        return placed_.get();
    }

    void prepareDevice(std::size_t d) {
        Slot& slot = slots_[d];
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
            if (std::any_of(slots_.begin(), slots_.end(), [](const Slot& x) { return !x.device->accelerationStructures(); }))
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

    // This backend's history on device 0, or a foreign one uploaded there.
    std::shared_ptr<const VulkanHistory> onDevice(const Histories& h, const DirectTerms& direct, const SimConfig& c) {
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

    // Device 0's light, sensor and pulse for `config`: the last pose's when they are the same
    // (a pose's direct terms, signals, distances and image each need them; uploading them is a
    // copy and a wait each time).
    const GpuPose& gpuPose(const SimConfig& config) {
        const shared::LightSensorRecord record = makeLightSensorRecord(config);
        if (!lastPose_ || std::memcmp(&record, &lastPoseRecord_, sizeof record) != 0 || config.pulse != lastPulse_) {
            lastPose_ = std::make_unique<GpuPose>(*slots_[0].device, config);
            lastPoseRecord_ = record;
            lastPulse_ = config.pulse;
        }
        return *lastPose_;
    }

    // The settings with occluder lists only where a sample of tiles says they take at least
    // kMinListedShare of the facing pairs: with fewer, the tiles' queries cost more than the lists
    // save (industry on the H100: 17% listed, visibility 2% slower; docs/benchmarks.md).
    KSettings withTileLists(const KSettings& k) const {
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

    // Memory each device may use and what it needs besides K.
    // `visibilityBytes`: what the visibility pass needs on each device beside K and its scratch.
    KPlan planFor(const KChunking& chunking, std::uint32_t transportSteps, std::vector<DeviceBudget>& budgets,
                  std::uint64_t visibilityBytes = 0) const {
        const std::uint64_t n = scene().size();
        for (const Slot& slot : slots_) {
            vk::Device& dev = *slot.device;
            DeviceBudget b;
            b.label = dev.label();
            b.budgetBytes = dev.deviceLocalBudget();
            if (maxDeviceBytes_) b.budgetBytes = std::min(b.budgetBytes, maxDeviceBytes_);
            // Scene and BVH are already allocated; the budget query saw them. Add the transport's
            // buffers (history, far sums, records, near lists) and a margin for the visibility
            // scratch and pipelines. Near lists: about 64 pairs of 16 bytes per row for one
            // block's radius, times the blocks of a pass (a rough bound: on surfaces the pairs grow
            // faster than the radius, and a list that does not fit fails with an out-of-memory
            // error naming it).
            const std::uint64_t scratch = chunking.as(KFormat::Fp32).largestChunkBytes();
            b.fixedBytes = n * transportSteps * 8 + n * 8 * shared::RSIM_TIME_BLOCK * kMaxPassBlocks + n * 64 +
                           n * 64 * 16 * kMaxPassBlocks +
                           scratch + visibilityBytes + (8ull << 20);
            budgets.push_back(b);
        }
        if (share_ && share_->chunking().rowsPerChunk != chunking.rowsPerChunk)
            throw Error("internal: the row share was cut for other chunks");
        return share_ ? planK(chunking, budgets, stream_, maxHostBytes_, share_->firstChunk(), share_->endChunk())
                      : planK(chunking, budgets, stream_, maxHostBytes_);
    }

    // One device computes fp32 (or fp16) K in place and compresses it there.
    std::vector<DeviceK> inPlaceK(const KSettings& k, VisibilityOutcome& out) {
        const Slot& s = slots_[0];
        vk::Device& d0 = *s.device;
        const std::uint32_t n = std::uint32_t(scene().size());
        DeviceK K; // its chunks allocated beside the first launches
        K.chunking = KChunking::forBudget(n, k.format, k.chunkBytes)
                         .as(k.format == KFormat::Fp16 ? KFormat::Fp16 : KFormat::Fp32);
        double raySeconds = 0.0;
        VisibilityPassTimes passes;
        EncodedAhead encoded(k.format); // allocated while the last launches run
        out.stats = computeVisibilityVulkan(d0, *s.geometry, *s.accel, scene(), k, K, raySeconds, 0, &passes, &encoded);
        out.details.emplace_back("visibility_rays", raySeconds);
        // The device's time in each pass (GPU timestamps).
        addPassTimes(passes, out);
        spdlog::info("visibility: device time {:.3f} s listing the facing pairs, {:.3f} s querying the tiles' "
                     "occluders, {:.3f} s on listed pairs, {:.3f} s on traced pairs, {:.3f} s on the near pairs' "
                     "other samples",
                     passes.facing, passes.tileQueries, passes.listed, passes.traced, passes.near);
        if (k.formatErrors && k.format == KFormat::Fp32)
            out.storage.formatErrors = formatErrorReport(downloadDeviceK(d0, K));
        Stopwatch sw;
        const KErrors errors = compressDeviceK(d0, K, k.format, encoded.take(d0, K));
        out.compressSeconds = sw.seconds();
        // fp16 is converted in the shader, which does not report its rounding error.
        const bool fp16 = k.format == KFormat::Fp16;
        out.storage.rmsError = fp16 ? std::numeric_limits<double>::quiet_NaN()
                                    : std::sqrt(errors.sumSquared / (double(n) * double(n)));
        out.storage.maxAbsError = fp16 ? std::numeric_limits<double>::quiet_NaN() : errors.maxAbs;
        setEnergy(out.stats, formFactorDiagnosticsDevice(d0, *s.geometry, K));
        std::vector<DeviceK> parts;
        parts.push_back(std::move(K));
        return parts;
    }

    // The devices' time in each pass of the visibility launches (GPU timestamps), summed over the
    // devices.
    static void addPassTimes(const VisibilityPassTimes& passes, VisibilityOutcome& out) {
        out.details.emplace_back("visibility_gpu_facing_pairs", passes.facing);
        out.details.emplace_back("visibility_gpu_tile_queries", passes.tileQueries);
        out.details.emplace_back("visibility_gpu_listed_pairs", passes.listed);
        out.details.emplace_back("visibility_gpu_traced_pairs", passes.traced);
        out.details.emplace_back("visibility_gpu_near_pairs", passes.near);
    }

    // K computed chunk by chunk on every device, assembled and encoded in host memory, placed.
    std::vector<DeviceK> hostAssembledK(const KSettings& k, const KPlan& plan, VisibilityOutcome& out) {
        std::vector<VisibilityDevice> devices;
        for (auto& slot : slots_) devices.push_back({slot.device.get(), slot.geometry.get(), slot.accel.get()});
        HostK K;
        const ChunkedVisibility v = computeVisibilityChunked(devices, scene(), k, plan, K);
        out.stats = v.stats;
        // Encoding overlapped the devices' work; only what ran after the last chunk is "compress".
        out.compressSeconds = v.compressSeconds;
        out.details.emplace_back("visibility_rays", v.raySeconds);
        out.details.emplace_back("visibility_host_allocation", v.allocationSeconds);
        out.details.emplace_back("visibility_host_assembly", v.assemblySeconds);
        noteEncodingErrors(k, plan.chunking.n, KErrors{K.sumSquaredError(), K.maxAbsError()}, out);
        Stopwatch sw;
        // K is not needed here once placed: each chunk's words go as soon as they are on their
        // device (or in its pinned memory), so that a streamed K is not held twice.
        std::vector<DeviceK> parts = place(K, plan, [&K](std::uint32_t c) {
            std::vector<std::uint32_t>().swap(K.chunk(c).words);
        });
        out.details.emplace_back("k_placement", sw.seconds());
        return parts;
    }

    // The encoding's errors against fp32 of K computed in parts (no fp32 K in one place to report
    // --kij-errors from).
    static void noteEncodingErrors(const KSettings& k, std::uint32_t n, const KErrors& e, VisibilityOutcome& out) {
        if (k.formatErrors) spdlog::warn("--kij-errors is only computed when one device holds fp32 K; not reported");
        out.storage.rmsError = std::sqrt(e.sumSquared / (double(n) * double(n)));
        out.storage.maxAbsError = e.maxAbs;
    }

    // Row-block mode: whether the ranks cast each pair once and swap half blocks, each on its one
    // device that holds its rows of K in fp32 beside everything else (they agree), or each casts
    // the full rows of its chunks (K computed where it lives).
    bool rankAssembled(const KPlan& plan, const std::vector<DeviceBudget>& budgets) const {
        if (!share_ || share_->count() < 2) return false;
        const KFormat format = plan.chunking.format;
        const bool encodable = format == KFormat::Fp32 || kFormatInfo(format).logTable;
        const bool fits = slots_.size() == 1 && !plan.anyStreamed() && encodable &&
                          budgets[0].fixedBytes + rankAssemblyDeviceBytes(*share_) <= budgets[0].budgetBytes;
        std::vector<std::uint64_t> all{fits ? 1u : 0u};
        share_->ranks().min(all);
        if (all[0])
            spdlog::info("K of this rank's chunks {} to {}: each pair cast once in the job, half blocks swapped with "
                         "the other ranks, assembled on {} ({} MiB of fp32)",
                         share_->firstChunk(), share_->endChunk(), slots_[0].device->label(),
                         rankAssemblyDeviceBytes(*share_) >> 20);
        else
            spdlog::info("K computed where it lives: each device casts the full rows of its chunks of this rank's "
                         "chunks {} to {} (casting each pair once needs every rank to hold its rows of K in fp32 on "
                         "one device, in lut8-log, lut4-log or fp32)",
                         share_->firstChunk(), share_->endChunk());
        return all[0] != 0;
    }

    // This rank's chunks, each pair cast once in the job (visibility/vulkan_visibility_ranks.h).
    std::vector<DeviceK> rankAssembledK(const KSettings& k, const KPlan& plan, VisibilityOutcome& out) {
        const Slot& s = slots_[0];
        RankAssembledK v =
            computeKRankAssembled({s.device.get(), s.geometry.get(), s.accel.get()}, scene(), k, plan, *share_);
        out.stats = v.stats;
        out.compressSeconds = v.compressSeconds;
        out.details.emplace_back("visibility_rays", v.raySeconds);
        out.details.emplace_back("visibility_rank_exchange", v.exchangeSeconds);
        noteEncodingErrors(k, plan.chunking.n, v.errors, out);
        std::vector<DeviceK> parts;
        parts.push_back(std::move(v.K));
        return parts;
    }

    // Several devices, K resident (no MPI row share): whether each can hold its block of rows in
    // fp32 beside everything else, every one owns a chunk, K's format is encoded on the devices,
    // and the halves they send (fp32) and their staging buffers fit the host budget. Then each
    // pair is cast once between them and nothing of K is assembled on the host.
    bool castOnceOnDevices(const KPlan& plan, const std::vector<DeviceBudget>& budgets) const {
        const int D = int(slots_.size());
        const KFormat format = plan.chunking.format;
        if (share_ || D < 2 || plan.anyStreamed() || !(plan.hostAssembled || plan.whereItLives) ||
            !(format == KFormat::Fp32 || kFormatInfo(format).logTable))
            return false;
        const RowShare blocks(plan.chunking, D, 0);
        std::uint64_t hostBytes = 0;
        for (int d = 0; d < D; ++d) {
            if (blocks.firstChunk(d) == blocks.endChunk(d)) return false;
            const RowShare part(plan.chunking, D, d);
            if (budgets[std::size_t(d)].fixedBytes + rankAssemblyDeviceBytes(part) > budgets[std::size_t(d)].budgetBytes)
                return false;
            hostBytes += kHalfSwapStagingBytes;
            for (int r = 0; r < D; ++r)
                if (r != d) hostBytes += std::uint64_t(blocks.pairBlock(d, r, true).pairs()) * 4;
        }
        return hostBytes <= maxHostBytes_;
    }

    // K cast once between the devices (visibility/vulkan_visibility_ranks.h): each holds its
    // block of rows in fp32, casts its block's upper triangle and half of the block it shares
    // with every other device, each device uploads the halves the others cast for it from their
    // memory, and each encodes its rows in place.
    std::vector<DeviceK> castOnceOnDevicesK(const KSettings& k, const KPlan& plan, VisibilityOutcome& out) {
        const std::size_t D = slots_.size();
        const std::uint64_t n = scene().size();
        std::string blocks;
        const RowShare cut(plan.chunking, int(D), 0);
        for (std::size_t d = 0; d < D; ++d)
            blocks += fmt::format("{}{}: rows {} to {} ({} chunk(s))", d ? "; " : "", slots_[d].device->label(),
                                  cut.rowBegin(int(d)), cut.rowEnd(int(d)),
                                  cut.endChunk(int(d)) - cut.firstChunk(int(d)));
        // Two devices claim the block they share group by group from both ends, each group about
        // one launch of pairs.
        std::optional<SharedBlockClaims> claims;
        if (D == 2)
            claims.emplace(cut.firstChunk(0), cut.endChunk(0),
                           std::min(kHalfCastChunks,
                                    sharedBlockGroupChunks(visibilityPairsPerLaunch(*slots_[0].device, plan.chunking.n),
                                                           plan.chunking.rowsPerChunk, cut.rowEnd(1) - cut.rowBegin(1))));
        spdlog::info("K cast once on {} devices, each holding its block of rows in fp32 (these blocks, not the chunk "
                     "counts above), the halves of the blocks they share swapped: {}{}",
                     D, blocks,
                     claims ? fmt::format("; the shared block claimed in {} group(s) of {} chunk(s) from both ends",
                                          claims->groups(), claims->groupEnd(0) - claims->groupBegin(0))
                            : "");
        DeviceHalfMail mail{int(D)};
        const DeviceHalves shared{mail, claims ? &*claims : nullptr};
        std::vector<RankAssembledK> parts(D);
        std::vector<std::exception_ptr> failures(D);
        Progress progress("visibility", n * (n - 1) / 2, "pairs");
        vk::forEachDevice(D, [&](std::size_t d) {
            const Slot& s = slots_[d];
            try {
                const RowShare part(plan.chunking, int(D), int(d));
                parts[d] = computeKRankAssembled({s.device.get(), s.geometry.get(), s.accel.get()}, scene(), k, plan,
                                                 part, &shared, &progress);
            } catch (...) {
                failures[d] = std::current_exception();
                mail.fail();
            }
        });
        if (claims)
            spdlog::debug("the shared block's {} group(s): {} cast by {}, {} by {}", claims->groups(), claims->met(),
                          slots_[0].device->label(), claims->groups() - claims->met(), slots_[1].device->label());
        // The first failure that is not another device's abandoned swap.
        for (const auto& f : failures) {
            if (!f) continue;
            try {
                std::rethrow_exception(f);
            } catch (const DeviceHalfMail::Abandoned&) {
            }
        }
        progress.finish();
        VisibilityStats energy;
        KErrors errors;
        double rays = 0.0, exchange = 0.0;
        VisibilityPassTimes passes;
        double halves = 0.0; // the devices' time in the half blocks' passes
        std::vector<DeviceK> K;
        for (RankAssembledK& p : parts) {
            passes += p.halvesPasses;
            passes += p.ownPasses;
            halves += p.halvesPasses.total();
            out.stats.addCounts(p.stats);
            energy.clampedFormFactors += p.stats.clampedFormFactors;
            energy.rowsOverOne += p.stats.rowsOverOne;
            energy.maxRowSum = std::max(energy.maxRowSum, p.stats.maxRowSum);
            errors.sumSquared += p.errors.sumSquared;
            errors.maxAbs = std::max(errors.maxAbs, p.errors.maxAbs);
            rays = std::max(rays, p.raySeconds);
            exchange = std::max(exchange, p.exchangeSeconds);
            out.compressSeconds = std::max(out.compressSeconds, p.compressSeconds);
            K.push_back(std::move(p.K));
        }
        setEnergy(out.stats, energy);
        out.details.emplace_back("visibility_rays", rays);
        out.details.emplace_back("visibility_device_exchange", exchange);
        addPassTimes(passes, out);
        out.details.emplace_back("visibility_gpu_half_blocks", halves);
        noteEncodingErrors(k, plan.chunking.n, errors, out);
        return K;
    }

    // K computed by each device for its own chunks, encoded there chunk by chunk (k_plan.h).
    std::vector<DeviceK> whereItLivesK(const KSettings& k, const KPlan& plan, VisibilityOutcome& out) {
        std::vector<VisibilityDevice> devices;
        for (auto& slot : slots_) devices.push_back({slot.device.get(), slot.geometry.get(), slot.accel.get()});
        KWhereItLives v = computeKWhereItLives(devices, scene(), k, plan);
        out.stats = v.stats;
        // Encoding overlapped the casting: it is part of the visibility phase, and a detail.
        out.details.emplace_back("visibility_rays", v.raySeconds);
        out.details.emplace_back("visibility_host_wait", v.waitSeconds);
        out.details.emplace_back("visibility_host_encode", v.encodeSeconds);
        out.details.emplace_back("visibility_host_row_sums", v.rowSumSeconds);
        out.details.emplace_back("visibility_host_place", v.placeSeconds);
        noteEncodingErrors(k, plan.chunking.n, v.errors, out);
        return std::move(v.parts);
    }

    // Each chunk to the device that gathers from it, all devices at once. `uploaded(c)` runs on
    // the thread of chunk c's device once it is there.
    std::vector<DeviceK> place(const HostK& K, const KPlan& plan,
                               const std::function<void(std::uint32_t)>& uploaded = {}) {
        std::vector<DeviceK> parts(slots_.size());
        vk::forEachDevice(slots_.size(), [&](std::size_t d) {
            parts[d] = uploadChunks(*slots_[d].device, K, plan.chunksOf(std::uint32_t(d)), plan.streamed[d],
                                    plan.streamGroup[d], uploaded);
        });
        return parts;
    }

    std::shared_ptr<vk::Instance> instance_;
    std::vector<Slot> slots_;
    // A foreign K placed on the devices, the handle it came from, and the time that took (for
    // the next transport's details).
    std::unique_ptr<VulkanK> placed_;
    const KHandle* placedFrom_ = nullptr;
    double placementSeconds_ = 0.0;
    const PreparedScene* scene_ = nullptr;
    // The shaft queries' BVH, built once for all devices (prepareDevice runs on several threads).
    std::once_flag shaftsBuilt_;
    std::shared_ptr<const SceneShafts> shafts_, adopted_; // built here, or adopted (adoptSceneShafts)
    std::vector<shared::RayBvhNode> queryNodes_, rayNodes_; // shafts_'s BVH four wide: as built, widened
    StreamMode stream_;
    std::uint64_t maxDeviceBytes_, maxHostBytes_;
    TransportTuning tuning_;
    bool rays_ = true; // devices with ray tracing
    const RowShare* share_ = nullptr;
    std::unique_ptr<GpuPose> lastPose_; // gpuPose()
    shared::LightSensorRecord lastPoseRecord_{};
    std::vector<float> lastPulse_;
    // The near lists of this batch's groups and what they were built for (transport()).
    struct NearKey {
        const VulkanK* k = nullptr;
        float invCdtSq = 0.0f;
        std::uint32_t nearBelow = 0;
        std::size_t devices = 0;
        bool operator==(const NearKey&) const = default;
    };
    NearKey nearKey_;
    NearLists near_;
    std::unique_ptr<FarSumsMail> mail_; // the far sums' host memory of several devices (transport())
};

} // namespace

std::unique_ptr<Backend> makeVulkanBackendOn(std::shared_ptr<vk::Instance> instance,
                                             const std::vector<const vk::PhysicalDeviceInfo*>& infos,
                                             vk::RayPath path, StreamMode stream, std::uint64_t maxDeviceBytes,
                                             std::uint64_t maxHostBytes, const TransportTuning& tuning, bool rays,
                                             bool transferQueues) {
    return std::make_unique<VulkanBackend>(std::move(instance), infos, path, stream, maxDeviceBytes, maxHostBytes,
                                           tuning, rays, transferQueues);
}

} // namespace rsim
