// SPDX-License-Identifier: MIT
// The Vulkan backend's part in the phasors transport (MODEL.md §11): the solve on the devices that
// hold K (transport/vulkan_phasors.h), and the primary rays the host's phasor image reads.
#include <utility>

#include "backends/vulkan/backend.h"
#include "distance/vulkan_distance.h"
#include "transport/vulkan_phasors.h"

namespace rsim {

PhasorSolution VulkanBackend::phasors(KHandle* K, const PhasorSystem& system) {
    if (!system.config) throw Error("internal: a phasor system without its configuration");
    VulkanK* mine = onDevices(K, *system.config);
    std::vector<PhasorDevice> devices;
    for (std::size_t d = 0; mine && d < mine->parts().size(); ++d)
        devices.push_back({slots_[d].device.get(), &mine->parts()[d]});
    PhasorSolution out = solvePhasorsVulkan(devices, scene(), system, share_);
    // K read from the K cache is placed on the devices by its first solve, inside its time.
    if (placementSeconds_ > 0.0) out.details.emplace_back("k_placement", std::exchange(placementSeconds_, 0.0));
    return out;
}

PrimaryHits VulkanBackend::primaryHits(const SimConfig& c) {
    requireRays("the sensor image's primary rays");
    VulkanSlot& s = slots_[0];
    return primaryHitsVulkan(*s.device, *s.geometry, gpuPose(c), *s.accel, s.passes, scene(), c);
}

} // namespace rsim
