// SPDX-License-Identifier: MIT
// A device's set-up for the Vulkan transport (vulkan_transport_device.h): the far gather's
// workgroup shapes, the B/Z history, DeviceTransport's buffers, pipelines and push constants,
// and the runs of rows whose far sums it exchanges with the other devices.
#include "transport/vulkan_transport_device.h"

#include <algorithm>
#include <bit>

#include "vulkan/shaders.h"

namespace rsim {

// Source slices per workgroup of the far gather: a software device has few cores; a GPU needs
// many invocations in flight even for small n, which slicing each receiver's sources gives (the
// most slices the limits allow were the fastest: docs/benchmarks.md, "Radiosity on one GPU").
// With several poses per invocation, each invocation holds that many more accumulators: the
// slices shrink in proportion, so that a workgroup's registers stay within one compute unit's.
std::uint32_t farSplit(vk::Device& device, const TransportTuning& tuning, std::uint32_t perInvocation) {
    if (tuning.split) return std::min(tuning.split, shared::RSIM_MAX_RADIOSITY_SPLIT);
    if (device.info().isCpu()) return 1;
    std::uint32_t split = 1;
    while (split < shared::RSIM_MAX_RADIOSITY_SPLIT / perInvocation &&
           shared::RSIM_WG_RADIOSITY_X * split * 2 <= device.limits().maxComputeWorkGroupInvocations)
        split *= 2;
    return split;
}

// A software device runs one row at a time; a GPU takes 8 receivers by 2 slices unless told (the
// time loop of 32 poses of the medium room: 8 x 2, 16 x 2 and 32 x 1 alike, 4 x 4 and 8 x 4 6%
// slower, 4 x 8 14%; docs/benchmarks.md, "Batches: many poses, K once"), within its shared memory
// (1 KiB per row and the K table's).
LaneShape laneShape(vk::Device& device, const TransportTuning& tuning, bool segments) {
    // Sources per loop trip: 4 unless told (1 to 8, radiosity_far_lanes.comp; the time loop of 32
    // poses of the medium room: 1.13 s with 1, 1.08 s with 2, 0.94 s with 4 and 8, 0.97 s with 6;
    // docs/benchmarks.md, "Batches: many poses, K once").
    LaneShape s{tuning.laneReceivers, tuning.split, tuning.unroll ? std::clamp(tuning.unroll, 1u, 8u) : 4u};
    const bool cpu = device.info().isCpu();
    if (!s.receivers) s.receivers = cpu ? 1 : 8;
    if (!s.slices) s.slices = cpu ? 1 : 2;
    // Per row: two sets of 32 pairs (vec4) and three masks (uint); as segments two sets of 32
    // sources (uint).
    const std::uint64_t rowBytes = 2 * shared::RSIM_LANES * sizeof(glm::vec4) + 3 * sizeof(std::uint32_t) +
                                   (segments ? 2 * shared::RSIM_LANES * sizeof(std::uint32_t) : 0);
    const std::uint64_t rows = std::min<std::uint64_t>(
        (device.limits().maxComputeSharedMemorySize - 256 * sizeof(float)) / rowBytes,
        device.limits().maxComputeWorkGroupInvocations / shared::RSIM_LANES);
    s.receivers = std::clamp<std::uint32_t>(s.receivers, 1, std::uint32_t(rows));
    if (segments) s.receivers = std::bit_floor(std::min(s.receivers, shared::RSIM_K_SEGMENT_ROWS));
    s.slices = std::clamp<std::uint32_t>(s.slices, 1, std::uint32_t(rows / s.receivers));
    return s;
}

// The shaders' RSIM_SPEC_K_LAYOUT for K (dense when there is none).
std::uint32_t kLayoutSpec(const DeviceK* K) {
    return K ? K->layoutSpec() : shared::RSIM_K_LAYOUT_DENSE;
}

vk::Buffer historyBuffer(vk::Device& device, std::uint64_t bytes, vk::Buffer* spare) {
    if (spare && *spare && spare->size() >= bytes) return std::move(*spare);
    if (spare) spare->reset(); // too small: freed before the new one is allocated
    return vk::Buffer(device, bytes, vk::kStorageUsage, vk::MemoryKind::Device, "B/Z history");
}

DeviceTransport::DeviceTransport(const TransportDevice& in, std::uint32_t n, std::uint32_t poses,
                                 const NearLists& near, const SimConfig& c, FarSumsExchange exchange,
                                 const TransportTuning& tuning, std::uint32_t blockSteps)
    : dev_(*in.device), k_(in.k), n_(n), T_(c.timesteps), P_(poses),
      perInvocation_(posesPerInvocation(poses, tuning)), lanes_(usesPoseLanes(poses, tuning)),
      laneShape_(laneShape(dev_, tuning, k_ && k_->layout == KLayout::Segments)), blockSteps_(blockSteps),
      farBytes_(farSumsBytes(n_, blockSteps, P_)),
      history_(historyBuffer(dev_, std::uint64_t(n_) * T_ * P_ * sizeof(glm::vec2), in.spareHistory)),
      farSums_((laps_.mark("history"),
                vk::Buffer(dev_, farBytes_, vk::kStorageUsage, vk::MemoryKind::Device, "far sums"))),
      nearOffsets_((laps_.mark("far sums"), vk::makeStorage(dev_, near.offsets, "near-pair offsets"))),
      nearPairs_(near.pairs.empty()
                     ? vk::Buffer(dev_, sizeof(shared::NearPair), vk::kStorageUsage, vk::MemoryKind::Device,
                                  "near pairs")
                     : vk::makeStorage(dev_, near.pairs, "near pairs")),
      far_(dev_,
           (laps_.mark("near lists"), lanes_ ? vk::shaders::radiosityFarLanes() : vk::shaders::radiosityFar()),
           lanes_ ? vk::specConstants({{shared::RSIM_SPEC_LANES_RECEIVERS, laneShape_.receivers},
                                       {shared::RSIM_SPEC_LANES_SLICES, laneShape_.slices},
                                       {shared::RSIM_SPEC_RADIOSITY_UNROLL, laneShape_.perTrip},
                                       {shared::RSIM_SPEC_K_FORMAT, k_ ? k_->chunking.storage() : 0u},
                                       {shared::RSIM_SPEC_K_LAYOUT, kLayoutSpec(k_)}})
                  : vk::specConstants({{shared::RSIM_SPEC_RADIOSITY_SPLIT, farSplit(dev_, tuning, perInvocation_)},
                                       {shared::RSIM_SPEC_RADIOSITY_UNROLL, std::clamp(tuning.unroll, 1u, 16u)},
                                       {shared::RSIM_SPEC_K_FORMAT, k_ ? k_->chunking.storage() : 0u},
                                       {shared::RSIM_SPEC_RADIOSITY_POSES, perInvocation_},
                                       {shared::RSIM_SPEC_K_LAYOUT, kLayoutSpec(k_)},
                                       {shared::RSIM_SPEC_RADIOSITY_STAGED, tuning.staged ? 1u : 0u}}),
           lanes_ ? "radiosity far gather (pose lanes)" : "radiosity far gather"),
      near_(dev_, (laps_.mark("far pass"), radiosityNearRecipe())), gate_(dev_, "the other devices' far sums"),
      copyDone_(dev_, "K copies"),
      computeDone_(dev_, "transport work") {
    laps_.mark("near pass and semaphores");
    vk::fillZero(dev_, history_);
    vk::fillZero(dev_, farSums_);
    laps_.mark("zeroed");
    if (k_ && k_->streamed && !k_->chunkIds.empty()) {
        std::uint64_t largest = 0;
        for (const auto& b : k_->buffers) largest = std::max(largest, b.size());
        slotBytes_ = (largest + 255) / 256 * 256;
        for (std::uint32_t b = 0; b < kStreamBuffers; ++b)
            stream_[b] = vk::Buffer(dev_, slotBytes_ * k_->streamGroup, vk::kStorageUsage, vk::MemoryKind::Device,
                                    "K stream buffer " + std::to_string(b), true);
    }
    if (exchange == FarSumsExchange::HostCopies) {
        readback_ = vk::Buffer(dev_, farBytes_, 0, vk::MemoryKind::Readback, "far sums readback");
        upload_ = vk::Buffer(dev_, farBytes_, 0, vk::MemoryKind::Upload, "far sums upload");
    }
    if (exchange != FarSumsExchange::None) {
        if (k_) {
            ownRuns_ = rowRuns(true);
            otherRuns_ = rowRuns(false);
        }
    }
    laps_.mark("the rest");
    setPushConstants(in, c);
}

void DeviceTransport::setPushConstants(const TransportDevice& in, const SimConfig& c) {
    fp_.tris = in.records->address();
    fp_.history = history_.address();
    fp_.farSums = farSums_.address();
    fp_.n = n_;
    fp_.timesteps = T_;
    fp_.invCdtSq = c.invCdtSq;
    fp_.poses = P_;
    fp_.poseStride = n_ * T_;
    fp_.nearBelow = blockSteps_;
    np_.tris = in.records->address();
    np_.history = history_.address();
    np_.farSums = farSums_.address();
    np_.nearOffsets = nearOffsets_.address();
    np_.nearPairs = nearPairs_.address();
    np_.pulse = in.pose->pulse.address();
    np_.n = n_;
    np_.timesteps = T_;
    np_.pulseLength = std::uint32_t(c.pulse.size());
    np_.poses = P_;
    np_.poseStride = n_ * T_;
    np_.lanes = lanes_ ? 1u : 0u;
}

DeviceTransport::~DeviceTransport() {
    if (gate_.value() >= gateAwaited_) return;
    try {
        gate_.signal(gateAwaited_);
    } catch (...) {
    }
}

void DeviceTransport::finish() {
    computeDone_.waitAll();
    dev_.reclaim();
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> DeviceTransport::rowRuns(bool own) const {
    const KChunking& ch = k_->chunking;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
    for (std::uint32_t c = 0, x = 0; c < ch.chunks(); ++c) {
        const bool held = x < k_->chunkIds.size() && k_->chunkIds[x] == c;
        if (held) ++x;
        if (held != own) continue;
        if (!runs.empty() && runs.back().first + runs.back().second == ch.rowBegin(c))
            runs.back().second += ch.rows(c);
        else
            runs.push_back({ch.rowBegin(c), ch.rows(c)});
    }
    return runs;
}

std::vector<VkBufferCopy> DeviceTransport::rowRegions(std::uint32_t steps, bool own) const {
    const auto& runs = own ? ownRuns_ : otherRuns_;
    std::vector<VkBufferCopy> regions;
    for (std::uint32_t q = 0; q < steps; ++q)
        for (const auto& [row, rows] : runs) {
            const std::uint64_t at = (std::uint64_t(q) * n_ + row) * P_ * sizeof(glm::vec2);
            regions.push_back({at, at, std::uint64_t(rows) * P_ * sizeof(glm::vec2)});
        }
    return regions;
}

} // namespace rsim
