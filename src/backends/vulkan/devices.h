// SPDX-License-Identifier: MIT
// What the Vulkan backend keeps on each of its devices (a slot: the device, the scene and its
// ray structure, the pose passes), and K as it lies on them.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "k/gpu_k.h"
#include "visibility/vulkan_visibility_chunked.h"
#include "vulkan/accel.h"
#include "vulkan/device.h"
#include "vulkan/gpu_scene.h"
#include "vulkan/pose_passes.h"

namespace rsim {

struct VulkanSlot {
    std::unique_ptr<vk::Device> device;
    std::unique_ptr<GpuGeometry> geometry;
    std::unique_ptr<vk::SceneAccel> accel;
    vk::PosePasses passes; // bind `accel`: reset with it
    // The history of a batch's last group, for the next group (VulkanBatchHistory gives it back).
    std::shared_ptr<vk::Buffer> spareHistory = std::make_shared<vk::Buffer>();
    std::uint64_t budgetAtStart = 0; // deviceLocalBudget() before rsim allocated anything

    VisibilityDevice forVisibility() const { return {device.get(), geometry.get(), accel.get()}; }
};

// The devices as the visibility passes take them.
inline std::vector<VisibilityDevice> visibilityDevices(const std::vector<VulkanSlot>& slots) {
    std::vector<VisibilityDevice> out;
    for (const VulkanSlot& slot : slots) out.push_back(slot.forVisibility());
    return out;
}

// K on the devices: the part each device holds (all of it on device 0 when computed in place).
class VulkanK final : public KHandle {
public:
    VulkanK(const std::vector<VulkanSlot>& slots, std::vector<DeviceK> parts) : slots_(&slots), parts_(std::move(parts)) {}
    const HostK& host() override {
        if (!host_) {
            host_ = std::make_unique<HostK>(HostK::unfilled(parts_[0].chunking));
            for (std::size_t d = 0; d < parts_.size(); ++d) copyChunksToHost(*(*slots_)[d].device, parts_[d], *host_);
        }
        return *host_;
    }
    void dropHostCopy() override { host_.reset(); }
    const std::vector<DeviceK>& parts() const { return parts_; }
    bool belongsTo(const std::vector<VulkanSlot>& slots) const { return slots_ == &slots; }

private:
    const std::vector<VulkanSlot>* slots_;
    std::vector<DeviceK> parts_;
    std::unique_ptr<HostK> host_;
};

} // namespace rsim
