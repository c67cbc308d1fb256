// SPDX-License-Identifier: MIT
#include "util/parallel.h"

#include "util/cancel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace rsim {
namespace {

class Pool {
public:
    explicit Pool(unsigned n) : size_(std::max(1u, n)) {
        for (unsigned w = 1; w < size_; ++w) threads_.emplace_back([this, w] { workerLoop(w); });
    }
    ~Pool() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_all();
        for (auto& t : threads_) t.join();
    }
    unsigned size() const { return size_; }

    void run(std::size_t n, std::size_t grain,
             const std::function<void(std::size_t, std::size_t, unsigned)>& body) {
        if (n == 0) return;
        grain = std::max<std::size_t>(1, grain);
        std::lock_guard runLock(runMutex_); // one parallelFor at a time; nested calls run inline
        {
            std::lock_guard lock(mutex_);
            body_ = &body;
            n_ = n;
            grain_ = grain;
            next_.store(0);
            error_ = nullptr;
            active_ = size_ - 1;
            ++generation_;
        }
        wake_.notify_all();
        work(0);
        std::unique_lock lock(mutex_);
        done_.wait(lock, [this] { return active_ == 0; });
        body_ = nullptr;
        if (error_) std::rethrow_exception(error_);
    }

private:
    void work(unsigned worker) {
        for (;;) {
            std::size_t begin = next_.fetch_add(grain_);
            if (begin >= n_) break;
            std::size_t end = std::min(n_, begin + grain_);
            try {
                (*body_)(begin, end, worker);
            } catch (...) {
                std::lock_guard lock(mutex_);
                if (!error_) error_ = std::current_exception();
                next_.store(n_); // stop handing out work
            }
        }
    }
    void workerLoop(unsigned worker) {
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
                if (stop_) return;
                seen = generation_;
            }
            work(worker);
            std::lock_guard lock(mutex_);
            if (--active_ == 0) done_.notify_one();
        }
    }

    unsigned size_;
    std::vector<std::thread> threads_;
    std::mutex mutex_, runMutex_;
    std::condition_variable wake_, done_;
    bool stop_ = false;
    std::uint64_t generation_ = 0;
    unsigned active_ = 0;
    const std::function<void(std::size_t, std::size_t, unsigned)>* body_ = nullptr;
    std::size_t n_ = 0, grain_ = 1;
    std::atomic<std::size_t> next_{0};
    std::exception_ptr error_;
};

unsigned g_requested = 0;
thread_local bool t_inParallel = false;
thread_local unsigned t_worker = 0;

Pool& pool() {
    static Pool p(g_requested ? g_requested : std::max(1u, std::thread::hardware_concurrency()));
    return p;
}

} // namespace

unsigned threadCount() { return pool().size(); }
void setThreadCount(unsigned n) { g_requested = n; }

void parallelFor(std::size_t n, std::size_t grain,
                 const std::function<void(std::size_t, std::size_t, unsigned)>& body) {
    if (t_inParallel) { // nested: run serially on this worker
        for (std::size_t b = 0; b < n; b += std::max<std::size_t>(1, grain))
            body(b, std::min(n, b + std::max<std::size_t>(1, grain)), t_worker);
        return;
    }
    auto wrapped = [&body](std::size_t b, std::size_t e, unsigned w) {
        // A stop (Ctrl-C) ends the loop between two chunks: no loop outlives it by more than one.
        checkCancel();
        t_inParallel = true;
        t_worker = w;
        try {
            body(b, e, w);
        } catch (...) {
            t_inParallel = false;
            throw;
        }
        t_inParallel = false;
    };
    pool().run(n, grain, wrapped);
}

} // namespace rsim
