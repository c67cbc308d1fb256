// SPDX-License-Identifier: MIT
// Where K lives on the Vulkan backend's devices: each device's memory budget less what the
// transport and the visibility pass need beside K there (k/k_plan.h makes the plan from it),
// and the placing of a K computed elsewhere onto the devices the plan names.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "backends/vulkan/devices.h"
#include "k/k_plan.h"
#include "k/row_share.h"

namespace rsim {

// The limits the user set on K's memory.
struct KMemoryLimits {
    StreamMode stream = StreamMode::Auto; // --stream
    std::uint64_t maxDeviceBytes = 0;     // --max-device-mb (0: each device's budget)
    std::uint64_t maxHostBytes = 0;       // --max-host-mb: K's assembly in host memory
};

// The plan of K in `chunking` on `slots` (the scene of `n` triangles already on them) for a
// transport of `transportSteps` steps; `budgets` gets each device's budget and what it needs
// besides K. `visibilityBytes`: what the visibility pass needs on each device beside K and its
// scratch. `share`: an MPI rank's rows only (k/row_share.h), or null. `segments`: K is to be
// stored as segments (KPlan::segments).
KPlan planKOnDevices(const std::vector<VulkanSlot>& slots, std::uint64_t n, const KChunking& chunking,
                     std::uint32_t transportSteps, const KMemoryLimits& limits, const RowShare* share,
                     std::vector<DeviceBudget>& budgets, std::uint64_t visibilityBytes = 0, bool segments = false);

// Each chunk of K to the device that gathers from it, all devices at once. `uploaded(c)` runs on
// the thread of chunk c's device once it is there. K stored as segments is checked against the
// plan's budgets first (KPlan::checkSegmentsFit).
std::vector<DeviceK> placeK(const std::vector<VulkanSlot>& slots, const HostK& K, const KPlan& plan,
                            const std::function<void(std::uint32_t)>& uploaded = {});

} // namespace rsim
