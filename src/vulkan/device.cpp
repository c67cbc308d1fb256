// SPDX-License-Identifier: MIT
#include "vulkan/device.h"

#include <chrono>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "util/error.h"
#include "util/startup_times.h"
#include "util/timer.h"
#include "vulkan/buffer.h"
#include "vulkan/pipeline_cache.h"
#include "vulkan/pipeline_warmup.h"

namespace rsim::vk {

const char* rayPathName(RayPath path) {
    return path == RayPath::RayQuery ? "ray-query" : path == RayPath::Bvh ? "bvh" : "pipeline";
}

Device::Device(const Instance& instance, const PhysicalDeviceInfo& info, RayPath path,
               std::string label, bool rays, bool transferQueue, bool hostImport)
    : instance_(instance), info_(info), path_(path), rays_(rays), label_(std::move(label)) {
    StartupTimer timer("vulkan " + label_);
    if (!info.usable) throw Error("Vulkan device " + info.name + " cannot run rsim: " + info.unusableReason);
    if (rays && path == RayPath::RayQuery && !info.rayQuery)
        throw Error("Vulkan device " + info.name + " has no VK_KHR_ray_query; use --visibility bvh");
    if (rays && path == RayPath::Pipeline && !info.rayTracingPipeline)
        throw Error("Vulkan device " + info.name +
                    " has no VK_KHR_ray_tracing_pipeline; use --visibility bvh");

    // Queues: a compute-capable family, and a transfer-only family for streaming if present and
    // wanted.
    computeFamily_ = UINT32_MAX;
    for (const auto& q : info.queueFamilies)
        if ((q.flags & VK_QUEUE_COMPUTE_BIT) && computeFamily_ == UINT32_MAX) computeFamily_ = q.index;
    if (computeFamily_ == UINT32_MAX) throw Error("Vulkan device " + info.name + " has no compute queue");
    transferFamily_ = computeFamily_;
    for (const auto& q : info.queueFamilies)
        if (transferQueue && (q.flags & VK_QUEUE_TRANSFER_BIT) &&
            !(q.flags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT))) {
            transferFamily_ = q.index;
            break;
        }
    const float priority = 1.0f;
    std::vector<VkDeviceQueueCreateInfo> queues;
    for (std::uint32_t family : {computeFamily_, transferFamily_}) {
        if (!queues.empty() && queues.back().queueFamilyIndex == family) continue;
        VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        q.queueFamilyIndex = family;
        q.queueCount = 1;
        q.pQueuePriorities = &priority;
        queues.push_back(q);
    }

