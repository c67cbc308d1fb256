// SPDX-License-Identifier: MIT
// Tasks on background threads, at most `limit` at once: submit() waits for the oldest when that
// many run. wait() waits for all and rethrows the first failure; the destructor waits too.
#pragma once
#include <cstddef>
#include <deque>
#include <functional>
#include <future>

namespace rsim {

class BackgroundTasks {
  public:
    explicit BackgroundTasks(std::size_t limit) : limit_(limit ? limit : 1) {}
    ~BackgroundTasks() {
        for (auto& f : running_)
            if (f.valid()) f.wait();
    }
    BackgroundTasks(const BackgroundTasks&) = delete;
    BackgroundTasks& operator=(const BackgroundTasks&) = delete;

    void submit(std::function<void()> task) {
        while (running_.size() >= limit_) {
            auto oldest = std::move(running_.front());
            running_.pop_front();
            oldest.get();
        }
        running_.push_back(std::async(std::launch::async, std::move(task)));
    }

    void wait() {
        while (!running_.empty()) {
            auto oldest = std::move(running_.front());
            running_.pop_front();
            oldest.get();
        }
    }

  private:
    std::size_t limit_;
    std::deque<std::future<void>> running_;
};

} // namespace rsim
