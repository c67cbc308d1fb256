// SPDX-License-Identifier: MIT
// Which backend and devices a run uses (--backend, --devices, --visibility, --validation).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "vulkan/device.h"
#include "vulkan/instance.h"

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
    bool radiosityStaged = false;        // the far gather over segments stages them (tuning.radiosity_staged)
};

// The Vulkan devices a choice names and the ray path they share: what a Vulkan backend is made
// of, known before any device is created. No instance: the choice runs on the CPU.
struct VulkanSelection {
    std::shared_ptr<vk::Instance> instance;
    std::vector<const vk::PhysicalDeviceInfo*> devices;
    vk::RayPath path = vk::RayPath::Pipeline;

    explicit operator bool() const { return instance != nullptr; }
    // What a Vulkan backend on these devices reports (RunMetadata's backend, devices and path).
    void describe(RunMetadata& meta) const;
};

// The ray path a device takes for --visibility `visibility` (auto, ray-query, pipeline, bvh);
// InputError for a path the device does not have.
vk::RayPath rayPathFor(const vk::PhysicalDeviceInfo& device, const std::string& visibility);

// auto: the best Vulkan GPU, else a software Vulkan device (lavapipe) when --devices names it,
// else the CPU. Throws InputError for a choice that cannot be met.
VulkanSelection selectVulkan(const BackendChoice& choice);
// The backend of `selected` (the CPU when empty); `rays` false: Vulkan devices without ray
// tracing (vulkan_backend.h). `trianglesAtMost`: an upper bound of the run's triangles, 0 when
// unknown (see needsTransferQueues).
std::unique_ptr<Backend> makeBackend(const BackendChoice& choice, const VulkanSelection& selected, bool rays = true,
                                     std::uint64_t trianglesAtMost = 0);
// Only streaming K and MPI ranks' uploads use a transfer queue, and NVIDIA's driver creates and
// runs a device without one faster (a small room's run a few hundredths of a second shorter;
// docs/benchmarks.md, "GPU start-up"). So a run that surely keeps K resident asks for none: one
// device in one process, not --stream always, and fp32 K of `trianglesAtMost` triangles (what
// visibility holds while it computes K) at most an eighth of the device's memory (its largest
// device-local heap, `deviceBytes`) and of --max-device-mb.
bool needsTransferQueues(const BackendChoice& choice, std::size_t devices, std::uint64_t deviceBytes,
                         std::uint64_t trianglesAtMost);
// selectVulkan, then makeBackend.
std::unique_ptr<Backend> makeBackend(const BackendChoice& choice);
std::unique_ptr<Backend> makeVulkanBackend(const BackendChoice& choice);

// Human-readable list of the compute devices for `rsim devices`.
std::string describeDevices();

} // namespace rsim