    const bool accel = accelerationStructures();
    std::vector<const char*> exts;
    if (accel) {
        exts = {VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME, VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME,
                path == RayPath::RayQuery ? VK_KHR_RAY_QUERY_EXTENSION_NAME : VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME};
    }
    if (info.memoryBudget) exts.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    const bool imports = hostImport && info.hostMemoryImport;
    if (imports) exts.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    const char* statistics = std::getenv("RSIM_PIPELINE_STATISTICS");
    capturesStatistics_ = statistics && *statistics && std::string(statistics) != "0" && info.executableStatistics;
    if (capturesStatistics_) exts.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);

    VkPhysicalDeviceRayTracingPipelineFeaturesKHR rtp{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR};
    rtp.rayTracingPipeline = VK_TRUE;
    rtp.rayTracingPipelineTraceRaysIndirect = VK_TRUE; // the visibility pass's near phases
    VkPhysicalDeviceRayQueryFeaturesKHR rq{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR};
    rq.rayQuery = VK_TRUE;
    VkPhysicalDeviceAccelerationStructureFeaturesKHR as{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    as.accelerationStructure = VK_TRUE;
    as.pNext = path == RayPath::RayQuery ? static_cast<void*>(&rq) : static_cast<void*>(&rtp);
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exe{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    exe.pipelineExecutableInfo = VK_TRUE;
    exe.pNext = accel ? as.pNext : nullptr;
    if (capturesStatistics_) as.pNext = &exe;
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    v12.bufferDeviceAddress = VK_TRUE;
    v12.timelineSemaphore = VK_TRUE;
    v12.pNext = accel ? static_cast<void*>(&as) : capturesStatistics_ ? static_cast<void*>(&exe) : nullptr;
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    v11.storageBuffer16BitAccess = VK_TRUE; // fp16 K stored in-band by the visibility shader
    v11.pNext = &v12;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    features.features.shaderInt64 = VK_TRUE;
    features.pNext = &v11;

    VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    ci.pNext = &features;
    ci.queueCreateInfoCount = std::uint32_t(queues.size());
    ci.pQueueCreateInfos = queues.data();
    ci.enabledExtensionCount = std::uint32_t(exts.size());
    ci.ppEnabledExtensionNames = exts.data();
    {
        StartupTimer create("vkCreateDevice, " + label_);
        VK_CHECK(vkCreateDevice(info.handle, &ci, nullptr, &device_));
    }
    volkLoadDeviceTable(&table_, device_);

    table_.vkGetDeviceQueue(device_, computeFamily_, 0, &computeQueue_);
    table_.vkGetDeviceQueue(device_, transferFamily_, 0, &transferQueue_);

    VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT hostImportProps{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    if (imports) m3.pNext = &hostImportProps;
    // The ray-tracing properties only where the device has the extensions (a "bvh" device may not).
    asProps_.pNext = &m3;
    rtProps_.pNext = info.accelerationStructure ? static_cast<void*>(&asProps_) : static_cast<void*>(&m3);
    props_.pNext = info.rayTracingPipeline ? static_cast<void*>(&rtProps_) : rtProps_.pNext;
    vkGetPhysicalDeviceProperties2(info.handle, &props_);
    maxAllocation_ = m3.maxMemoryAllocationSize;
    hostImportAlignment_ = imports ? hostImportProps.minImportedHostPointerAlignment : 0;
    asProps_.pNext = nullptr;
    rtProps_.pNext = nullptr;
    props_.pNext = nullptr;
    vkGetPhysicalDeviceMemoryProperties(info.handle, &memory_);

    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = computeFamily_;
    VK_CHECK(table_.vkCreateCommandPool(device_, &pci, nullptr, &pool_));
    pci.queueFamilyIndex = transferFamily_;
    VK_CHECK(table_.vkCreateCommandPool(device_, &pci, nullptr, &transferPool_));
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(table_.vkCreateFence(device_, &fci, nullptr, &fence_));
    name(device_, VK_OBJECT_TYPE_DEVICE, label_);
    name(computeQueue_, VK_OBJECT_TYPE_QUEUE, label_ + " compute queue");
    name(pool_, VK_OBJECT_TYPE_COMMAND_POOL, label_ + " command pool");
    pipelineCache_ = std::make_unique<PipelineCache>(*this);
    warmup_ = std::make_unique<PipelineWarmup>(*this);
    spdlog::debug("{}: {} ({}), {}, compute family {}, transfer family {}", label_, info.name, info.driver,
                  rays ? std::string(rayPathName(path)) + " path" : std::string("without ray tracing"), computeFamily_,
                  transferFamily_);
}

namespace {
// A staging buffer of at least `bytes`: the one held, or a larger one in its place (pinned host
// memory, which some drivers take long to allocate: logged).
Buffer& staging(Device& device, std::unique_ptr<Buffer>& held, std::uint64_t bytes, MemoryKind kind, const char* what) {
    if (held && held->size() >= bytes) return *held;
    const Stopwatch sw;
    held.reset();
    held = std::make_unique<Buffer>(device, bytes, 0, kind, device.label() + " " + what);
    spdlog::debug("{}: {} of {:.1f} MiB in {:.4f} s", device.label(), what, double(bytes) / 1048576.0, sw.seconds());
    return *held;
}
} // namespace

Buffer& Device::stagingUpload(std::uint64_t bytes) {
    return staging(*this, upload_, bytes, MemoryKind::Upload, "staging upload");
}

Buffer& Device::stagingReadback(std::uint64_t bytes) {
    return staging(*this, readback_, bytes, MemoryKind::Readback, "staging readback");
}

void Device::adoptStaging(Buffer&& buffer, bool upload) {
    if (!buffer) return;
    std::unique_ptr<Buffer>& held = upload ? upload_ : readback_;
    auto given = std::make_unique<Buffer>(std::move(buffer));
    if (!held || held->size() < given->size()) std::swap(held, given);
    if (given)
        holdUntilRelease(upload ? "a staging upload put aside" : "a staging readback put aside",
                         std::shared_ptr<Buffer>(std::move(given)));
}

Device::~Device() {
    if (!device_) return;
    waitBackground();
    warmup_.reset(); // its pipelines, compiled or still compiling, through the cache below
    table_.vkDeviceWaitIdle(device_);
    heldUntilRelease_.clear();
    upload_.reset();
    readback_.reset();
    pipelineCache_.reset();
    reclaim();
    if (transferPool_) table_.vkDestroyCommandPool(device_, transferPool_, nullptr);
    if (fence_) table_.vkDestroyFence(device_, fence_, nullptr);
    if (pool_) table_.vkDestroyCommandPool(device_, pool_, nullptr);
    table_.vkDestroyDevice(device_, nullptr);
}

void Device::inBackground(std::function<void()> job) {
    std::lock_guard lock(backgroundMutex_);
    std::erase_if(background_, [](const std::future<void>& f) {
        return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    });
    background_.push_back(std::async(std::launch::async, std::move(job)));
}

void Device::holdUntilRelease(const std::string& kind, std::shared_ptr<void> what) {
    std::shared_ptr<void> last;
    {
        std::lock_guard lock(backgroundMutex_);
        last = std::exchange(heldUntilRelease_[kind], std::move(what));
    }
    if (last) inBackground([last = std::move(last)]() mutable { last.reset(); });
}

void Device::waitBackground() {
    std::vector<std::future<void>> jobs;
    {
        std::lock_guard lock(backgroundMutex_);
        jobs.swap(background_);
    }
    for (std::future<void>& f : jobs) f.wait();
}

std::uint32_t Device::memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags required,
                                 VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags avoid) const {
    for (int pass = 0; pass < 4; ++pass) {
        const VkMemoryPropertyFlags want = pass % 2 == 0 ? (required | preferred) : required;
        const VkMemoryPropertyFlags shun = pass < 2 ? avoid : 0;
        for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
            const VkMemoryPropertyFlags f = memory_.memoryTypes[i].propertyFlags;
            if ((typeBits & (1u << i)) && (f & want) == want && !(f & shun)) return i;
        }
    }
    throw Error(label_ + ": no Vulkan memory type with the required properties");
}

