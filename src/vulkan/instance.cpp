// SPDX-License-Identifier: MIT
#include "vulkan/instance.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

#include <spdlog/spdlog.h>

#include "util/error.h"
#include "util/startup_times.h"

namespace rsim::vk {

std::string PhysicalDeviceInfo::typeName() const {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU (software)";
    default: return "other";
    }
}

bool Instance::loaderAvailable(std::string* why) {
    static std::once_flag once;
    static VkResult result = VK_ERROR_INITIALIZATION_FAILED;
    std::call_once(once, [] { result = volkInitialize(); });
    if (result != VK_SUCCESS && why)
        *why = "no Vulkan loader (libvulkan.so.1) found; install libvulkan1 and a driver";
    return result == VK_SUCCESS;
}

namespace {

bool hasExtension(const std::vector<VkExtensionProperties>& list, const char* name) {
    return std::any_of(list.begin(), list.end(),
                       [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

PhysicalDeviceInfo describe(VkPhysicalDevice pd, std::uint32_t index) {
    PhysicalDeviceInfo info;
    info.handle = pd;
    info.index = index;
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
    vkGetPhysicalDeviceProperties2(pd, &props);
    info.name = props.properties.deviceName;
    info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
    info.type = props.properties.deviceType;
    info.apiVersion = props.properties.apiVersion;

    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(pd, &mem);
    for (std::uint32_t h = 0; h < mem.memoryHeapCount; ++h)
        if (mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            info.deviceLocalBytes = std::max<std::uint64_t>(info.deviceLocalBytes, mem.memoryHeaps[h].size);

    std::uint32_t qCount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &qCount, nullptr);
    std::vector<VkQueueFamilyProperties> qs(qCount);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &qCount, qs.data());
    for (std::uint32_t q = 0; q < qCount; ++q)
        info.queueFamilies.push_back({q, qs[q].queueCount, qs[q].queueFlags, qs[q].timestampValidBits});

    std::uint32_t eCount = 0;
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &eCount, nullptr);
    std::vector<VkExtensionProperties> exts(eCount);
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &eCount, exts.data());

    VkPhysicalDeviceRayTracingPipelineFeaturesKHR rtp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
    VkPhysicalDeviceRayQueryFeaturesKHR rq{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR};
    VkPhysicalDeviceAccelerationStructureFeaturesKHR as{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.pNext = &v11;
    v11.pNext = &v12;
    void** tail = &v12.pNext;
    const bool hasAs = hasExtension(exts, VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME) &&
                       hasExtension(exts, VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME);
    const bool hasRq = hasExtension(exts, VK_KHR_RAY_QUERY_EXTENSION_NAME);
    const bool hasRtp = hasExtension(exts, VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME);
    if (hasAs) { *tail = &as; tail = &as.pNext; }
    if (hasRq) { *tail = &rq; tail = &rq.pNext; }
    if (hasRtp) { *tail = &rtp; tail = &rtp.pNext; }
    if (info.apiVersion >= VK_API_VERSION_1_2) vkGetPhysicalDeviceFeatures2(pd, &features);

    info.accelerationStructure = hasAs && as.accelerationStructure;
    info.rayQuery = hasRq && rq.rayQuery;
    info.rayTracingPipeline = hasRtp && rtp.rayTracingPipeline && rtp.rayTracingPipelineTraceRaysIndirect;
    info.memoryBudget = hasExtension(exts, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    info.executableStatistics = hasExtension(exts, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    info.hostMemoryImport = hasExtension(exts, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);

    if (info.apiVersion < VK_API_VERSION_1_2) info.unusableReason = "needs Vulkan 1.2";
    else if (!v12.bufferDeviceAddress) info.unusableReason = "no bufferDeviceAddress";
    else if (!v12.timelineSemaphore) info.unusableReason = "no timeline semaphores";
    else if (!features.features.shaderInt64) info.unusableReason = "no shaderInt64";
    else if (!v11.storageBuffer16BitAccess) info.unusableReason = "no 16-bit storage buffers";
    info.usable = info.unusableReason.empty();
    return info;
}

} // namespace

Instance::Instance(bool validation) : validation_(validation) {
    // The whole, and its parts (debug log, summary.json's startup_s).
    StartupTimer timer("vulkan instance");
    std::string why;
    {
        StartupTimer part("instance: loader");
        if (!loaderAvailable(&why)) throw Error("Vulkan: " + why);
    }

    std::optional<StartupTimer> part(std::in_place, "instance: layers and extensions");
    std::uint32_t layerCount = 0;
    vkEnumerateInstanceLayerProperties(&layerCount, nullptr);
    std::vector<VkLayerProperties> layers(layerCount);
    vkEnumerateInstanceLayerProperties(&layerCount, layers.data());
    std::uint32_t extCount = 0;
    vkEnumerateInstanceExtensionProperties(nullptr, &extCount, nullptr);
    std::vector<VkExtensionProperties> exts(extCount);
    vkEnumerateInstanceExtensionProperties(nullptr, &extCount, exts.data());

    std::vector<const char*> enabledLayers, enabledExts;
    if (validation) {
        const char* layer = "VK_LAYER_KHRONOS_validation";
        bool found = std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
            return std::strcmp(l.layerName, layer) == 0;
        });
        if (!found)
            throw Error("--validation: the Khronos validation layer is not installed (Debian: "
                        "apt-get install vulkan-validationlayers)");
        enabledLayers.push_back(layer);
    }
    const bool debugUtils = hasExtension(exts, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (debugUtils) enabledExts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "rsim";
    app.applicationVersion = VK_MAKE_VERSION(0, 1, 0);
    app.pEngineName = "rsim";
    app.apiVersion = VK_API_VERSION_1_2;
    VkDebugUtilsMessengerCreateInfoEXT messengerInfo{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                    VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messengerInfo.pfnUserCallback = &Instance::onMessage;
    messengerInfo.pUserData = this;

    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    ci.enabledLayerCount = std::uint32_t(enabledLayers.size());
    ci.ppEnabledLayerNames = enabledLayers.data();
    ci.enabledExtensionCount = std::uint32_t(enabledExts.size());
    ci.ppEnabledExtensionNames = enabledExts.data();
    if (validation && debugUtils) ci.pNext = &messengerInfo; // messages during create/destroy too
    part.emplace("instance: vkCreateInstance");
    VK_CHECK(vkCreateInstance(&ci, nullptr, &instance_));
    volkLoadInstanceOnly(instance_);
    if (validation && debugUtils)
        VK_CHECK(vkCreateDebugUtilsMessengerEXT(instance_, &messengerInfo, nullptr, &messenger_));

    part.emplace("instance: physical devices");
    std::uint32_t count = 0;
    VK_CHECK(vkEnumeratePhysicalDevices(instance_, &count, nullptr));
    std::vector<VkPhysicalDevice> pds(count);
    VK_CHECK(vkEnumeratePhysicalDevices(instance_, &count, pds.data()));
    for (std::uint32_t i = 0; i < count; ++i) devices_.push_back(describe(pds[i], i));
}

Instance::~Instance() {
    if (messenger_) vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
    if (instance_) vkDestroyInstance(instance_, nullptr);
}

VKAPI_ATTR VkBool32 VKAPI_CALL Instance::onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user) {
    auto* self = static_cast<Instance*>(user);
    const char* text = data && data->pMessage ? data->pMessage : "";
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        ++self->validationErrors_;
        spdlog::error("Vulkan validation: {}", text);
    } else if (types & VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT) {
        spdlog::debug("Vulkan performance: {}", text);
    } else {
        spdlog::warn("Vulkan validation: {}", text);
    }
    return VK_FALSE;
}

} // namespace rsim::vk
