// SPDX-License-Identifier: MIT
// The Vulkan backend's transport: a group of poses in one pass over time on the devices that hold
// K, with the near lists and the far sums' host memory kept for the batch's later groups, and
// the B/Z histories left on device 0 (copied to the host when asked for).
#include <algorithm>
#include <future>
#include <limits>

#include <spdlog/spdlog.h>

#include "backends/vulkan/backend.h"
#include "transport/row_exchange.h"
#include "transport/vulkan_near_pairs.h"
#include "util/timer.h"
#include "vulkan/device_group.h"

namespace rsim {

// The transport records of a group on each device that runs it (device 0 alone without
// indirect light), and the pulse there: TransportDevice points into them.
struct VulkanBackend::GroupOnDevices {
    std::vector<GpuPose> pulses;
    std::vector<vk::Buffer> records;
    std::vector<TransportDevice> devices;
};

namespace {

// Every pose's records, [pose][n], padded to `P` poses: the padding poses have the first pose's
// geometry without sources, so their B and Z stay 0.
std::vector<shared::GpuTransportTri> groupRecords(const PreparedScene& scene, const std::vector<TransportPose>& batch,
                                                  std::uint32_t P) {
    const std::uint32_t n = std::uint32_t(scene.size());
    std::vector<shared::GpuTransportTri> records;
    records.reserve(std::size_t(n) * P);
    for (const TransportPose& p : batch) {
        const auto r = makeTransportRecords(scene, *p.config, *p.direct);
        records.insert(records.end(), r.begin(), r.end());
    }
    for (std::uint32_t p = std::uint32_t(batch.size()); p < P; ++p)
        for (std::uint32_t i = 0; i < n; ++i) {
            shared::GpuTransportTri r = records[i];
            r.source = glm::vec4(r.source.x, 0.0f, 0.0f, 0.0f);
            records.push_back(r);
        }
    return records;
}

// The transport's details and its log line's summary.
void reportTransport(const GpuTransport& gpu, bool exchanged, TransportOutcome& out) {
    out.details.emplace_back("radiosity_setup", gpu.setupSeconds);
    out.details.emplace_back("radiosity_loop", gpu.loopSeconds);
    if (exchanged) out.details.emplace_back("radiosity_exchange", gpu.exchangeSeconds);
    if (gpu.sharedExchangeBytes)
        out.details.emplace_back("radiosity_exchange_shared_mib", double(gpu.sharedExchangeBytes) / 1048576.0);
    if (gpu.streamedBytes) out.details.emplace_back("streamed_gib", double(gpu.streamedBytes) / 1073741824.0);
    out.summary = fmt::format("{:.3f} s time loop{}{}", gpu.loopSeconds,
                              !exchanged ? std::string()
                              : gpu.sharedExchangeBytes
                                  ? fmt::format(", far sums through host memory the devices share")
                                  : fmt::format(", {:.3f} s combining far sums", gpu.exchangeSeconds),
                              gpu.streamedBytes
                                  ? fmt::format(", {:.1f} GiB of K streamed", double(gpu.streamedBytes) / 1073741824.0)
                                  : "");
}

} // namespace

TransportOutcome VulkanBackend::transport(KHandle* K, const std::vector<TransportPose>& batch, bool hostHistories,
                                          const std::function<void()>& loopStarted) {
    TransportOutcome out;
    const SimConfig& c = *batch[0].config;
    const std::uint32_t n = std::uint32_t(scene().size()), P = paddedPoses(std::uint32_t(batch.size()), tuning_);
    const std::vector<shared::GpuTransportTri> records = groupRecords(scene(), batch, P);
    VulkanK* mine = onDevices(K, c);
    if (placementSeconds_ > 0.0) out.details.emplace_back("k_placement", std::exchange(placementSeconds_, 0.0));
    const bool gathers = mine && c.indirect;
    // The records go to each device once, for the near lists, the transport and (device 0)
    // the distances.
    GroupOnDevices group;
    const std::size_t D = gathers ? slots_.size() : 1;
    for (std::size_t d = 0; d < D; ++d) {
        group.pulses.emplace_back(*slots_[d].device, c);
        group.records.push_back(vk::makeStorage(*slots_[d].device, records, "transport triangles"));
    }
    for (std::size_t d = 0; d < D; ++d)
        group.devices.push_back({slots_[d].device.get(), &group.pulses[d], &group.records[d],
                                 gathers ? &mine->parts()[d] : nullptr, slots_[d].spareHistory.get()});
    // Row-block mode: every rank gathers the same steps per pass (a rank that streams K would
    // choose more), or their exchanges would not match.
    TransportTuning tuning = tuning_;
    if (share_ && gathers) {
        std::vector<std::uint64_t> blocks{transportNearBelow(group.devices, tuning_, true) / shared::RSIM_TIME_BLOCK};
        share_->ranks().max(blocks);
        tuning.passBlocks = std::uint32_t(blocks[0]);
    }
    const std::uint32_t nearBelow = transportNearBelow(group.devices, tuning, share_ != nullptr);
    // Several devices' far sums pass through host memory they import: pinned beside the near
    // lists' building, and kept for the batch's later groups while large enough.
    std::future<std::unique_ptr<FarSumsMail>> mailAhead;
    if (!(mail_ && mail_->holds(farSumsBytes(n, nearBelow, P)))) {
        mail_.reset();
        if (group.devices.size() > 1)
            mailAhead = std::async(std::launch::async, [&] {
                return makeFarSumsMail(group.devices, n, P, tuning, c.indirect, share_ != nullptr);
            });
    }
    if (gathers) buildNearLists(group, mine, c, nearBelow, out);
    if (mailAhead.valid()) mail_ = mailAhead.get();
    const NearLists none;
    GpuTransport gpu = runTransportVulkan(group.devices, n, P, gathers ? near_ : none, c, c.indirect, tuning, share_,
                                          loopStarted, mail_.get());
    reportTransport(gpu, group.devices.size() > 1 || (share_ && c.indirect), out);
    handOverHistories(gpu, group, c, std::uint32_t(batch.size()), hostHistories, out);
    return out;
}

// The near lists depend on the geometry, K and the time step, not on the poses: a batch's later
// groups take the first group's.
void VulkanBackend::buildNearLists(const GroupOnDevices& group, VulkanK* mine, const SimConfig& c,
                                   std::uint32_t nearBelow, TransportOutcome& out) {
    const std::size_t D = group.devices.size();
    const NearKey key{mine, c.invCdtSq, nearBelow, D};
    if (key == nearKey_) return;
    Stopwatch sw;
    std::vector<NearLists> parts(D);
    vk::forEachDevice(D, [&](std::size_t d) {
        parts[d] = buildNearListsVulkan(*slots_[d].device, mine->parts()[d], group.records[d], scene(), c, nearBelow);
    });
    const Stopwatch merge;
    near_ = mergeNearLists(parts);
    if (D > 1) spdlog::debug("the devices' near lists merged in {:.4f} s", merge.seconds());
    if (share_) near_ = shareNearLists(near_, *share_);
    nearKey_ = key;
    out.details.emplace_back("near_lists", sw.seconds());
}

// B and Z of every pose stay on device 0 for the distance phases, and come to the host only
// when asked for.
void VulkanBackend::handOverHistories(GpuTransport& gpu, GroupOnDevices& group, const SimConfig& c,
                                      std::uint32_t poses, bool hostHistories, TransportOutcome& out) {
    Stopwatch sw;
    auto shared = std::make_shared<VulkanBatchHistory>();
    shared->history = std::move(gpu.history);
    shared->records = std::move(group.records[0]);
    shared->n = std::uint32_t(scene().size());
    shared->timesteps = c.timesteps;
    shared->lanes = gpu.lanes;
    shared->spare = slots_[0].spareHistory;
    out.histories.resize(poses);
    const std::uint32_t P = paddedPoses(poses, tuning_);
    if (hostHistories) downloadHistories(*slots_[0].device, *shared, P, out.histories);
    for (std::uint32_t p = 0; p < poses; ++p) {
        Histories& h = out.histories[p];
        h.n = shared->n;
        h.timesteps = c.timesteps;
        auto copy = std::make_shared<VulkanHistory>();
        copy->owner = this;
        copy->batch = shared;
        copy->pose = p;
        h.device = copy;
    }
    out.downloadSeconds = sw.seconds();
}

std::uint32_t VulkanBackend::poseGroup(KHandle* K, const SimConfig& c, std::uint32_t atMost) {
    return poseLaneGroup(std::min(atMost, poseGroupLimit(K, c)), tuning_);
}

// Poses whose histories fit device 0 (and every device with K) beside what is there now,
// K included (placed first when it comes from elsewhere).
std::uint32_t VulkanBackend::poseGroupLimit(KHandle* K, const SimConfig& c) {
    dropBatchReuse(); // a new batch
    onDevices(K, c);
    const std::uint32_t n = std::uint32_t(scene().size());
    const std::uint64_t perPose = transportBytesPerPose(n, c.timesteps);
    std::uint64_t fit = std::numeric_limits<std::uint64_t>::max();
    for (const VulkanSlot& slot : slots_) {
        std::uint64_t avail = slot.device->deviceLocalBudget();
        // --max-device-mb caps all of rsim's use of the device, what it holds already too.
        if (limits_.maxDeviceBytes) {
            const std::uint64_t used = slot.budgetAtStart > avail ? slot.budgetAtStart - avail : 0;
            avail = std::min(avail, limits_.maxDeviceBytes > used ? limits_.maxDeviceBytes - used : 0);
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

void VulkanBackend::dropBatchReuse() {
    for (VulkanSlot& slot : slots_) slot.spareHistory->reset();
    nearKey_ = NearKey{};
    near_ = NearLists{};
    mail_.reset();
}

bool VulkanBackend::placeKAhead(KHandle* K, const SimConfig& c) {
    const double before = placementSeconds_; // grows where onDevices places K
    onDevices(K, c);
    return placementSeconds_ != before;
}

VulkanK* VulkanBackend::onDevices(KHandle* K, const SimConfig& c) {
    VulkanK* mine = dynamic_cast<VulkanK*>(K);
    if (!K || (mine && mine->belongsTo(slots_))) return mine;
    if (placedFrom_ != K) {
        Stopwatch sw;
        placed_.reset();
        std::vector<DeviceBudget> budgets;
        const bool segments = K->host().layout() == KLayout::Segments;
        const KPlan plan = planKOnDevices(slots_, scene().size(), K->host().chunking(), c.timesteps, limits_, share_,
                                          budgets, 0, segments);
        // A K stored as segments (the CPU's or the K cache's, issue 63) is placed as it is.
        placed_ = std::make_unique<VulkanK>(slots_, placeK(slots_, K->host(), plan));
        placedFrom_ = K;
        placementSeconds_ += sw.seconds();
    }
    return placed_.get();
}

} // namespace rsim