std::uint64_t Device::deviceLocalBudget() const {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
    if (info_.memoryBudget) props.pNext = &budget;
    vkGetPhysicalDeviceMemoryProperties2(info_.handle, &props);
    std::uint64_t best = 0;
    for (std::uint32_t h = 0; h < props.memoryProperties.memoryHeapCount; ++h) {
        if (!(props.memoryProperties.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)) continue;
        std::uint64_t avail = props.memoryProperties.memoryHeaps[h].size;
        if (info_.memoryBudget)
            avail = budget.heapBudget[h] > budget.heapUsage[h] ? budget.heapBudget[h] - budget.heapUsage[h] : 0;
        best = std::max(best, avail);
    }
    return best;
}

std::uint64_t Device::deviceLocalUsage() const {
    if (!info_.memoryBudget) return 0;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
    props.pNext = &budget;
    vkGetPhysicalDeviceMemoryProperties2(info_.handle, &props);
    std::uint64_t used = 0;
    for (std::uint32_t h = 0; h < props.memoryProperties.memoryHeapCount; ++h)
        if (props.memoryProperties.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) used += budget.heapUsage[h];
    return used;
}

bool Device::computeTimestamps() const {
    for (const auto& q : info_.queueFamilies)
        if (q.index == computeFamily_) return q.timestampValidBits > 0 && props_.properties.limits.timestampPeriod > 0.0f;
    return false;
}

