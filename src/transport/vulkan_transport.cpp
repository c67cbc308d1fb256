// SPDX-License-Identifier: MIT
#include "transport/vulkan_transport.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include <glm/geometric.hpp>
#include <spdlog/spdlog.h>

#include "k/k_plan.h"
#include "transport/row_exchange.h"
#include "util/error.h"
#include "util/parallel.h"
#include "util/progress.h"
#include "util/timer.h"
#include "vulkan/device_group.h"
#include "vulkan/pass.h"
#include "vulkan/shaders.h"
#include "vulkan/shared_host_buffer.h"
#include "vulkan/timeline.h"

namespace rsim {

std::vector<shared::GpuTransportTri> makeTransportRecords(const PreparedScene& s, const SimConfig& c,
                                                          const DirectTerms& d) {
    std::vector<shared::GpuTransportTri> out(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const glm::vec3 u = glm::normalize(glm::dvec3(s.centroid[i]) - glm::dvec3(c.sensor.position));
        out[i].centroidArea = glm::vec4(s.centroid[i], s.area[i]);
        out[i].source = glm::vec4(s.reflectance[i], s.reflectance[i] * d.irradiance[i], d.tLight[i], d.importance[i]);
        out[i].sensorDirDelay = glm::vec4(u, d.tSensor[i]);
        out[i].extra = glm::vec4(s.reflectance[i] * s.area[i], 0.0f, 0.0f, 0.0f);
    }
    return out;
}

namespace {
constexpr std::uint32_t B = shared::RSIM_TIME_BLOCK;
bool hostCopiesOnly = false; // avoidSharedHostExchange
} // namespace

void avoidSharedHostExchange(bool avoid) { hostCopiesOnly = avoid; }

// One by default: measured on an H100 (docs/benchmarks.md, "Batches"), the time loop of 32
// poses of the medium room took 2.08 s with one pose per invocation (a workgroup per pose),
// 9.71 s with two and 11.56 s with four (fewer warps in flight for a latency-bound kernel).
std::uint32_t posesPerInvocation(std::uint32_t poses, const TransportTuning& tuning) {
    const std::uint32_t most = tuning.poses ? std::min(tuning.poses, shared::RSIM_MAX_RADIOSITY_POSES) : 1u;
    return poses <= 2 ? std::min(std::max(poses, 1u), most) : most;
}

std::uint32_t paddedPoses(std::uint32_t poses, const TransportTuning& tuning) {
    const std::uint32_t k = posesPerInvocation(poses, tuning);
    return (poses + k - 1) / k * k;
}


bool usesPoseLanes(std::uint32_t poses, const TransportTuning& tuning) {
    return !tuning.noLanes && posesPerInvocation(poses, tuning) == 1 && poses >= shared::RSIM_LANES &&
           poses % shared::RSIM_LANES == 0;
}

std::uint32_t poseLaneGroup(std::uint32_t poses, const TransportTuning& tuning) {
    const std::uint32_t lanes = poses - poses % shared::RSIM_LANES;
    return usesPoseLanes(lanes, tuning) ? lanes : poses;
}

std::uint32_t transportNearBelow(const std::vector<TransportDevice>& devices, const TransportTuning& tuning,
                                 bool ranks) {
    bool streamed = false;
    for (const TransportDevice& d : devices) streamed = streamed || (d.k && d.k->streamed);
    // The backend passes one device without indirect light.
    const bool exchanged = devices.size() > 1 || ranks;
    if (!streamed && !exchanged) return B;
    const std::uint32_t blocks = tuning.passBlocks ? tuning.passBlocks : streamed ? 4u : 2u;
    return B * std::clamp(blocks, 1u, kMaxPassBlocks);
}

std::uint64_t transportBytesPerPose(std::uint32_t n, std::uint32_t timesteps) {
    // Far sums, their exchange buffers: three of B steps, times the blocks of a streamed K's copy.
    return std::uint64_t(n) * (std::uint64_t(timesteps) * 8 + 3 * B * kMaxPassBlocks * 8 + sizeof(shared::GpuTransportTri));
}

vk::PipelineRecipe radiosityNearRecipe() {
    return vk::passRecipe<shared::RadiosityNearPush>(vk::shaders::radiosityNear(),
                                                     vk::specConstants({{shared::RSIM_SPEC_NEAR_SPLIT, kNearSplit}}),
                                                     "radiosity near steps");
}

namespace {

// Source slices per workgroup of the far gather: a software device has few cores; a GPU needs
// many warps in flight even for small n (the H100 sweep of docs/benchmarks.md favoured the most
// slices the limits allow).
// With several poses per invocation, each invocation holds that many more accumulators: the
// slices shrink in proportion, so that a workgroup's registers stay within one SM's.
std::uint32_t farSplit(vk::Device& device, const TransportTuning& tuning, std::uint32_t perInvocation) {
    if (tuning.split) return std::min(tuning.split, shared::RSIM_MAX_RADIOSITY_SPLIT);
    if (device.info().isCpu()) return 1;
    std::uint32_t split = 1;
    while (split < shared::RSIM_MAX_RADIOSITY_SPLIT / perInvocation &&
           shared::RSIM_WG_RADIOSITY_X * split * 2 <= device.limits().maxComputeWorkGroupInvocations)
        split *= 2;
    return split;
}

// The pose lanes' far gather: receivers and source slices per workgroup. A software device runs
// one row at a time; a GPU takes 8 receivers by 2 slices unless told (measured on an H100, 32
// poses of the medium room: 8 x 2, 16 x 2 and 32 x 1 alike, 4 x 4 and 8 x 4 6% slower, 4 x 8 14%;
// docs/benchmarks.md), within its shared memory (1 KiB per row and the K table's).
struct LaneShape {
    std::uint32_t receivers, slices, perTrip;
};
LaneShape laneShape(vk::Device& device, const TransportTuning& tuning) {
    // Sources per loop trip: 4 unless told (1 to 8, radiosity_far_lanes.comp; H100, 32 poses of
    // the medium room, time loop: 1.13 s with 1, 1.08 s with 2, 0.94 s with 4 and 8, 0.97 s with 6).
    LaneShape s{tuning.laneReceivers, tuning.split, tuning.unroll ? std::clamp(tuning.unroll, 1u, 8u) : 4u};
    const bool cpu = device.info().isCpu();
    if (!s.receivers) s.receivers = cpu ? 1 : 8;
    if (!s.slices) s.slices = cpu ? 1 : 2;
    // Per row: two sets of 32 pairs (vec4) and three masks (uint).
    const std::uint64_t rowBytes = 2 * shared::RSIM_LANES * sizeof(glm::vec4) + 3 * sizeof(std::uint32_t);
    const std::uint64_t rows = std::min<std::uint64_t>(
        (device.limits().maxComputeSharedMemorySize - 256 * sizeof(float)) / rowBytes,
        device.limits().maxComputeWorkGroupInvocations / shared::RSIM_LANES);
    s.receivers = std::clamp<std::uint32_t>(s.receivers, 1, std::uint32_t(rows));
    s.slices = std::clamp<std::uint32_t>(s.slices, 1, std::uint32_t(rows / s.receivers));
    return s;
}

// A group's B/Z history: the spare one when it is large enough.
vk::Buffer historyBuffer(vk::Device& device, std::uint64_t bytes, vk::Buffer* spare) {
    if (spare && *spare && spare->size() >= bytes) return std::move(*spare);
    if (spare) spare->reset(); // too small: freed before the new one is allocated
    return vk::Buffer(device, bytes, vk::kStorageUsage, vk::MemoryKind::Device, "B/Z history");
}

// How the devices' far sums reach each other: not at all (one device), through host buffers that
// the host copies between (and MPI ranks), or through host memory every device imports.
enum class Exchange { None, HostCopies, SharedHost };

// One device's part of the time loop: its buffers and passes, and what it submits per block.
class DeviceTransport {
public:
    DeviceTransport(const TransportDevice& in, std::uint32_t n, std::uint32_t poses, const NearLists& near,
                    const SimConfig& c, Exchange exchange, const TransportTuning& tuning, std::uint32_t blockSteps)
        : dev_(*in.device), k_(in.k), n_(n), T_(c.timesteps), P_(poses),
          perInvocation_(posesPerInvocation(poses, tuning)), lanes_(usesPoseLanes(poses, tuning)),
          laneShape_(laneShape(dev_, tuning)), blockSteps_(blockSteps),
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
                                           {shared::RSIM_SPEC_K_FORMAT, k_ ? k_->chunking.storage() : 0u}})
                      : vk::specConstants({{shared::RSIM_SPEC_RADIOSITY_SPLIT, farSplit(dev_, tuning, perInvocation_)},
                                           {shared::RSIM_SPEC_RADIOSITY_UNROLL, std::clamp(tuning.unroll, 1u, 16u)},
                                           {shared::RSIM_SPEC_K_FORMAT, k_ ? k_->chunking.storage() : 0u},
                                           {shared::RSIM_SPEC_RADIOSITY_POSES, perInvocation_}}),
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
        if (exchange == Exchange::HostCopies) {
            readback_ = vk::Buffer(dev_, farBytes_, 0, vk::MemoryKind::Readback, "far sums readback");
            upload_ = vk::Buffer(dev_, farBytes_, 0, vk::MemoryKind::Upload, "far sums upload");
        }
        if (exchange != Exchange::None) {
            if (k_) {
                ownRuns_ = rowRuns(true);
                otherRuns_ = rowRuns(false);
            }
        }
        laps_.mark("the rest");
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

