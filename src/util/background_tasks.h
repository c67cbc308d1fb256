// SPDX-License-Identifier: MIT
// Tasks on a few background threads. `workers` tasks run at once; more wait in a queue as long as
// the bytes the waiting ones hold (what the caller says each task holds) stay within
// `backlogBytes`, and submit() blocks only beyond that. A task that throws stops the others from starting: the next
// submit() or wait() rethrows the first failure. The destructor drops the tasks that have not
// started and waits for those that run.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rsim {

class BackgroundTasks {
  public:
    explicit BackgroundTasks(std::size_t workers, std::uint64_t backlogBytes = 0);
    ~BackgroundTasks();
    BackgroundTasks(const BackgroundTasks&) = delete;
    BackgroundTasks& operator=(const BackgroundTasks&) = delete;

    // Queues `task`, which holds `bytes`; waits while no worker is free for it and the waiting
    // tasks' bytes would pass the backlog (a task is always let in when nothing waits).
    void submit(std::function<void()> task, std::uint64_t bytes = 0);
    // Waits until every submitted task has run; rethrows the first failure.
    void wait();

  private:
    struct Queued {
        std::function<void()> task;
        std::uint64_t bytes = 0;
    };
    void work();
    void rethrowLocked();

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Queued> queue_;
    std::uint64_t backlogBytes_ = 0, queuedBytes_ = 0;
    std::size_t idle_ = 0, running_ = 0;
    bool stopping_ = false;
    std::exception_ptr failure_;
    std::vector<std::thread> threads_;
};

} // namespace rsim