void Device::submitAndWait(const std::function<void(VkCommandBuffer)>& record) {
    std::lock_guard lock(mutex_);
    std::optional<StartupTimer> first;
    if (!submitted_) first.emplace("first submit, " + label_);
    submitted_ = true;
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    VK_CHECK(table_.vkAllocateCommandBuffers(device_, &ai, &cmd));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    try {
        VK_CHECK(table_.vkBeginCommandBuffer(cmd, &bi));
        record(cmd);
        VK_CHECK(table_.vkEndCommandBuffer(cmd));
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        VK_CHECK(table_.vkResetFences(device_, 1, &fence_));
        VK_CHECK(table_.vkQueueSubmit(computeQueue_, 1, &si, fence_));
        VK_CHECK(table_.vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX));
    } catch (...) {
        table_.vkFreeCommandBuffers(device_, pool_, 1, &cmd);
        throw;
    }
    table_.vkFreeCommandBuffers(device_, pool_, 1, &cmd);
}

void Device::submitAsync(bool transfer, const std::function<void(VkCommandBuffer)>& record,
                         VkSemaphore waitSemaphore, std::uint64_t waitValue, VkSemaphore signalSemaphore,
                         std::uint64_t signalValue) {
    std::lock_guard lock(mutex_);
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = transfer ? transferPool_ : pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    VK_CHECK(table_.vkAllocateCommandBuffers(device_, &ai, &cmd));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(table_.vkBeginCommandBuffer(cmd, &bi));
    record(cmd);
    VK_CHECK(table_.vkEndCommandBuffer(cmd));
    const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    ts.waitSemaphoreValueCount = waitSemaphore ? 1 : 0;
    ts.pWaitSemaphoreValues = &waitValue;
    ts.signalSemaphoreValueCount = 1;
    ts.pSignalSemaphoreValues = &signalValue;
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = &ts;
    si.waitSemaphoreCount = waitSemaphore ? 1 : 0;
    si.pWaitSemaphores = &waitSemaphore;
    si.pWaitDstStageMask = &waitStage;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &signalSemaphore;
    VK_CHECK(table_.vkQueueSubmit(transfer ? transferQueue_ : computeQueue_, 1, &si, VK_NULL_HANDLE));
    pending_.push_back({cmd, transfer, signalSemaphore, signalValue});
}

void Device::reclaim() {
    std::lock_guard lock(mutex_);
    std::vector<Pending> still;
    for (const Pending& p : pending_) {
        std::uint64_t value = 0;
        table_.vkGetSemaphoreCounterValue(device_, p.semaphore, &value);
        if (value >= p.value) table_.vkFreeCommandBuffers(device_, p.transfer ? transferPool_ : pool_, 1, &p.cmd);
        else still.push_back(p);
    }
    pending_.swap(still);
}

void Device::forgetPending(VkSemaphore semaphore) {
    std::lock_guard lock(mutex_);
    std::vector<Pending> still;
    for (const Pending& p : pending_) {
        if (p.semaphore == semaphore)
            table_.vkFreeCommandBuffers(device_, p.transfer ? transferPool_ : pool_, 1, &p.cmd);
        else still.push_back(p);
    }
    pending_.swap(still);
}

void Device::setName(VkObjectType type, std::uint64_t handle, const std::string& n) const {
    if (!vkSetDebugUtilsObjectNameEXT || !handle) return;
    VkDebugUtilsObjectNameInfoEXT ni{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    ni.objectType = type;
    ni.objectHandle = handle;
    ni.pObjectName = n.c_str();
    vkSetDebugUtilsObjectNameEXT(device_, &ni);
}

} // namespace rsim::vk
