// SPDX-License-Identifier: MIT
// One VkDevice and everything tied to it: queues, command pool, its own function table (volk),
// memory types. No globals: two GPUs, or the same GPU listed twice, are two Device objects.
#pragma once
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <vector>
#include <string>

#include "vulkan/instance.h"

namespace rsim::vk {

// How a device traces rays: ray queries in compute shaders, a ray-tracing pipeline, or rsim's own
// BVH traversed in compute shaders (no ray-tracing extension: shaders/common/trace_bvh.glsl).
enum class RayPath { RayQuery, Pipeline, Bvh };
const char* rayPathName(RayPath path);
// Whether the path traces through the driver's acceleration structures (its device then needs
// VK_KHR_acceleration_structure, which NVIDIA's driver takes 0.2 s longer to create).
inline bool usesAccelerationStructures(RayPath path) { return path != RayPath::Bvh; }

class Device {
public:
    // `rays`: with ray tracing (`path`'s: acceleration structures and its extension, none for
    // RayPath::Bvh). Without, the device runs compute passes only. A device without the
    // acceleration structure extension is created sooner: 0.06-0.09 s against 0.25-0.32 s on
    // NVIDIA's driver (docs/benchmarks.md, "NVIDIA driver costs"). Without rays `path` is the
    // one a device with rays would take (what a K cache key names). Without `transferQueue` the copies of
    // streaming run on the compute queue (backends/backend_choice.h says when that is chosen).
    // With `hostImport`, where it has VK_EXT_external_memory_host, it imports host memory
    // (vk::SharedHostBuffer: several devices exchanging data); asked only then, as the extension
    // costs a device's creation a few ms on NVIDIA's driver (docs/benchmarks.md, "NVIDIA driver
    // costs").
    Device(const Instance& instance, const PhysicalDeviceInfo& info, RayPath path,
           std::string label, bool rays = true, bool transferQueue = true, bool hostImport = false);
    ~Device();
    Device(Device&) = delete;
    Device& operator=(Device&) = delete;

    const VolkDeviceTable& vk() const { return table_; }
    VkDevice handle() const { return device_; }
    const PhysicalDeviceInfo& info() const { return info_; }
    const std::string& label() const { return label_; }
    RayPath rayPath() const { return path_; }
    bool rays() const { return rays_; }
    // Whether ray-tracing pipelines run on it (their shader stages are then in its barriers).
    bool rayTracingPipelines() const { return rays_ && path_ == RayPath::Pipeline; }
    // Whether it was created with VK_KHR_acceleration_structure.
    bool accelerationStructures() const { return rays_ && usesAccelerationStructures(path_); }
    const VkPhysicalDeviceLimits& limits() const { return props_.properties.limits; }
    const VkPhysicalDeviceProperties& properties() const { return props_.properties; }
    // The pipeline cache every pipeline of this device is created through (pipeline_cache.h).
    class PipelineCache& pipelineCache() { return *pipelineCache_; }
    // Pipelines compiled ahead of their first use (pipeline_warmup.h).
    class PipelineWarmup& pipelineWarmup() { return *warmup_; }
    // RSIM_PIPELINE_STATISTICS=1 with VK_KHR_pipeline_executable_properties: each pipeline logs
    // the driver's statistics of its compiled code (registers, spills where the driver says).
    bool capturesStatistics() const { return capturesStatistics_; }
    const VkPhysicalDeviceRayTracingPipelinePropertiesKHR& rtProperties() const { return rtProps_; }
    const VkPhysicalDeviceAccelerationStructurePropertiesKHR& asProperties() const { return asProps_; }
    std::uint64_t maxAllocationBytes() const { return maxAllocation_; }
    // The alignment of host memory it imports (VK_EXT_external_memory_host, with `hostImport`); 0:
    // it imports none.
    std::uint64_t hostImportAlignment() const { return hostImportAlignment_; }
    // --max-device-mb: what rsim may use of this device in all (0: no cap but the driver's
    // budget). Set by the backend; code that would keep memory longer than it must asks.
    std::uint64_t useCap() const { return useCap_; }
    void setUseCap(std::uint64_t bytes) { useCap_ = bytes; }

    VkQueue computeQueue() const { return computeQueue_; }
    std::uint32_t computeFamily() const { return computeFamily_; }
    // A queue of a transfer-only family when the device has one, else the compute queue.
    VkQueue transferQueue() const { return transferQueue_; }
    std::uint32_t transferFamily() const { return transferFamily_; }
    bool hasDedicatedTransfer() const { return transferFamily_ != computeFamily_; }

    // Index of the first memory type allowed by typeBits with all `required` flags (and the
    // `preferred` ones, if a type has them), preferring types without `avoid` (host buffers avoid
    // DEVICE_LOCAL: VRAM behind a resizable BAR); throws when none exists.
    std::uint32_t memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags required,
                             VkMemoryPropertyFlags preferred = 0, VkMemoryPropertyFlags avoid = 0) const;
    // Device-local bytes this process may still use (VK_EXT_memory_budget when available).
    std::uint64_t deviceLocalBudget() const;
    // Device-local bytes this process holds on the device (0 without VK_EXT_memory_budget).
    std::uint64_t deviceLocalUsage() const;

