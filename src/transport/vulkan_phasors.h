// SPDX-License-Identifier: MIT
// The phasors transport's solve (transport/phasor_system.h) on one or several Vulkan devices:
// each iteration one pass of shaders/phasors_gather.comp per K chunk a device holds (resident,
// or pinned host memory read in place when K is streamed), the columns' largest changes read
// back, and with several devices (or MPI ranks) each one's new rows sent to the others through
// the host.
#pragma once
#include <vector>

#include "core/prepared_scene.h"
#include "k/gpu_k.h"
#include "transport/phasor_system.h"
#include "vulkan/device.h"

namespace rsim {

struct PhasorDevice {
    vk::Device* device = nullptr;
    const DeviceK* k = nullptr; // the chunks it iterates (null without indirect light)
};

// With `share` (MPI row blocks), the devices hold this rank's rows; the ranks swap their new
// rows after each iteration (swapPhasorRows).
PhasorSolution solvePhasorsVulkan(const std::vector<PhasorDevice>& devices, const PreparedScene& scene,
                                  const PhasorSystem& system, const RowShare* share = nullptr);

} // namespace rsim
