// SPDX-License-Identifier: MIT
// How a process that made a Vulkan device ends, timed by its parent (issue 21's whole process):
// the device released before the exit, left to the kernel at _exit, or released by a child that
// shares the process's memory and files while the process itself exits at once. Also one queue
// family against rsim's two (compute and transfer). Built on the development machine:
//   g++ -O2 -std=c++20 scripts/device/vk_exit_probe.cpp -o .device/probe/exitprobe -lvulkan
//   LD_LIBRARY_PATH=rsim-bundle/lib exitprobe MODE QUEUES      MODE: destroy|_exit|detach, QUEUES: 1|2
#include <vulkan/vulkan.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include <fcntl.h>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
struct Held { VkInstance inst; VkDevice dev; };
static int releaseInChild(void* p) {
    auto* h = static_cast<Held*>(p);
    double a = now();
    vkDestroyDevice(h->dev, nullptr);
    vkDestroyInstance(h->inst, nullptr);
    char line[128]; int n = snprintf(line, sizeof line, "  child destroy %.4f\n", now() - a);
    int fd = open("/tmp/exitprobe-child.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) { (void)!write(fd, line, size_t(n)); close(fd); }
    _exit(0);
}
int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "destroy";
    int queues = argc > 2 ? atoi(argv[2]) : 2;
    double t0 = now();
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO}; app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO}; ici.pApplicationInfo = &app;
    VkInstance inst; if (vkCreateInstance(&ici, nullptr, &inst)) { puts("instance failed"); return 1; }
    double t1 = now();
    uint32_t n = 0; vkEnumeratePhysicalDevices(inst, &n, nullptr); std::vector<VkPhysicalDevice> pd(n); vkEnumeratePhysicalDevices(inst, &n, pd.data());
    uint32_t nf = 0; vkGetPhysicalDeviceQueueFamilyProperties(pd[0], &nf, nullptr);
    std::vector<VkQueueFamilyProperties> fams(nf); vkGetPhysicalDeviceQueueFamilyProperties(pd[0], &nf, fams.data());
    uint32_t transfer = 0;
    for (uint32_t f = 0; f < nf; ++f)
        if ((fams[f].queueFlags & VK_QUEUE_TRANSFER_BIT) && !(fams[f].queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT))) { transfer = f; break; }
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    f12.bufferDeviceAddress = VK_TRUE; f12.timelineSemaphore = VK_TRUE;
    VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES}; f11.storageBuffer16BitAccess = VK_TRUE; f11.pNext = &f12;
    VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2}; f2.features.shaderInt64 = VK_TRUE; f2.pNext = &f11;
    float pr = 1; VkDeviceQueueCreateInfo q[2]{{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}, {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}};
    q[0].queueFamilyIndex = 0; q[0].queueCount = 1; q[0].pQueuePriorities = &pr;
    q[1].queueFamilyIndex = transfer; q[1].queueCount = 1; q[1].pQueuePriorities = &pr;
    const char* budget = "VK_EXT_memory_budget";
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO}; dci.pNext = &f2;
    dci.queueCreateInfoCount = (queues == 2 && transfer != 0) ? 2 : 1; dci.pQueueCreateInfos = q;
    dci.enabledExtensionCount = 1; dci.ppEnabledExtensionNames = &budget;
    VkDevice dev; VkResult r = vkCreateDevice(pd[0], &dci, nullptr, &dev);
    double t2 = now();
    // Some work, so that the device has a submitted and finished command buffer, as a run's has.
    VkQueue queue; vkGetDeviceQueue(dev, 0, 0, &queue);
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO}; pci.queueFamilyIndex = 0;
    VkCommandPool pool; vkCreateCommandPool(dev, &pci, nullptr, &pool);
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO}; cai.commandPool = pool; cai.commandBufferCount = 1;
    VkCommandBuffer cb; vkAllocateCommandBuffers(dev, &cai, &cb);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO}; vkBeginCommandBuffer(cb, &bi); vkEndCommandBuffer(cb);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO}; si.commandBufferCount = 1; si.pCommandBuffers = &cb;
    vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE); vkQueueWaitIdle(queue);
    vkDestroyCommandPool(dev, pool, nullptr);
    double t3 = now();
    printf("%s q%d: instance %.4f device %.4f submit %.4f (result %d)\n", mode.c_str(), int(dci.queueCreateInfoCount), t1 - t0, t2 - t1, t3 - t2, int(r));
    fflush(stdout);
    if (mode == "destroy") { double a = now(); vkDestroyDevice(dev, nullptr); vkDestroyInstance(inst, nullptr); printf("  destroy %.4f\n", now() - a); fflush(stdout); return 0; }
    if (mode == "_exit") _exit(0);
    if (mode == "detach") {
        static Held held; held = {inst, dev};
        static std::vector<char> stack(1 << 20);
        // The child shares the process's memory and file table, so the process's exit leaves the
        // device to it. (It shares stdout too: a reader of a pipe would wait for the child.)
        if (clone(releaseInChild, stack.data() + stack.size(), CLONE_VM | CLONE_FILES, &held) < 0) { perror("clone"); return 1; }
        _exit(0);
    }
    return 0;
}
