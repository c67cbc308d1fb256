// SPDX-License-Identifier: MIT
// Where K lives when it runs on Vulkan devices (issue 5): row chunks, the device that gathers
// from each chunk, and whether that device keeps its chunks resident or streams them from host
// memory every time block.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "k/k_chunking.h"

namespace rsim {

enum class StreamMode { Auto, Always, Never };
StreamMode parseStreamMode(const std::string& value);

struct DeviceBudget {
    std::string label;
    // Device-local bytes rsim may use (memory budget, --max-device-mb).
    std::uint64_t budgetBytes = 0;
    std::uint64_t fixedBytes = 0; // what the device needs besides K (history, triangles, BVH, ...)
};

// Device buffers a streaming device cycles through. Each holds a group of consecutive chunks
// that is copied and gathered as one (one chunk's rows alone occupy a few of a GPU's cores,
// and NVIDIA's driver runs separate submissions one after another: docs/benchmarks.md, "NVIDIA
// driver costs"); a group's copy may start once the gather that read its buffer
// kStreamBuffers groups earlier is done.
inline constexpr std::uint32_t kStreamBuffers = 4;
inline constexpr std::uint64_t kStreamGroupBytes = 128ull << 20; // per group, when memory allows

struct KPlan {
    static constexpr std::uint32_t kNoDevice = UINT32_MAX; // a chunk another MPI rank holds
    KChunking chunking;
    std::vector<std::uint32_t> owner;       // chunk -> device (kNoDevice: not this process's)
    std::vector<bool> streamed;             // device -> streams its chunks from host memory
    std::vector<std::uint32_t> streamGroup; // device -> chunks per copy (streamed devices)
    // How K is computed. In place: one device that can hold fp32 K computes and keeps it. Host
    // assembled: several devices, streaming, or fp32 K too large for one device, when fp32 K
    // fits the host budget: each pair cast once, mirrored in host memory. Where it lives: the
    // rest (fp32 K beyond the host budget): each device casts the full rows of its own chunks
    // (every pair twice) and encodes them one chunk at a time, so host memory holds no more than
    // two chunks in fp32 besides the streamed chunks. All three give the same K.
    bool hostAssembled = false;
    bool whereItLives = false;
    // Cast once on the devices (set by the Vulkan backend over the two above, withBlocks): several
    // devices that each hold their block of rows in fp32 cast each pair once between them and
    // swap the halves of the blocks they share through host memory; nothing of K is assembled on
    // the host.
    bool castOnceOnDevices = false;
    // K stored as segments (simulation.k_layout = "segments"): no device streams for want of room
    // for dense K (only --stream always streams them); how much the segments take is known only
    // as they are made, and checkSegmentsFit() stops the run where they do not fit a device.
    bool segments = false;
    std::vector<DeviceBudget> budgets; // device -> its budget (the segments' check)

    std::vector<std::uint32_t> chunksOf(std::uint32_t device) const;
    bool anyStreamed() const;
    // This plan with device d owning chunks [first[d], first[d + 1]) instead of every D-th chunk
    // (blocks of rows, as casting each pair once on the devices needs), computed that way.
    KPlan withBlocks(const std::vector<std::uint32_t>& first) const;
    // Throws InputError when `bytes` of K stored as segments (its first `placed` of `total`
    // chunks there) do not fit device d beside what else it holds.
    void checkSegmentsFit(std::uint32_t d, std::uint64_t bytes, std::uint32_t placed, std::uint32_t total) const;
};

// The host memory K's assembly may take by default: half of what the process may still take at
// the start (MemAvailable, or less under a cgroup limit).
std::uint64_t defaultHostBudgetBytes();

// Throws InputError when --stream never cannot hold K, or Error when not even the streaming
// buffers fit. `hostBudgetBytes` bounds an assembly of fp32 K in host memory (--max-host-mb).
// Only chunks [firstChunk, endChunk) are this process's (an MPI rank's rows, k/row_share.h);
// then the plan says where it lives, and the ranks may still agree to cast each pair once and
// assemble their rows in host memory (visibility/vulkan_visibility_ranks.h).
// `segments`: K is to be stored as segments (KPlan::segments).
KPlan planK(KChunking chunking, const std::vector<DeviceBudget>& devices, StreamMode mode,
            std::uint64_t hostBudgetBytes, std::uint32_t firstChunk = 0, std::uint32_t endChunk = UINT32_MAX,
            bool segments = false);

} // namespace rsim
