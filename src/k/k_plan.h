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
// and NVIDIA runs separate submissions one after another: measured in docs/benchmarks.md); a
// group's copy may start once the gather that read its buffer kStreamBuffers groups earlier
// is done.
inline constexpr std::uint32_t kStreamBuffers = 4;
inline constexpr std::uint64_t kStreamGroupBytes = 128ull << 20; // per group, when memory allows

struct KPlan {
    KChunking chunking;
    std::vector<std::uint32_t> owner;       // chunk -> device
    std::vector<bool> streamed;             // device -> streams its chunks from host memory
    std::vector<std::uint32_t> streamGroup; // device -> chunks per copy (streamed devices)
    // K is computed chunk by chunk through host memory (several devices, streaming, or fp32 K
    // too large for one device); else one device computes and keeps it in place.
    bool hostAssembled = false;

    std::vector<std::uint32_t> chunksOf(std::uint32_t device) const;
    bool anyStreamed() const;
};

// Throws InputError when --stream never cannot hold K, or Error when not even the streaming
// buffers fit.
KPlan planK(KChunking chunking, const std::vector<DeviceBudget>& devices, StreamMode mode);

} // namespace rsim