    // A submission waiting on the gate never runs unless the host opens it: a loop left early
    // (an exception) opens it before the semaphores below wait for that work.
    ~DeviceTransport() {
        if (gate_.value() >= gateAwaited_) return;
        try {
            gate_.signal(gateAwaited_);
        } catch (...) {
        }
    }
    DeviceTransport(const DeviceTransport&) = delete;
    DeviceTransport& operator=(const DeviceTransport&) = delete;

    // The host stays at most one block ahead of the device: submissions that wait on semaphores
    // not yet signalled pile up in the driver otherwise (measured on NVIDIA: the cost of each
    // streamed chunk grew with the number queued; docs/benchmarks.md).
    void throttle(std::uint32_t block) {
        if (!blockDone_[block % 2]) return;
        computeDone_.wait(blockDone_[block % 2]);
        dev_.reclaim();
    }

    // The far gathers of the block [t0, t0 + steps), then (exchange) the far sums to the host.
    void submitFar(std::uint32_t t0, std::uint32_t steps, bool exchange) {
        if (k_->streamed)
            submitStreamedFar(t0, steps);
        else
            computeDone_.submit(false, [&](VkCommandBuffer cmd) { recordResidentFar(cmd, t0, steps); });
        if (exchange) {
            // Only this device's rows: the others' are the other devices' to send.
            const std::vector<VkBufferCopy> regions = rowRegions(steps, true);
            computeDone_.submit(false, [&](VkCommandBuffer cmd) {
                vk::computeBarrier(dev_, cmd);
                if (!regions.empty())
                    dev_.vk().vkCmdCopyBuffer(cmd, farSums_.handle(), readback_.handle(),
                                              std::uint32_t(regions.size()), regions.data());
            });
        }
    }

