// SPDX-License-Identifier: MIT
// How long a thread that made Vulkan calls takes to end once its work is done (issue 21: rsim's
// devices were created 0.01 s after the instance, the instance's thread being joined
// through std::async's future in between). Times, for a thread that does nothing with Vulkan, one
// that creates the instance, one that creates a device on it and one that submits nothing but
// creates a command pool: from the last statement of the thread's work to join() returning in the
// main thread; also std::async's future.get() against the same work. Built on the development
// machine:
//   g++ -O2 -std=c++20 scripts/device/vk_thread_exit_probe.cpp -o .device/probe/threadexit -lvulkan -lpthread
//   LD_LIBRARY_PATH=rsim-bundle/lib threadexit
#include <vulkan/vulkan.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <thread>
#include <vector>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static VkInstance inst;
static VkPhysicalDevice pd;
static VkDevice dev;
static void makeInstance() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO}; app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO}; ici.pApplicationInfo = &app;
    if (vkCreateInstance(&ici, nullptr, &inst)) { puts("instance failed"); std::exit(1); }
    uint32_t n = 0; vkEnumeratePhysicalDevices(inst, &n, nullptr); std::vector<VkPhysicalDevice> all(n);
    vkEnumeratePhysicalDevices(inst, &n, all.data()); pd = all[0];
    VkPhysicalDeviceProperties p; vkGetPhysicalDeviceProperties(pd, &p);
}
static void makeDevice() {
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}; q.queueFamilyIndex = 0; q.queueCount = 1; q.pQueuePriorities = &prio;
    VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO}; ci.queueCreateInfoCount = 1; ci.pQueueCreateInfos = &q;
    if (vkCreateDevice(pd, &ci, nullptr, &dev)) { puts("device failed"); std::exit(1); }
}
static void makePool() {
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO}; VkCommandPool pool;
    vkCreateCommandPool(dev, &pci, nullptr, &pool);
}
template <class F> static void viaThread(const char* what, F work) {
    std::atomic<double> end{0};
    double a = now();
    std::thread t([&] { work(); end = now(); });
    t.join();
    double b = now();
    std::printf("%-28s thread: work %.4f s, end of work to join %.4f s\n", what, end - a, b - end);
}
template <class F> static void viaAsync(const char* what, F work) {
    double a = now();
    auto f = std::async(std::launch::async, [&] { work(); return now(); });
    double end = f.get(), b = now();
    std::printf("%-28s async:  work %.4f s, end of work to get() %.4f s\n", what, end - a, b - end);
}
int main() {
    viaThread("nothing", [] {});
    viaAsync("nothing", [] {});
    viaThread("instance", makeInstance);
    viaThread("device", makeDevice);
    viaThread("command pool", makePool);
    viaAsync("another command pool", makePool);
    viaAsync("physical device properties", [] { VkPhysicalDeviceProperties p; vkGetPhysicalDeviceProperties(pd, &p); });
    vkDestroyDevice(dev, nullptr);
    viaAsync("second device", makeDevice);
    vkDestroyDevice(dev, nullptr);
    vkDestroyInstance(inst, nullptr);
    viaAsync("second instance", makeInstance);
    return 0;
}
