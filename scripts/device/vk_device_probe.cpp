// SPDX-License-Identifier: MIT
// Times vkCreateInstance and vkCreateDevice with the extension and feature sets rsim could ask
// for (docs/benchmarks.md, "NVIDIA driver costs"). Built on the development machine and run
// beside the bundle's Vulkan loader on a GPU machine:
//   g++ -O2 -std=c++20 scripts/device/vk_device_probe.cpp -o .device/probe/devprobe -lvulkan
//   LD_LIBRARY_PATH=rsim-bundle/lib devprobe VARIANT [destroy|_exit|exit]
// VARIANT: full (rsim's: acceleration structure, ray-tracing pipeline, memory budget, buffer
// addresses, timeline semaphores, 16-bit storage, int64), as (without the ray-tracing
// pipeline), v12 (no acceleration structure: buffer addresses, timeline semaphores, memory
// budget), bda (buffer addresses only), budget and none (no Vulkan 1.2 feature).
#include <vulkan/vulkan.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <unistd.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
    std::string variant = argc > 1 ? argv[1] : "full";
    std::string exitMode = argc > 2 ? argv[2] : "destroy";
    double t0 = now();
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO}; app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO}; ici.pApplicationInfo = &app;
    VkInstance inst; if (vkCreateInstance(&ici, nullptr, &inst)) { puts("instance failed"); return 1; }
    double t1 = now();
    uint32_t n = 0; vkEnumeratePhysicalDevices(inst, &n, nullptr); std::vector<VkPhysicalDevice> pd(n); vkEnumeratePhysicalDevices(inst, &n, pd.data());
    double t2 = now();
    std::vector<const char*> exts;
    bool as = variant == "full" || variant == "as";
    bool rt = variant == "full";
    bool v12 = variant != "none" && variant != "budget";
    bool bdaOnly = variant == "bda";
    if (as) { exts.push_back("VK_KHR_acceleration_structure"); exts.push_back("VK_KHR_deferred_host_operations"); }
    if (rt) exts.push_back("VK_KHR_ray_tracing_pipeline");
    if (variant != "none" && variant != "bda") exts.push_back("VK_EXT_memory_budget");
    VkPhysicalDeviceRayTracingPipelineFeaturesKHR rtp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR}; rtp.rayTracingPipeline = VK_TRUE;
    VkPhysicalDeviceAccelerationStructureFeaturesKHR asf{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR}; asf.accelerationStructure = VK_TRUE;
    if (rt) asf.pNext = &rtp;
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    f12.bufferDeviceAddress = VK_TRUE; f12.timelineSemaphore = bdaOnly ? VK_FALSE : VK_TRUE;
    if (as) f12.pNext = &asf;
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES}; f11.storageBuffer16BitAccess = VK_TRUE;
    if (v12) f11.pNext = &f12;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2}; f2.features.shaderInt64 = VK_TRUE; f2.pNext = &f11;
    float pr = 1; VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}; q.queueFamilyIndex = 0; q.queueCount = 1; q.pQueuePriorities = &pr;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO}; dci.pNext = &f2; dci.queueCreateInfoCount = 1; dci.pQueueCreateInfos = &q;
    dci.enabledExtensionCount = uint32_t(exts.size()); dci.ppEnabledExtensionNames = exts.data();
    VkDevice dev; VkResult r = vkCreateDevice(pd[0], &dci, nullptr, &dev);
    double t3 = now();
    printf("%s %s: instance %.4f enumerate %.4f device %.4f (result %d)\n", variant.c_str(), exitMode.c_str(), t1 - t0, t2 - t1, t3 - t2, int(r));
    fflush(stdout);
    if (exitMode == "destroy") { double a = now(); vkDestroyDevice(dev, nullptr); vkDestroyInstance(inst, nullptr); printf("  destroy %.4f\n", now() - a); fflush(stdout); return 0; }
    if (exitMode == "_exit") _exit(0);
    return 0;
}