    // Row-block mode, K resident: the far gathers of the block from this device's chunks among
    // [c0, c1), then the copy of their rows' far sums to the host. Returns the value that ends it.
    std::uint64_t submitFarOfChunks(std::uint32_t t0, std::uint32_t steps, std::uint32_t c0, std::uint32_t c1) {
        const KChunking& ch = k_->chunking;
        std::vector<VkBufferCopy> regions;
        computeDone_.submit(false, [&](VkCommandBuffer cmd) {
            vk::computeBarrier(dev_, cmd);
            far_.bind(cmd);
            for (std::size_t x = 0; x < k_->chunkIds.size(); ++x) {
                const std::uint32_t c = k_->chunkIds[x];
                if (c < c0 || c >= c1) continue;
                dispatchFar(cmd, x, k_->buffers[x].address(), t0, steps);
                for (std::uint32_t q = 0; q < steps; ++q) {
                    const std::uint64_t at = (std::uint64_t(q) * n_ + ch.rowBegin(c)) * P_ * sizeof(glm::vec2);
                    regions.push_back({at, at, std::uint64_t(ch.rows(c)) * P_ * sizeof(glm::vec2)});
                }
            }
            if (regions.empty()) return;
            vk::computeBarrier(dev_, cmd);
            dev_.vk().vkCmdCopyBuffer(cmd, farSums_.handle(), readback_.handle(), std::uint32_t(regions.size()),
                                      regions.data());
        });
        return computeDone_.value();
    }
    // Whether the device reached `value`, waiting at most `timeoutNs`.
    bool reached(std::uint64_t value, std::uint64_t timeoutNs) const { return computeDone_.waitFor(value, timeoutNs); }

