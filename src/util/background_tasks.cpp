// SPDX-License-Identifier: MIT
#include "util/background_tasks.h"

#include <utility>

namespace rsim {

BackgroundTasks::BackgroundTasks(std::size_t workers, std::uint64_t backlogBytes) : backlogBytes_(backlogBytes) {
    const std::size_t count = workers ? workers : 1;
    threads_.reserve(count);
    for (std::size_t w = 0; w < count; ++w) threads_.emplace_back([this] { work(); });
}

BackgroundTasks::~BackgroundTasks() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        queue_.clear();
        queuedBytes_ = 0;
    }
    changed_.notify_all();
    for (std::thread& t : threads_) t.join();
}

void BackgroundTasks::rethrowLocked() {
    if (failure_) std::rethrow_exception(failure_);
}

void BackgroundTasks::submit(std::function<void()> task, std::uint64_t bytes) {
    std::unique_lock lock(mutex_);
    // Room: a worker that takes it at once, or the backlog's bytes.
    changed_.wait(lock, [&] {
        return failure_ || queue_.empty() || (idle_ > queue_.size()) || queuedBytes_ + bytes <= backlogBytes_;
    });
    rethrowLocked();
    queue_.push_back({std::move(task), bytes});
    queuedBytes_ += bytes;
    lock.unlock();
    changed_.notify_all();
}

void BackgroundTasks::wait() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return failure_ || (queue_.empty() && running_ == 0); });
    rethrowLocked();
}

void BackgroundTasks::work() {
    std::unique_lock lock(mutex_);
    for (;;) {
        ++idle_;
        changed_.notify_all(); // submit() may be waiting for a free worker
        changed_.wait(lock, [&] { return stopping_ || (!queue_.empty() && !failure_); });
        --idle_;
        if (stopping_) return;
        Queued next = std::move(queue_.front());
        queue_.pop_front();
        queuedBytes_ -= next.bytes;
        ++running_;
        lock.unlock();
        std::exception_ptr failed;
        try {
            next.task();
        } catch (...) {
            failed = std::current_exception();
        }
        next.task = nullptr; // what the task held, freed outside the lock
        lock.lock();
        --running_;
        if (failed && !failure_) failure_ = failed;
        changed_.notify_all();
    }
}

} // namespace rsim
