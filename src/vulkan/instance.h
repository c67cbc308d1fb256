// SPDX-License-Identifier: MIT
// The Vulkan instance and what each physical device can do.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vulkan/vk_check.h"

namespace rsim::vk {

struct QueueFamilyInfo {
    std::uint32_t index = 0;
    std::uint32_t count = 0;
    VkQueueFlags flags = 0;
    std::uint32_t timestampValidBits = 0; // 0: no timestamps on this family's queues
};

struct PhysicalDeviceInfo {
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    std::uint32_t index = 0;            // position in vkEnumeratePhysicalDevices
    std::string name;
    std::string driver;                 // driver name and info
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    std::uint32_t apiVersion = 0;
    std::uint64_t deviceLocalBytes = 0; // largest device-local heap
    std::vector<QueueFamilyInfo> queueFamilies;
    bool accelerationStructure = false;
    bool rayQuery = false;
    bool rayTracingPipeline = false;
    bool memoryBudget = false;
    bool executableStatistics = false; // VK_KHR_pipeline_executable_properties
    bool hostMemoryImport = false;      // VK_EXT_external_memory_host (vk::SharedHostBuffer)
    bool usable = false;                // Vulkan 1.2 with the features rsim needs (ray tracing: optional)
    std::string unusableReason;

    bool isCpu() const { return type == VK_PHYSICAL_DEVICE_TYPE_CPU; }
    std::string typeName() const;
    // "name (type, driver)": summary.json's devices, and what a K cache key names.
    std::string described() const { return name + " (" + typeName() + ", " + driver + ")"; }
};

class Instance {
public:
    // Loads the Vulkan loader (volk); false with a reason when there is none.
    static bool loaderAvailable(std::string* why = nullptr);

    explicit Instance(bool validation);
    ~Instance();
    Instance(const Instance&) = delete;
    Instance& operator=(const Instance&) = delete;

    VkInstance handle() const { return instance_; }
    bool validation() const { return validation_; }
    const std::vector<PhysicalDeviceInfo>& devices() const { return devices_; }
    // Messages of error severity the validation layer reported so far.
    std::uint64_t validationErrors() const { return validationErrors_.load(); }

private:
    static VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                    VkDebugUtilsMessageTypeFlagsEXT types,
                                                    const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                    void* user);
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    bool validation_ = false;
    std::vector<PhysicalDeviceInfo> devices_;
    std::atomic<std::uint64_t> validationErrors_{0};
};

} // namespace rsim::vk