    void waitForFarSums() const { computeDone_.waitAll(); }
    // Copies this device's rows of the far sums (of its chunks among [c0, c1)) into `merged`
    // (vec2[steps][n][poses]). The copies of a block (several MB between the devices' gathers,
    // which wait for them) run on every thread: on one, two H100s' radiosity loop spent 0.18 of
    // industry's 0.79 s combining far sums.
    void contributeFarSums(std::vector<glm::vec2>& merged, std::uint32_t steps, std::uint32_t c0 = 0,
                           std::uint32_t c1 = UINT32_MAX) const {
        const auto* src = static_cast<const glm::vec2*>(readback_.mapped());
        const KChunking& ch = k_->chunking;
        std::vector<std::uint32_t> chunks;
        for (std::uint32_t c : k_->chunkIds)
            if (c >= c0 && c < c1) chunks.push_back(c);
        parallelFor(chunks.size() * steps, 16, [&](std::size_t b, std::size_t e, unsigned) {
            for (std::size_t x = b; x < e; ++x) {
                const std::uint32_t c = chunks[x / steps], q = std::uint32_t(x % steps);
                const std::size_t o = (std::size_t(q) * n_ + ch.rowBegin(c)) * P_;
                std::memcpy(&merged[o], &src[o], std::size_t(ch.rows(c)) * P_ * sizeof(glm::vec2));
            }
        });
    }
    void receiveFarSums(const std::vector<glm::vec2>& merged) {
        auto* to = static_cast<char*>(upload_.mapped());
        const auto* from = reinterpret_cast<const char*>(merged.data());
        parallelFor(farBytes_, std::size_t(256) << 10, [&](std::size_t b, std::size_t e, unsigned) {
            std::memcpy(to + b, from + b, e - b);
        });
    }

    // Several devices of one process: copies this device's rows of the block's far sums (its
    // readback) into `to`'s upload buffer, at their places; `to` then uploads the rows it does not
    // hold (FarSumsUpload::Others). A third of the host's copying of contribute + receive, and half
    // the bytes over the bus.
    void sendFarSumsTo(DeviceTransport& to, std::uint32_t steps) const {
        // In pieces of at most 256 KiB, copied on every thread.
        constexpr std::uint64_t kPiece = std::uint64_t(256) << 10;
        std::vector<VkBufferCopy> pieces;
        for (const VkBufferCopy& r : rowRegions(steps, true))
            for (std::uint64_t o = 0; o < r.size; o += kPiece)
                pieces.push_back({r.srcOffset + o, r.srcOffset + o, std::min(kPiece, r.size - o)});
        const auto* from = static_cast<const char*>(readback_.mapped());
        auto* into = static_cast<char*>(to.upload_.mapped());
        parallelFor(pieces.size(), 1, [&](std::size_t b, std::size_t e, unsigned) {
            for (std::size_t x = b; x < e; ++x)
                std::memcpy(into + pieces[x].srcOffset, from + pieces[x].srcOffset, pieces[x].size);
        });
    }

    // Several devices sharing host memory (vk::SharedHostBuffer, `slot` this device's place in
    // it): the far gathers of the block [t0, t0 + steps), then this device's rows of the far sums
    // copied into `mail`, at their places. Returns the value that ends them.
    std::uint64_t submitFarShared(std::uint32_t t0, std::uint32_t steps, const vk::SharedHostBuffer& mail,
                                  std::size_t slot) {
        const std::vector<VkBufferCopy> regions = rowRegions(steps, true);
        return computeDone_.submit(false, [&](VkCommandBuffer cmd) {
            recordResidentFar(cmd, t0, steps);
            if (regions.empty()) return;
            vk::computeBarrier(dev_, cmd);
            dev_.vk().vkCmdCopyBuffer(cmd, farSums_.handle(), mail.buffer(slot), std::uint32_t(regions.size()),
                                      regions.data());
            vk::hostReadBarrier(dev_, cmd);
        });
    }
    // The block's near steps after the other devices' rows of its far sums are copied from
    // `mail`: submitted now, run once the host opens the gate to `gate` (openGate), when every
    // other device's submitFarShared of the block has ended.
    void submitNearShared(std::uint32_t t0, std::uint32_t steps, std::uint32_t block, const vk::SharedHostBuffer& mail,
                          std::size_t slot, std::uint64_t gate) {
        const std::vector<VkBufferCopy> regions = rowRegions(steps, false);
        gateAwaited_ = gate;
        computeDone_.submit(false, [&](VkCommandBuffer cmd) {
            if (!regions.empty())
                dev_.vk().vkCmdCopyBuffer(cmd, mail.buffer(slot), farSums_.handle(), std::uint32_t(regions.size()),
                                          regions.data());
            recordNear(cmd, t0, steps);
        }, &gate_, gate);
        blockDone_[block % 2] = computeDone_.value();
    }
    void openGate(std::uint64_t value) { gate_.signal(value); }
    const std::string& setupParts() const { return laps_.text; }

    // Which far sums reach the device before the block's near steps.
    enum class FarSumsUpload { None, All, Others };
    // The near steps of the block, after the combined far sums are in place when exchanged.
    void submitNear(std::uint32_t t0, std::uint32_t steps, std::uint32_t block, FarSumsUpload upload) {
        const std::vector<VkBufferCopy> regions = upload == FarSumsUpload::Others ? rowRegions(steps, false)
                                                  : upload == FarSumsUpload::All
                                                      ? std::vector<VkBufferCopy>{VkBufferCopy{0, 0, farBytes_}}
                                                      : std::vector<VkBufferCopy>{};
        computeDone_.submit(false, [&](VkCommandBuffer cmd) {
            if (!regions.empty())
                dev_.vk().vkCmdCopyBuffer(cmd, upload_.handle(), farSums_.handle(), std::uint32_t(regions.size()),
                                          regions.data());
            recordNear(cmd, t0, steps);
        });
        blockDone_[block % 2] = computeDone_.value();
    }

