// SPDX-License-Identifier: MIT
// A VkPipelineCache kept on disk between runs (userCacheDir()/pipelines), one file per device
// and driver: the driver compiles a pipeline's SPIR-V once, not in every process. The file is
// checked against the device (header, vendor, device, cache UUID) before the driver sees it;
// anything else is ignored with a debug line. It is written back, atomically, when pipelines
// were added.
#pragma once
#include <atomic>
#include <cstddef>
#include <filesystem>

#include <volk.h>

namespace rsim::vk {

class Device;

class PipelineCache {
  public:
    explicit PipelineCache(Device& device);
    ~PipelineCache(); // saves (when there is something new) and destroys the cache
    // Writes the cache's file now when pipelines were added since it was loaded or last saved
    // (and the driver's data grew): a later run need not wait for this one's release.
    void save();
    PipelineCache(const PipelineCache&) = delete;
    PipelineCache& operator=(const PipelineCache&) = delete;

    VkPipelineCache handle() const { return cache_; }
    // A pipeline was created through the cache: save it at the end if its data changed.
    void added() { dirty_ = true; } // from any thread (the warm-up's too)

  private:
    Device& device_;
    std::filesystem::path file_;
    VkPipelineCache cache_ = VK_NULL_HANDLE;
    std::size_t loadedBytes_ = 0; // what seeded it (0: nothing)
    std::atomic<bool> dirty_ = false;
};

} // namespace rsim::vk
