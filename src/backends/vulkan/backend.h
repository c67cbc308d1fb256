// SPDX-License-Identifier: MIT
// The Vulkan backend: every phase of MODEL.md on one or several GPUs (or software devices); only
// results (direct terms, B/Z histories, distances, the sensor image) come back to the host.
//
// K is built by one of the routes of k_routes.h, chosen from the K plan (k_memory.h): in place on
// one device that can hold fp32 K, or chunk by chunk on several devices (or streamed, or too large
// for fp32 on one device), each chunk going to the device that gathers from it, resident in device
// memory or pinned in host memory and streamed every time block (k/k_plan.h).
//
// The class's members are defined in backend.cpp (the devices, the scene, the geometry and
// per-pose phases) and backend_transport.cpp (the transport of a group of poses).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/backend.h"
#include "backends/vulkan/devices.h"
#include "backends/vulkan/histories.h"
#include "backends/vulkan/k_memory.h"
#include "rsim/shared/gpu_layout.h"
#include "transport/near_pairs.h"
#include "transport/vulkan_transport.h"
#include "vulkan/gpu_scene.h"
#include "vulkan/instance.h"

namespace rsim {

struct SceneShafts; // visibility/scene_shafts.h

class VulkanBackend final : public Backend {
public:
    VulkanBackend(std::shared_ptr<vk::Instance> instance, const std::vector<const vk::PhysicalDeviceInfo*>& infos,
                  vk::RayPath path, const KMemoryLimits& limits, TransportTuning tuning, bool rays, bool transferQueues);

    void describe(RunMetadata& meta) const override;
    // The devices keep B and Z, and make their sources from the direct terms
    // (makeTransportRecords).
    BackendTraits traits() const override { return {true, false, instance_->validation()}; }
    std::uint64_t validationErrors() const override { return instance_->validationErrors(); }
    // Row-block mode: this rank's chunks only; far sums exchanged with the other ranks every
    // pass. The expected phases' pipelines start compiling.
    void configure(const BackendSettings& settings) override;
    void prepare(const PreparedScene& scene) override;
    VisibilityOutcome visibility(const KSettings& requested, KJournal* journal) override;
    DirectTerms direct(const SimConfig& c) override;
    TransportOutcome transport(KHandle* K, const std::vector<TransportPose>& batch, bool hostHistories,
                               const std::function<void()>& loopStarted) override;
    std::uint32_t poseGroup(KHandle* K, const SimConfig& c, std::uint32_t atMost) override;
    bool placeKAhead(KHandle* K, const SimConfig& c) override;
    TriangleDistances distances(const Histories& h, const DirectTerms& direct, const SimConfig& c) override;
    void signals(const Histories& h, const DirectTerms& direct, const SimConfig& c, std::vector<double>& fwd,
                 std::vector<double>& adj) override;
    SensorImage image(const Histories& h, const DirectTerms& direct, const SimConfig& c, const PrimaryHits* hits) override;
    SensorImage pathTraced(const SimConfig& c) override;
    // The phasors transport (backend_phasors.cpp): the solve on the devices that hold K, and the
    // primary rays whose hits the host's phasor image reads.
    PhasorSolution phasors(KHandle* K, const PhasorSystem& system) override;
    PrimaryHits primaryHits(const SimConfig& c) override;
    std::vector<std::uint64_t> deviceBytesInUse() const override;
    void saveCaches() override;

private:
    // The records of one transport group on the devices that run it (transport()).
    struct GroupOnDevices;

    // Poses whose histories fit the devices beside K.
    std::uint32_t poseGroupLimit(KHandle* K, const SimConfig& c);
    void expectPhases(const ExpectedPhases& e);
    const PreparedScene& scene() const;
    // A backend made without ray tracing (pipeline/host_rays.h) runs no ray phase.
    void requireRays(const char* phase) const;
    void prepareDevice(std::size_t d);
    void warmAfterVisibility(KFormat format, KLayout layout);
    KSettings withTileLists(const KSettings& k) const;
    // visibility()'s plan of K, dense or as segments (simulation.k_layout).
    KPlan planWithLayout(const KSettings& k, std::vector<DeviceBudget>& budgets, std::uint64_t listBytes);
    // visibility()'s K made segments where it lives: every device its chunks.
    void makeSegments(std::vector<DeviceK>& parts, VisibilityOutcome& out);
    // What a batch's groups reuse (spare histories, near lists) is dropped when a new batch, a
    // visibility or a scene begins: the spares would take memory the new plan counts on, and the
    // near lists' K may be gone (a new one could have its address).
    void dropBatchReuse();
    // K on these devices: this backend's own, or one from elsewhere (another backend, the K
    // cache) placed here as if assembled here, once for all the groups of a batch. Null
    // without K.
    VulkanK* onDevices(KHandle* K, const SimConfig& c);
    // This backend's history on device 0, or a foreign one uploaded there.
    std::shared_ptr<const VulkanHistory> onDevice(const Histories& h, const DirectTerms& direct, const SimConfig& c);
    // Device 0's light, sensor and pulse for `config`: the last pose's when they are the same
    // (a pose's direct terms, signals, distances and image each need them; uploading them is a
    // copy and a wait each time).
    const GpuPose& gpuPose(const SimConfig& config);
    // transport()'s steps.
    void buildNearLists(const GroupOnDevices& group, VulkanK* mine, const SimConfig& c, std::uint32_t nearBelow,
                        TransportOutcome& out);
    void handOverHistories(GpuTransport& gpu, GroupOnDevices& group, const SimConfig& c, std::uint32_t poses,
                           bool hostHistories, TransportOutcome& out);

    std::shared_ptr<vk::Instance> instance_;
    std::vector<VulkanSlot> slots_;
    // A foreign K placed on the devices, the handle it came from, and the time that took (for
    // the next transport's details).
    std::unique_ptr<VulkanK> placed_;
    const KHandle* placedFrom_ = nullptr;
    double placementSeconds_ = 0.0;
    const PreparedScene* scene_ = nullptr;
    // The shaft queries' BVH, built once for all devices (prepareDevice runs on several threads).
    std::once_flag shaftsBuilt_;
    std::shared_ptr<const SceneShafts> shafts_, adopted_; // built here, or adopted (BackendSettings::shafts)
    std::vector<shared::RayBvhNode> queryNodes_, rayNodes_; // shafts_'s BVH four wide: as built, widened
    KMemoryLimits limits_;
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

} // namespace rsim