    // K resident and no far sums to exchange: the block's far gathers (`gather`) and near steps in
    // one submission instead of two (a small scene's blocks cost the host more than the device).
    void submitBlock(std::uint32_t t0, std::uint32_t steps, std::uint32_t block, bool gather) {
        computeDone_.submit(false, [&](VkCommandBuffer cmd) {
            if (gather) recordResidentFar(cmd, t0, steps);
            recordNear(cmd, t0, steps);
        });
        blockDone_[block % 2] = computeDone_.value();
    }

    void finish() {
        computeDone_.waitAll();
        dev_.reclaim();
    }
    vk::Buffer takeHistory() { return std::move(history_); }
    bool lanes() const { return lanes_; }
    std::uint64_t streamedBytes() const { return streamedBytes_; }

private:
    // Runs of neighbouring rows (first row, rows) of the chunks this device holds (`own`) or of
    // all the others: a device holds one block of rows, so one run or two.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> rowRuns(bool own) const {
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

    // The places of those rows in the far sums (vec2[steps][n][poses]), for the block's first
    // `steps` steps: one region a run and a step.
    std::vector<VkBufferCopy> rowRegions(std::uint32_t steps, bool own) const {
        const auto& runs = own ? ownRuns_ : otherRuns_;
        std::vector<VkBufferCopy> regions;
        for (std::uint32_t q = 0; q < steps; ++q)
            for (const auto& [row, rows] : runs) {
                const std::uint64_t at = (std::uint64_t(q) * n_ + row) * P_ * sizeof(glm::vec2);
                regions.push_back({at, at, std::uint64_t(rows) * P_ * sizeof(glm::vec2)});
            }
        return regions;
    }

    // The far gathers of the block's steps [t0, t0 + steps) from every resident chunk.
    void recordResidentFar(VkCommandBuffer cmd, std::uint32_t t0, std::uint32_t steps) {
        vk::computeBarrier(dev_, cmd);
        far_.bind(cmd);
        for (std::size_t x = 0; x < k_->chunkIds.size(); ++x) dispatchFar(cmd, x, k_->buffers[x].address(), t0, steps);
    }

    // The block's near steps, one after the other.
    void recordNear(VkCommandBuffer cmd, std::uint32_t t0, std::uint32_t steps) {
        vk::computeBarrier(dev_, cmd);
        near_.bind(cmd);
        for (std::uint32_t q = 0; q < steps; ++q) {
            np_.t = t0 + q;
            np_.q = q;
            near_.dispatchRows(cmd, np_, std::uint64_t(n_) * P_ * kNearSplit);
            vk::computeBarrier(dev_, cmd);
        }
    }

    // The far gather of the block's steps [t0, t0 + steps) from one chunk, RSIM_TIME_BLOCK steps
    // per dispatch (the far sums of step q at q's place in farSums_).
    void dispatchFar(VkCommandBuffer cmd, std::size_t held, VkDeviceAddress chunk, std::uint32_t t0, std::uint32_t steps) {
        fp_.k = k_->chunkRef(held, chunk);
        for (std::uint32_t q0 = 0; q0 < steps; q0 += B) {
            fp_.t0 = t0 + q0;
            fp_.steps = std::min(B, steps - q0);
            fp_.farSums = farSums_.address() + std::uint64_t(q0) * n_ * P_ * sizeof(glm::vec2);
            const std::uint32_t rows = fp_.k.rowEnd - fp_.k.rowBegin;
            if (lanes_)
                far_.dispatch(cmd, fp_, (rows + laneShape_.receivers - 1) / laneShape_.receivers, 1,
                              P_ / shared::RSIM_LANES);
            else
                far_.dispatch(cmd, fp_, (rows + shared::RSIM_WG_RADIOSITY_X - 1) / shared::RSIM_WG_RADIOSITY_X, 1,
                              P_ / perInvocation_);
        }
    }

