// SPDX-License-Identifier: MIT
#include "backends/backend_thread.h"

#include <utility>

namespace rsim {

BackendThread::BackendThread(BackendChoice choice)
    : choice_(std::move(choice)), selection_(chosen_.get_future().share()), thread_([this] { loop(); }) {}

BackendThread::~BackendThread() {
    {
        std::lock_guard lock(mutex_);
        ending_ = true;
    }
    wake_.notify_one();
    thread_.join();
}

const VulkanSelection& BackendThread::selection() const { return selection_.get(); }

std::future<std::unique_ptr<Backend>> BackendThread::run(Job make) {
    std::packaged_task<std::unique_ptr<Backend>()> job(
        [this, make = std::move(make)] { return make(selection_.get()); });
    std::future<std::unique_ptr<Backend>> made = job.get_future();
    {
        std::lock_guard lock(mutex_);
        jobs_.push_back(std::move(job));
    }
    wake_.notify_one();
    return made;
}

std::future<std::unique_ptr<Backend>> BackendThread::make(bool rays, std::uint64_t trianglesAtMost) {
    return run([this, rays, trianglesAtMost](const VulkanSelection& selected) {
        return makeBackend(choice_, selected, rays, trianglesAtMost);
    });
}

void BackendThread::loop() {
    try {
        chosen_.set_value(selectVulkan(choice_));
    } catch (...) {
        chosen_.set_exception(std::current_exception());
    }
    std::unique_lock lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return ending_ || !jobs_.empty(); });
        if (jobs_.empty()) return; // ending, every job done
        std::packaged_task<std::unique_ptr<Backend>()> job = std::move(jobs_.front());
        jobs_.erase(jobs_.begin());
        lock.unlock();
        job(); // its exception goes to its future
        lock.lock();
    }
}

} // namespace rsim
