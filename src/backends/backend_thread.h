// SPDX-License-Identifier: MIT
// The thread on which a run's Vulkan instance is created (selectVulkan), and its devices after
// it (makeBackend): on NVIDIA's driver a thread that created the instance takes 0.01 s to end,
// and a device created on another thread while it ends takes as much longer
// (scripts/device/vk_thread_exit_probe.cpp; docs/benchmarks.md, "NVIDIA driver costs"). So the
// instance's thread also creates the devices, and it ends only when its owner lets it: when the
// devices are released, beside the outputs.
#pragma once
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "backends/backend_choice.h"

namespace rsim {

class BackendThread {
public:
    // Starts the thread: selectVulkan(choice).
    explicit BackendThread(BackendChoice choice);
    // Lets the thread end once its jobs are done, and joins it.
    ~BackendThread();
    BackendThread(const BackendThread&) = delete;
    BackendThread& operator=(const BackendThread&) = delete;

    // The instance's choice of devices, once made (it waits); selectVulkan's error, if it threw.
    const VulkanSelection& selection() const;
    // `make` run on the thread with the choice, after the jobs before it: a backend, or none. The
    // selection's error, or the job's, comes out of the future.
    using Job = std::function<std::unique_ptr<Backend>(const VulkanSelection&)>;
    std::future<std::unique_ptr<Backend>> run(Job make);
    // makeBackend(choice, selection(), rays, trianglesAtMost) on the thread.
    std::future<std::unique_ptr<Backend>> make(bool rays, std::uint64_t trianglesAtMost);

private:
    void loop();

    BackendChoice choice_;
    std::promise<VulkanSelection> chosen_;
    std::shared_future<VulkanSelection> selection_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<std::packaged_task<std::unique_ptr<Backend>()>> jobs_;
    bool ending_ = false;
    std::thread thread_; // last: started once the rest exists
};

} // namespace rsim