    // Groups of chunks cycle through kStreamBuffers device buffers: a group's copy (transfer
    // queue) waits for the gather that last read its buffer, the gather waits for its copy.
    void submitStreamedFar(std::uint32_t t0, std::uint32_t steps) {
        const std::size_t held = k_->chunkIds.size();
        for (std::size_t g0 = 0; g0 < held; g0 += k_->streamGroup) {
            const std::size_t g1 = std::min(held, g0 + k_->streamGroup);
            const std::uint32_t b = slot_++ % kStreamBuffers;
            copyDone_.submit(true, [&](VkCommandBuffer cmd) {
                for (std::size_t x = g0; x < g1; ++x) {
                    const VkBufferCopy region{0, (x - g0) * slotBytes_, k_->buffers[x].size()};
                    dev_.vk().vkCmdCopyBuffer(cmd, k_->buffers[x].handle(), stream_[b].handle(), 1, &region);
                    streamedBytes_ += k_->buffers[x].size();
                }
            }, freeAt_[b] ? &computeDone_ : nullptr, freeAt_[b]);
            // Chunks gather into disjoint rows, so only the block's first gather waits (barrier)
            // for the previous block's steps.
            computeDone_.submit(false, [&](VkCommandBuffer cmd) {
                if (g0 == 0) vk::computeBarrier(dev_, cmd);
                far_.bind(cmd);
                for (std::size_t x = g0; x < g1; ++x)
                    dispatchFar(cmd, x, stream_[b].address() + (x - g0) * slotBytes_, t0, steps);
            }, &copyDone_, copyDone_.value());
            freeAt_[b] = computeDone_.value();
        }
    }

    vk::Device& dev_;
    const DeviceK* k_;
    std::uint32_t n_, T_, P_, perInvocation_;
    bool lanes_;          // the history in pose lanes, the far gather radiosity_far_lanes.comp
    LaneShape laneShape_;
    std::uint32_t blockSteps_; // steps per block: far gathers at once, near steps after
    std::uint64_t farBytes_;
    // The set-up's parts (its debug line): each mark ends the part it names.
    struct Laps {
        Stopwatch clock;
        std::string text;
        void mark(const char* part) { text += fmt::format("{}{} {:.4f}", text.empty() ? "" : ", ", part, clock.lap()); }
    } laps_;
    vk::Buffer history_, farSums_, nearOffsets_, nearPairs_, stream_[kStreamBuffers], readback_, upload_;
    vk::Pass<shared::RadiosityFarPush> far_;
    vk::Pass<shared::RadiosityNearPush> near_;
    shared::RadiosityFarPush fp_{};
    shared::RadiosityNearPush np_{};
    std::uint64_t slotBytes_ = 0, streamedBytes_ = 0, freeAt_[kStreamBuffers] = {};
    std::uint32_t slot_ = 0;
    std::uint64_t blockDone_[2] = {0, 0}; // computeDone values that end the last two blocks
    // This device's rows and the others' (rowRuns), for the exchanges of several devices.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ownRuns_, otherRuns_;
    // Opened by the host (SharedHost): after the semaphores below, which wait for work behind it.
    vk::TimelineSemaphore gate_;
    std::uint64_t gateAwaited_ = 0; // the last value a submission waits for
    // Last: destroyed first, each waiting for the work that signals it.
    vk::TimelineSemaphore copyDone_, computeDone_;
};

// Row-block mode with K resident: one block's far gathers in two halves of this rank's chunks,
// each half's far sums exchanged with the other ranks as soon as the devices have them (the
// first half's exchange is polled while the devices gather the second); `merged` ends with every
// rank's rows, and every device gets them. Returns the host's seconds outside the waits for the
// devices: packing, sending, waiting for the other ranks, unpacking.
// `firstHalf` and `secondHalf` exchange the rows of each half (rowsOfPart(share, 0 and 1, 2)).
double exchangeInHalves(std::vector<std::unique_ptr<DeviceTransport>>& st, const RowShare& share,
                        std::vector<glm::vec2>& merged, RowExchange& firstHalf, RowExchange& secondHalf,
                        std::uint32_t t0, std::uint32_t steps) {
    const std::uint32_t first = share.firstChunk(), middle = share.partChunk(share.rank(), 1, 2),
                        end = share.endChunk();
    std::vector<std::uint64_t> firstDone, secondDone;
    for (auto& s : st) firstDone.push_back(s->submitFarOfChunks(t0, steps, first, middle));
    for (auto& s : st) secondDone.push_back(s->submitFarOfChunks(t0, steps, middle, end));
    for (std::size_t d = 0; d < st.size(); ++d) st[d]->reached(firstDone[d], UINT64_MAX);
    Stopwatch sw;
    for (auto& s : st) s->contributeFarSums(merged, steps, first, middle);
    firstHalf.start(merged.data());
    double host = sw.seconds();
    constexpr std::uint64_t kPollNs = 100'000;
    for (std::size_t d = 0; d < st.size(); ++d)
        while (!st[d]->reached(secondDone[d], kPollNs)) firstHalf.poll();
    sw = Stopwatch();
    for (auto& s : st) s->contributeFarSums(merged, steps, middle, end);
    secondHalf.start(merged.data());
    firstHalf.finish(merged.data(), nullptr);
    secondHalf.finish(merged.data(), nullptr);
    for (auto& s : st) s->receiveFarSums(merged);
    return host + sw.seconds();
}

} // namespace