    // Records commands, submits them to the compute queue and waits. Thread-safe (one caller
    // at a time holds the queue).
    void submitAndWait(const std::function<void(VkCommandBuffer)>& record);
    VkCommandPool commandPool() const { return pool_; }
    // Whether the compute queue writes timestamps (vulkan/timestamps.h).
    bool computeTimestamps() const;

    // Asynchronous work: a command buffer recorded by `record` is submitted to the compute or
    // transfer queue, waiting for `waitValue` on `waitSemaphore` (when not null) and signalling
    // `signalValue` on `signalSemaphore` (timeline semaphores, vulkan/timeline.h). The command
    // buffer is freed by reclaim() once its semaphore value has been reached.
    void submitAsync(bool transferQueue, const std::function<void(VkCommandBuffer)>& record,
                     VkSemaphore waitSemaphore, std::uint64_t waitValue, VkSemaphore signalSemaphore,
                     std::uint64_t signalValue);
    // Frees the command buffers of asynchronous submissions that have completed.
    void reclaim();
    // Frees the command buffers that signal `semaphore`, done or not: for a semaphore destroyed
    // after its wait failed (the device is lost).
    void forgetPending(VkSemaphore semaphore);

    // Runs `job` on another thread; the destructor waits for it. For releasing memory that
    // nothing waits for: NVIDIA's driver takes about 1.3 ms per 64 MiB to free device memory, in a
    // lock that the process's allocations share (docs/benchmarks.md, "NVIDIA driver costs").
    void inBackground(std::function<void()> job);
    // Keeps `what` (device memory nobody needs any more) until the device's release, where its
    // freeing costs the run nothing (the release is the last thing, and a command may end
    // before it: util/early_exit.h); for what is small beside the device's memory. One thing of
    // each `kind` ("fp32 K", "visibility lists"): the one of that kind held before goes to
    // inBackground (a device that lives on, as in Python, holds no more than the last of each).
    void holdUntilRelease(const std::string& kind, std::shared_ptr<void> what);

    // Host-visible staging buffers of at least `bytes`, reused across the (blocking) uploads
    // and downloads of this device: pinning host memory is slow on some drivers.
    class Buffer& stagingUpload(std::uint64_t bytes);
    class Buffer& stagingReadback(std::uint64_t bytes);
    // A pinned buffer that a phase no longer needs (MemoryKind::Upload for `upload`, else
    // Readback; shared by the queue families) becomes the staging buffer of that direction where
    // it is larger than the one held; the smaller of the two is kept until the release
    // (holdUntilRelease). Spares the later phases the allocation of pinned memory as they grow.
    void adoptStaging(class Buffer&& buffer, bool upload);

    void setName(VkObjectType type, std::uint64_t handle, const std::string& name) const;
    template <class H> void name(H handle, VkObjectType type, const std::string& n) const {
        setName(type, reinterpret_cast<std::uint64_t>(handle), n);
    }

private:
    const Instance& instance_;
    PhysicalDeviceInfo info_;
    RayPath path_;
    bool rays_ = true;
    std::string label_;
    VkDevice device_ = VK_NULL_HANDLE;
    VolkDeviceTable table_{};
    VkPhysicalDeviceRayTracingPipelinePropertiesKHR rtProps_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR};
    VkPhysicalDeviceAccelerationStructurePropertiesKHR asProps_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR};
    VkPhysicalDeviceProperties2 props_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    VkPhysicalDeviceMemoryProperties memory_{};
    std::uint64_t maxAllocation_ = 0;
    std::uint64_t hostImportAlignment_ = 0;
    std::uint64_t useCap_ = 0;
    VkQueue computeQueue_ = VK_NULL_HANDLE, transferQueue_ = VK_NULL_HANDLE;
    std::uint32_t computeFamily_ = 0, transferFamily_ = 0;
    VkCommandPool pool_ = VK_NULL_HANDLE, transferPool_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    std::mutex mutex_; // queues and command pools are externally synchronised
    bool capturesStatistics_ = false;
    bool submitted_ = false; // submitAndWait has run once (its first run is timed: util/startup_times.h)
    struct Pending {
        VkCommandBuffer cmd;
        bool transfer;
        VkSemaphore semaphore;
        std::uint64_t value;
    };
    std::vector<Pending> pending_;
    std::unique_ptr<class Buffer> upload_, readback_;
    std::mutex backgroundMutex_;
    std::vector<std::future<void>> background_;
    std::map<std::string, std::shared_ptr<void>> heldUntilRelease_;
    void waitBackground(); // every job of inBackground
    std::unique_ptr<class PipelineCache> pipelineCache_;
    std::unique_ptr<class PipelineWarmup> warmup_;
};

} // namespace rsim::vk
