// SPDX-License-Identifier: MIT
// Which backend and devices a run uses (--backend, --devices, --visibility, --validation).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"

namespace rsim {

struct BackendChoice {
    std::string backend = "auto";    // auto | cpu | vulkan
    std::string devices = "auto";    // auto | all | comma-separated indices of `rsim devices`
    std::string visibility = "auto"; // auto | ray-query | pipeline
    bool validation = false;         // Khronos validation layer
    std::string stream = "auto";     // auto | always | never: stream K from host memory
    double maxDeviceMb = 0.0;        // cap on each device's memory use (0: its budget)
    std::uint32_t passBlocks = 0;  // time blocks per pass over a streamed or spread K; 0: the default
    double maxHostMb = 0.0;          // cap on the host memory K's assembly may take (0: half the machine's)
    // Workgroup shape of the GPU's far gather, for tuning sweeps (transport/vulkan_transport.h).
    std::uint32_t radiositySplit = 0;  // source slices per workgroup; 0: the most the device allows
    std::uint32_t radiosityUnroll = 0; // sources per loop trip; 0: the default
    std::uint32_t radiosityPoses = 0;  // poses per invocation of a batch's far gather; 0: default
    std::string radiosityLanes = "auto"; // auto | off: pose lanes for batches of a multiple of 32
    std::uint32_t laneReceivers = 0;     // receivers per workgroup of the pose lanes; 0: default
};

// auto: the best Vulkan GPU, else a software Vulkan device (lavapipe), else the CPU backend.
std::unique_ptr<Backend> makeBackend(const BackendChoice& choice);
std::unique_ptr<Backend> makeVulkanBackend(const BackendChoice& choice);

// Human-readable list of the compute devices for `rsim devices`.
std::string describeDevices();

} // namespace rsim