std::unique_ptr<FarSumsMail> makeFarSumsMail(const std::vector<TransportDevice>& devices, std::uint32_t n,
                                             std::uint32_t poses, const TransportTuning& tuning, bool indirect,
                                             bool ranks) {
    auto mail = std::make_unique<FarSumsMail>();
    bool streamed = false;
    for (const TransportDevice& d : devices) streamed = streamed || (d.k && d.k->streamed);
    if (devices.size() < 2 || !indirect || ranks || streamed || hostCopiesOnly) return mail;
    std::vector<vk::Device*> all;
    for (const TransportDevice& d : devices) all.push_back(d.device);
    const std::uint64_t bytes = farSumsBytes(n, transportNearBelow(devices, tuning), poses);
    std::string why;
    for (auto& m : mail->blocks)
        if (!(m = vk::SharedHostBuffer::tryCreate(all, bytes, "far sums between the devices", &why))) break;
    if (!*mail) {
        mail->blocks[0].reset();
        spdlog::debug("the devices' far sums through the host's copies: {}", why);
    }
    return mail;
}

GpuTransport runTransportVulkan(const std::vector<TransportDevice>& devices, std::uint32_t n, std::uint32_t poses,
                                const NearLists& nearGiven, const SimConfig& config, bool indirect,
                                const TransportTuning& tuning, const RowShare* share,
                                const std::function<void()>& loopStarted, const FarSumsMail* mail) {
    Stopwatch setup;
    const std::uint32_t T = config.timesteps;
    if (poses != paddedPoses(poses, tuning)) throw Error("internal: the transport's pose count is not padded");
    if (std::uint64_t(n) * T * poses >= (std::uint64_t(1) << 32))
        throw Error("N x T x poses = " + std::to_string(std::uint64_t(n) * T * poses) +
                    " exceeds the 2^32 entries of one history buffer; use fewer timesteps or poses per group");
    NearLists none;
    none.offsets.assign(n + 1, 0);
    const NearLists& near = indirect && !nearGiven.offsets.empty() ? nearGiven : none;
    const std::size_t D = indirect ? devices.size() : 1;
    if (!indirect) share = nullptr;
    const bool exchange = D > 1 || share;
    // Blocks of this many steps: the near lists were built for it (transportNearBelow).
    const std::uint32_t block = transportNearBelow(devices, tuning, share != nullptr);
    bool resident = true;
    for (std::size_t d = 0; d < D; ++d) resident = resident && !(devices[d].k && devices[d].k->streamed);
    if (share) { // the exchanges in halves need every rank's K resident: all ranks take the same path
        std::vector<std::uint64_t> all{resident ? 1u : 0u};
        share->ranks().min(all);
        resident = all[0] == 1;
    }
    // Several devices of one process with K resident: the far sums of a block pass from device to
    // device through host memory that every device imports, the host copying nothing.
    const bool mailed = mail && mail->holds(farSumsBytes(n, block, poses)) && D > 1 && !share && resident;
    const Exchange how = !exchange ? Exchange::None : mailed ? Exchange::SharedHost : Exchange::HostCopies;
    // Each device's buffers, uploads and pipelines on a thread of its own (each device has its
    // own queue and pools).
    std::vector<std::unique_ptr<DeviceTransport>> st(D);
    auto setUp = [&](std::size_t d) {
        const Stopwatch sw;
        st[d] = std::make_unique<DeviceTransport>(devices[d], n, poses, near, config, how, tuning, block);
        spdlog::debug("{}: the transport's buffers, uploads and passes in {:.4f} s ({} s)", devices[d].device->label(),
                      sw.seconds(), st[d]->setupParts());
    };
    if (D == 1) setUp(0);
    else vk::forEachDevice(D, setUp);
    GpuTransport out;
    out.setupSeconds = setup.seconds();

    Stopwatch loop;
    if (loopStarted) loopStarted();
    // The ranks' exchanges combine every row on the host; several devices of one process send each
    // other their rows directly (DeviceTransport::sendFarSumsTo).
    std::vector<glm::vec2> merged(share ? std::size_t(n) * block * poses : 0);
    if (how == Exchange::SharedHost) {
        out.sharedExchangeBytes = 2 * mail->blocks[0]->size();
        spdlog::debug("the devices' far sums through {:.1f} MiB of host memory they all import",
                      double(out.sharedExchangeBytes) / 1048576.0);
    }
    // SharedHost: the block whose far gathers were submitted last; the host opens its gates (each
    // device's near steps, queued behind them) once every device's gathers have ended, after it
    // has queued the next block's.
    std::uint64_t gates = 0; // gates opened, one per exchanged block
    std::vector<std::uint64_t> farDone(D), nextFarDone(D);
    bool gatherPending = false;
    auto openGates = [&] {
        for (std::size_t d = 0; d < D; ++d) st[d]->reached(farDone[d], UINT64_MAX);
        const Stopwatch sw;
        ++gates;
        for (auto& s : st) s->openGate(gates);
        out.exchangeSeconds += sw.seconds();
        gatherPending = false;
    };
    // Row-block mode: the exchanges of a block's far sums (every step of the block, fp32 B and Z
    // per pose), of all this rank's rows or of each half; built once, their buffers serve every block.
    std::vector<RowExchange> rankExchanges;
    const std::uint32_t parts = resident ? 2 : 1;
    for (std::uint32_t part = 0; share && part < parts; ++part)
        rankExchanges.emplace_back(*share, rowsOfPart(*share, part, parts), block,
                                   std::size_t(n) * poses * sizeof(glm::vec2), std::size_t(poses) * sizeof(glm::vec2));
    Progress progress("radiosity", T, "timesteps");
    for (std::uint32_t t0 = 0, b = 0; t0 < T; t0 += block, ++b) {
        const std::uint32_t steps = std::min(block, T - t0);
        for (auto& s : st) s->throttle(b);
        // Nothing can arrive before the shortest far delay: the first block has no far gather.
        const bool gather = indirect && t0 + steps > block;
        if (!exchange && resident) {
            for (auto& s : st) s->submitBlock(t0, steps, b, gather);
            progress.add(steps);
            continue;
        }
        if (gather && how == Exchange::SharedHost) {
            const vk::SharedHostBuffer& m = *mail->blocks[b % 2];
            for (std::size_t d = 0; d < D; ++d) nextFarDone[d] = st[d]->submitFarShared(t0, steps, m, d);
            const std::uint64_t gate = gates + (gatherPending ? 2 : 1);
            for (std::size_t d = 0; d < D; ++d) st[d]->submitNearShared(t0, steps, b, m, d, gate);
            if (gatherPending) openGates(); // the block before, while the devices have this one queued
            farDone.swap(nextFarDone);
            gatherPending = true;
            progress.add(steps);
            continue;
        }
        if (gather && share && resident) {
            // Row-block mode: the first half of this rank's chunks, then the second; the first
            // half's far sums travel to the other ranks while the devices gather the second.
            out.exchangeSeconds += exchangeInHalves(st, *share, merged, rankExchanges[0], rankExchanges[1], t0, steps);
        } else if (gather) {
            for (auto& s : st) s->submitFar(t0, steps, exchange);
        }
        if (gather && exchange && !(share && resident)) {
            // Combine: each device's far sums hold the rows of its chunks.
            for (auto& s : st) s->waitForFarSums();
            Stopwatch sw;
            if (share) {
                for (auto& s : st) s->contributeFarSums(merged, steps);
                rankExchanges[0].start(merged.data());
                rankExchanges[0].finish(merged.data(), nullptr);
                for (auto& s : st) s->receiveFarSums(merged);
            } else {
                for (std::size_t from = 0; from < D; ++from)
                    for (std::size_t to = 0; to < D; ++to)
                        if (to != from) st[from]->sendFarSumsTo(*st[to], steps);
            }
            out.exchangeSeconds += sw.seconds();
        }
        using Upload = DeviceTransport::FarSumsUpload;
        const Upload upload = !(gather && exchange) ? Upload::None : share ? Upload::All : Upload::Others;
        for (auto& s : st) s->submitNear(t0, steps, b, upload);
        progress.add(steps);
    }
    if (gatherPending) openGates();
    for (auto& s : st) s->finish();
    progress.finish();
    out.loopSeconds = loop.seconds();
    for (auto& s : st) out.streamedBytes += s->streamedBytes();
    // The devices' histories are identical: device 0's serves the later passes; the others'
    // wait for the next group.
    out.lanes = st[0]->lanes();
    out.history = st[0]->takeHistory();
    for (std::size_t d = 1; d < st.size(); ++d)
        if (devices[d].spareHistory) *devices[d].spareHistory = st[d]->takeHistory();
    return out;
}

} // namespace rsim
