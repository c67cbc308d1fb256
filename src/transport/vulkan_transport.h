// SPDX-License-Identifier: MIT
// B and Z on one or several Vulkan devices (MODEL §5), time-blocked (RSIM_TIME_BLOCK): per
// block, each device gathers the far pairs of its K chunks (resident, or streamed from pinned
// host memory through a ring of device buffers on the transfer queue, ordered by timeline
// semaphores); with several devices the block's far sums pass between them through host memory
// (imported by every device where they can, vk::SharedHostBuffer; else copied by the host); then
// every device runs the block's near steps for all receivers, so all histories stay identical.
// The run and its time loop are in vulkan_transport.cpp, a device's part in
// vulkan_transport_device.h, the records and sizes in vulkan_transport_sizing.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/prepared_scene.h"
#include "core/results.h"
#include "core/sim_config.h"
#include "k/gpu_k.h"
#include "k/row_share.h"
#include "transport/near_pairs.h"
#include "vulkan/gpu_scene.h"
#include "vulkan/pipeline_warmup.h"
#include "vulkan/shared_host_buffer.h"

namespace rsim {

struct TransportDevice {
    vk::Device* device = nullptr;
    const GpuPose* pose = nullptr;       // the pulse (the same for every pose)
    const vk::Buffer* records = nullptr; // GpuTransportTri[poses][n] (makeTransportRecords) on this device
    const DeviceK* k = nullptr;          // the chunks it gathers from (none without indirect light)
    // A history buffer of an earlier group, taken instead of a new one when it is large enough
    // (allocating and freeing a group's history cost tens of ms each); devices other than
    // device 0 give theirs back into it after the loop.
    vk::Buffer* spareHistory = nullptr;
};

// Workgroup shape of the far gather, for tuning sweeps (`rsim run --radiosity-split/-unroll`),
// and the time blocks per copy of a streamed K.
struct TransportTuning {
    std::uint32_t split = 0;  // source slices per workgroup; 0: as many as the device allows
    std::uint32_t unroll = 0; // sources gathered per loop trip; 0: the default (1, 4 in pose lanes)
    std::uint32_t poses = 0;  // poses per invocation of a batch (1, 2, 4); 0: the default (1)
    // Time blocks gathered per pass over K when K is streamed (one copy per pass) or spread over
    // several devices (one exchange of far sums per pass): --pass-blocks; 0: 4 when K is
    // streamed, else 2. A copy of K or an exchange then serves more steps, while the near lists
    // (the pairs of delays below a pass) grow with them; those were the best measured
    // (docs/benchmarks.md, "Several GPUs": blocks per exchange, and blocks per copy when streamed).
    std::uint32_t passBlocks = 0;
    // Pose lanes (radiosity_far_lanes.comp, gpu_layout.h): used for a batch of a multiple of
    // RSIM_LANES poses unless `noLanes`; `laneReceivers` receivers per workgroup (0: the
    // default), `split` its source slices.
    bool noLanes = false;
    std::uint32_t laneReceivers = 0;
    // With K stored as segments, the far gather (not the pose lanes') stages 32 x split segments
    // of its tile and their sources' records in shared memory (radiosity_far.comp): one load a
    // segment instead of three dependent ones, the same sums. tuning.radiosity_staged.
    bool staged = false;
};
inline constexpr std::uint32_t kMaxPassBlocks = 4;

// The steps gathered per pass over K: one time block (RSIM_TIME_BLOCK steps), or
// tuning.passBlocks of them when a device streams K or several devices exchange far sums.
// Delays below it are near pairs: the near lists are built with it.
// `ranks`: the far sums are exchanged with other MPI ranks (row-block mode).
std::uint32_t transportNearBelow(const std::vector<TransportDevice>& devices, const TransportTuning& tuning,
                                 bool ranks = false);


struct GpuTransport {
    vk::Buffer history;                // device 0's B and Z: rsimHistoryIndex, or with `lanes`
    bool lanes = false;                // rsimLaneHistoryIndex (gpu_layout.h)
    double setupSeconds = 0.0;         // pipelines, buffers, near lists upload
    double loopSeconds = 0.0;          // the time loop
    // The host's part of the far sums' exchange: its copies between devices and ranks, or with
    // the devices' shared memory (sharedExchangeBytes of it) opening their gates.
    double exchangeSeconds = 0.0;
    std::uint64_t sharedExchangeBytes = 0;
    std::uint64_t streamedBytes = 0;   // K bytes copied host -> device during the loop
};

// Per-triangle records of the transport and distance passes.
std::vector<shared::GpuTransportTri> makeTransportRecords(const PreparedScene& scene, const SimConfig& config,
                                                          const DirectTerms& direct);

// Invocations per receiver of the near steps (radiosity_near.comp), each summing every eighth of
// its near pairs: the steps run one dispatch after another, each as long as its longest loop over
// a receiver's pairs, which more invocations per receiver shorten. The large room's time loop
// with 1, 2, 4 and 8: 0.391, 0.378, 0.368, 0.365 s on two devices (industry 0.571 to 0.516 s),
// 0.701 (1) and 0.691 s (8) on one (docs/benchmarks.md, "Radiosity on one GPU").
inline constexpr std::uint32_t kNearSplit = 8;
static_assert(shared::RSIM_WG_LINEAR % kNearSplit == 0, "a receiver's near-step invocations share one workgroup");
// The near steps' pipeline, for the device's warm-up (vulkan/pipeline_warmup.h).
vk::PipelineRecipe radiosityNearRecipe();

// Bytes of one block's far sums of n rows (vec2[blockSteps][n][poses]): each device's far-sum
// buffer, and what the devices exchange per block.
inline std::uint64_t farSumsBytes(std::uint32_t n, std::uint32_t blockSteps, std::uint32_t poses) {
    return std::uint64_t(n) * blockSteps * poses * 2 * sizeof(float);
}

// Host memory that several devices of one process with K resident pass their far sums through,
// two blocks' worth (vk::SharedHostBuffer; a device writes block b + 1's rows while another may
// still read block b's). Empty where a device does not import host memory (the reason logged),
// with one device, K streamed, MPI ranks (`ranks`) or no indirect light. Importing it pins its
// pages, in time that grows with its size (0.01-0.02 s for industry's, cea7bb5): the backend
// makes it beside the near lists.
struct FarSumsMail {
    std::unique_ptr<vk::SharedHostBuffer> blocks[2];
    explicit operator bool() const { return blocks[1] != nullptr; }
    // Whether it holds a block of `bytes` (farSumsBytes).
    bool holds(std::uint64_t bytes) const { return *this && blocks[0]->size() >= bytes; }
};
std::unique_ptr<FarSumsMail> makeFarSumsMail(const std::vector<TransportDevice>& devices, std::uint32_t n,
                                             std::uint32_t poses, const TransportTuning& tuning, bool indirect,
                                             bool ranks);

// B and Z of n triangles for `poses` poses at once (gpu_layout.h, rsimHistoryIndex; `poses` is a
// paddedPoses() count, and the records hold that many poses). `near` may be
// empty. Without indirect light (MODEL §5: B = E, Z = R) neither the far sums nor the near
// pairs are gathered, whatever K and `near` hold, and devices[0] alone runs.
// With `share` (MPI row-block mode: the devices hold this rank's chunks), the block's far sums
// are exchanged with the other ranks after the devices' are combined; `near` holds every row's.
// `loopStarted` (may be empty) is called once the devices' buffers are set up, as the time loop
// begins. Several devices pass their far sums through `mail` (makeFarSumsMail with the same
// arguments) where it holds a block, else through the host's copies.
GpuTransport runTransportVulkan(const std::vector<TransportDevice>& devices, std::uint32_t n, std::uint32_t poses,
                                const NearLists& near, const SimConfig& config, bool indirect,
                                const TransportTuning& tuning, const RowShare* share = nullptr,
                                const std::function<void()>& loopStarted = {}, const FarSumsMail* mail = nullptr);

// For tests: several devices exchange far sums through the host's copies even where they could
// import one host allocation (vk::SharedHostBuffer), which is otherwise preferred.
void avoidSharedHostExchange(bool avoid);

// Poses one far-gather invocation serves for a batch of `poses` (1, 2 or 4), and the batch
// padded to a multiple of it: the poses of the history buffer (gpu_layout.h).
std::uint32_t posesPerInvocation(std::uint32_t poses, const TransportTuning& tuning);
std::uint32_t paddedPoses(std::uint32_t poses, const TransportTuning& tuning);

// Whether the transport of `poses` poses runs in pose lanes (gpu_layout.h), and the largest
// group of at most `poses` that the batch should be split into for them (a multiple of
// RSIM_LANES when the lanes are used, `poses` otherwise).
bool usesPoseLanes(std::uint32_t poses, const TransportTuning& tuning);
std::uint32_t poseLaneGroup(std::uint32_t poses, const TransportTuning& tuning);

// Device bytes the transport of one more pose needs (history, far sums, records, exchange).
std::uint64_t transportBytesPerPose(std::uint32_t n, std::uint32_t timesteps);

// Device bytes that the K memory plan keeps free on each device for the transport's buffers
// beside K, for n triangles, one pose and `transportSteps` steps, term by term:
//   n * transportSteps * 8: the B/Z history (vec2 per row and step): DeviceTransport's
//     history_ (historyBuffer, vulkan_transport_device.cpp);
//   n * 8 * RSIM_TIME_BLOCK * kMaxPassBlocks: the far sums of the longest pass (farSumsBytes,
//     vec2 per row and step of the pass): DeviceTransport's farSums_ (same file);
//   n * 64: the transport records (GpuTransportTri, makeTransportRecords), which the backend
//     uploads for the near lists and the transport (TransportDevice::records);
//   n * 64 * 16 * kMaxPassBlocks: the near lists, about 64 pairs (NearPair, 16 bytes) per row for
//     one block's radius, times the blocks of a pass: built on the device by buildNearListsVulkan
//     (vulkan_near_pairs.cpp) or uploaded as DeviceTransport's nearPairs_. A rough bound: on
//     surfaces the pairs grow faster than the radius, and a list that does not fit fails with
//     an out-of-memory error naming it.
inline std::uint64_t transportReserveBytes(std::uint64_t n, std::uint32_t transportSteps) {
    static_assert(sizeof(shared::GpuTransportTri) == 64 && sizeof(shared::NearPair) == 16,
                  "the records' and near pairs' sizes the reserve counts");
    return n * transportSteps * 8 + n * 8 * shared::RSIM_TIME_BLOCK * kMaxPassBlocks + n * 64 +
           n * 64 * 16 * kMaxPassBlocks;
}

} // namespace rsim
