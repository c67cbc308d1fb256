// SPDX-License-Identifier: MIT
// One device's part of the Vulkan transport (vulkan_transport.h), shared by the transport's own
// files: the far gather's workgroup shapes, how the devices' far sums reach each other, and
// DeviceTransport, a device's buffers and passes and what it submits per block. Its set-up is in
// vulkan_transport_device.cpp, the passes it records in vulkan_transport_passes.cpp, its host's
// part of the far sums' exchange in vulkan_transport_exchange.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <glm/vec2.hpp>

#include "k/k_plan.h"
#include "transport/row_exchange.h"
#include "transport/vulkan_transport.h"
#include "util/timer.h"
#include "vulkan/pass.h"
#include "vulkan/shared_host_buffer.h"
#include "vulkan/timeline.h"

namespace rsim {

// Source slices per workgroup of the far gather (radiosity_far.comp) on `device`.
std::uint32_t farSplit(vk::Device& device, const TransportTuning& tuning, std::uint32_t perInvocation);

// The pose lanes' far gather (radiosity_far_lanes.comp): receivers and source slices per
// workgroup, sources per loop trip. `segments`: K stored as segments (a workgroup's receivers in
// one tile: a power of two up to 32 of them; each row keeps its lanes' sources too).
struct LaneShape {
    std::uint32_t receivers, slices, perTrip;
};
LaneShape laneShape(vk::Device& device, const TransportTuning& tuning, bool segments);

// A group's B/Z history: the spare one when it is large enough.
vk::Buffer historyBuffer(vk::Device& device, std::uint64_t bytes, vk::Buffer* spare);

// How the devices' far sums reach each other: not at all (one device), through host buffers that
// the host copies between (and MPI ranks), or through host memory every device imports.
enum class FarSumsExchange { None, HostCopies, SharedHost };

// One device's part of the time loop: its buffers and passes, and what it submits per block.
class DeviceTransport {
public:
    DeviceTransport(const TransportDevice& in, std::uint32_t n, std::uint32_t poses, const NearLists& near,
                    const SimConfig& c, FarSumsExchange exchange, const TransportTuning& tuning,
                    std::uint32_t blockSteps);
    // A submission waiting on the gate never runs unless the host opens it: a loop left early
    // (an exception) opens it before the semaphores below wait for that work.
    ~DeviceTransport();
    DeviceTransport(const DeviceTransport&) = delete;
    DeviceTransport& operator=(const DeviceTransport&) = delete;

    // The host stays at most one block ahead of the device: submissions that wait on semaphores
    // not yet signalled pile up in the driver otherwise (the cost of each streamed chunk's
    // submission grew with the number queued).
    void throttle(std::uint32_t block);

    // The far gathers of the block [t0, t0 + steps), then (exchange) the far sums to the host.
    void submitFar(std::uint32_t t0, std::uint32_t steps, bool exchange);
    // Row-block mode, K resident: the far gathers of the block from this device's chunks among
    // [c0, c1), then the copy of their rows' far sums to the host. Returns the value that ends it.
    std::uint64_t submitFarOfChunks(std::uint32_t t0, std::uint32_t steps, std::uint32_t c0, std::uint32_t c1);
    // Whether the device reached `value`, waiting at most `timeoutNs`.
    bool reached(std::uint64_t value, std::uint64_t timeoutNs) const { return computeDone_.waitFor(value, timeoutNs); }

    void waitForFarSums() const { computeDone_.waitAll(); }
    // Copies this device's rows of the far sums (of its chunks among [c0, c1)) into `merged`
    // (vec2[steps][n][poses]), on every thread.
    void contributeFarSums(std::vector<glm::vec2>& merged, std::uint32_t steps, std::uint32_t c0 = 0,
                           std::uint32_t c1 = UINT32_MAX) const;
    // `merged` (every row's far sums) into the upload buffer, on every thread.
    void receiveFarSums(const std::vector<glm::vec2>& merged);
    // Several devices of one process: copies this device's rows of the block's far sums (its
    // readback) into `to`'s upload buffer, at their places; `to` then uploads the rows it does not
    // hold (FarSumsUpload::Others). A third of the host's copying of contribute + receive, and half
    // the bytes over the bus.
    void sendFarSumsTo(DeviceTransport& to, std::uint32_t steps) const;

    // Several devices sharing host memory (vk::SharedHostBuffer, `slot` this device's place in
    // it): the far gathers of the block [t0, t0 + steps), then this device's rows of the far sums
    // copied into `mail`, at their places. Returns the value that ends them.
    std::uint64_t submitFarShared(std::uint32_t t0, std::uint32_t steps, const vk::SharedHostBuffer& mail,
                                  std::size_t slot);
    // The block's near steps after the other devices' rows of its far sums are copied from
    // `mail`: submitted now, run once the host opens the gate to `gate` (openGate), when every
    // other device's submitFarShared of the block has ended.
    void submitNearShared(std::uint32_t t0, std::uint32_t steps, std::uint32_t block, const vk::SharedHostBuffer& mail,
                          std::size_t slot, std::uint64_t gate);
    void openGate(std::uint64_t value) { gate_.signal(value); }
    const std::string& setupParts() const { return laps_.text; }

    // Which far sums reach the device before the block's near steps.
    enum class FarSumsUpload { None, All, Others };
    // The near steps of the block, after the combined far sums are in place when exchanged.
    void submitNear(std::uint32_t t0, std::uint32_t steps, std::uint32_t block, FarSumsUpload upload);

    // K resident and no far sums to exchange: the block's far gathers (`gather`) and near steps in
    // one submission instead of two (a small scene's blocks cost the host more than the device).
    void submitBlock(std::uint32_t t0, std::uint32_t steps, std::uint32_t block, bool gather);

    void finish();
    vk::Buffer takeHistory() { return std::move(history_); }
    bool lanes() const { return lanes_; }
    std::uint64_t streamedBytes() const { return streamedBytes_; }

private:
    // The far and near passes' push constants that stay the same for every block.
    void setPushConstants(const TransportDevice& in, const SimConfig& c);

    // Runs of neighbouring rows (first row, rows) of the chunks this device holds (`own`) or of
    // all the others: a device holds one block of rows, so one run or two.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> rowRuns(bool own) const;

    // The places of those rows in the far sums (vec2[steps][n][poses]), for the block's first
    // `steps` steps: one region a run and a step.
    std::vector<VkBufferCopy> rowRegions(std::uint32_t steps, bool own) const;

    // The far gathers of the block's steps [t0, t0 + steps) from every resident chunk.
    void recordResidentFar(VkCommandBuffer cmd, std::uint32_t t0, std::uint32_t steps);

    // The block's near steps, one after the other.
    void recordNear(VkCommandBuffer cmd, std::uint32_t t0, std::uint32_t steps);

    // The far gather of the block's steps [t0, t0 + steps) from one chunk, RSIM_TIME_BLOCK steps
    // per dispatch (the far sums of step q at q's place in farSums_).
    void dispatchFar(VkCommandBuffer cmd, std::size_t held, VkDeviceAddress chunk, std::uint32_t t0,
                     std::uint32_t steps);

    // Groups of chunks cycle through kStreamBuffers device buffers: a group's copy (transfer
    // queue) waits for the gather that last read its buffer, the gather waits for its copy.
    void submitStreamedFar(std::uint32_t t0, std::uint32_t steps);

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
                        std::uint32_t t0, std::uint32_t steps);

} // namespace rsim
