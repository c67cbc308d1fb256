// SPDX-License-Identifier: MIT
// Whether NVIDIA's driver lets one device work while it creates another (issue 17 point 5: two
// GPUs create their devices one after the other, 0.5 + 0.2 s). Creates device 0 with rsim's
// extensions, then device 1 and 2 GiB of device memory on device 0 (64 MiB allocations), either
// one after the other ("serial") or device 1 on a thread meanwhile ("overlap"), and prints the
// times. Built on the development machine, run beside the bundle's Vulkan loader:
//   g++ -O2 -std=c++20 -pthread scripts/device/vk_two_devices_probe.cpp -o .device/probe/twodev -lvulkan
//   LD_LIBRARY_PATH=rsim-bundle/lib twodev serial|overlap
#include <vulkan/vulkan.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// A device with rsim's features: acceleration structure, ray-tracing pipeline, memory budget,
// buffer addresses, timeline semaphores, 16-bit storage, int64.
static VkDevice makeDevice(VkPhysicalDevice pd) {
    const char* exts[] = {"VK_KHR_acceleration_structure", "VK_KHR_deferred_host_operations",
                          "VK_KHR_ray_tracing_pipeline", "VK_EXT_memory_budget"};
    VkPhysicalDeviceRayTracingPipelineFeaturesKHR rtp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
    rtp.rayTracingPipeline = VK_TRUE;
    VkPhysicalDeviceAccelerationStructureFeaturesKHR asf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    asf.accelerationStructure = VK_TRUE;
    asf.pNext = &rtp;
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    f12.bufferDeviceAddress = VK_TRUE;
    f12.timelineSemaphore = VK_TRUE;
    f12.pNext = &asf;
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    f11.storageBuffer16BitAccess = VK_TRUE;
    f11.pNext = &f12;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.features.shaderInt64 = VK_TRUE;
    f2.pNext = &f11;
    float priority = 1;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    q.queueFamilyIndex = 0;
    q.queueCount = 1;
    q.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &f2;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &q;
    dci.enabledExtensionCount = 4;
    dci.ppEnabledExtensionNames = exts;
    VkDevice dev = VK_NULL_HANDLE;
    if (vkCreateDevice(pd, &dci, nullptr, &dev) != VK_SUCCESS) return VK_NULL_HANDLE;
    return dev;
}

// 2 GiB of device-local memory in 64 MiB allocations; seconds.
static double allocate(VkPhysicalDevice pd, VkDevice dev, std::vector<VkDeviceMemory>& out) {
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    uint32_t type = 0;
    for (uint32_t t = 0; t < mp.memoryTypeCount; ++t)
        if (mp.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) {
            type = t;
            break;
        }
    const double t0 = now();
    for (int k = 0; k < 32; ++k) {
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = 64ull << 20;
        ai.memoryTypeIndex = type;
        VkDeviceMemory m;
        if (vkAllocateMemory(dev, &ai, nullptr, &m) == VK_SUCCESS) out.push_back(m);
    }
    return now() - t0;
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "serial";
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VkInstance inst;
    if (vkCreateInstance(&ici, nullptr, &inst) != VK_SUCCESS) return 1;
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(inst, &n, nullptr);
    std::vector<VkPhysicalDevice> pd(n);
    vkEnumeratePhysicalDevices(inst, &n, pd.data());
    if (n < 2) {
        puts("fewer than two devices");
        return 1;
    }
    const double t0 = now();
    VkDevice a = makeDevice(pd[0]);
    const double t1 = now();
    VkDevice b = VK_NULL_HANDLE;
    double created = 0, allocated = 0;
    std::vector<VkDeviceMemory> memory;
    if (mode == "overlap") {
        std::thread other([&] {
            const double s = now();
            b = makeDevice(pd[1]);
            created = now() - s;
        });
        allocated = allocate(pd[0], a, memory);
        other.join();
    } else {
        const double s = now();
        b = makeDevice(pd[1]);
        created = now() - s;
        allocated = allocate(pd[0], a, memory);
    }
    const double t2 = now();
    printf("%s: device 0 %.4f s; then device 1 %.4f s and 2 GiB on device 0 %.4f s: %.4f s in all (%zu allocations, devices %s)\n",
           mode.c_str(), t1 - t0, created, allocated, t2 - t1, memory.size(), a && b ? "made" : "FAILED");
    for (VkDeviceMemory m : memory) vkFreeMemory(a, m, nullptr);
    vkDestroyDevice(b, nullptr);
    vkDestroyDevice(a, nullptr);
    vkDestroyInstance(inst, nullptr);
    return 0;
}
