// SPDX-License-Identifier: MIT
// Progress of a long phase, shown as one self-rewriting line on stderr when stderr is a
// terminal, the phase has run for more than two seconds, and output is not quiet.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "util/cancel.h"

namespace rsim {

// Global switch, set from --quiet / --no-progress.
void setProgressEnabled(bool enabled);

class Progress {
public:
    // `unit` names what is counted ("rays", "rows", "timesteps"); total may be 0 (unknown).
    Progress(std::string phase, std::uint64_t total, std::string unit);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // Both throw Interrupted when a stop was requested (util/cancel.h).
    void add(std::uint64_t n) {
        checkCancel();
        done_.fetch_add(n, std::memory_order_relaxed);
    }
    void set(std::uint64_t n) {
        checkCancel();
        done_.store(n, std::memory_order_relaxed);
    }
    std::uint64_t done() const { return done_.load(std::memory_order_relaxed); }
    // Ends the line (called by the destructor too).
    void finish();

private:
    void loop();
    void print(bool final);

    std::string phase_, unit_;
    std::uint64_t total_;
    std::atomic<std::uint64_t> done_{0};
    std::chrono::steady_clock::time_point start_;
    bool active_ = false, printed_ = false, finished_ = false;
    std::mutex mutex_;
    std::condition_variable cv_;
    std::thread thread_;
};

} // namespace rsim
