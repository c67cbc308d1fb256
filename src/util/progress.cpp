// SPDX-License-Identifier: MIT
#include "util/progress.h"

#include <cstdio>

#include <spdlog/spdlog.h>
#include <unistd.h>

namespace rsim {
namespace {
std::atomic<bool> g_enabled{true};

std::string humanCount(double v) {
    const char* suffix[] = {"", "k", "M", "G", "T"};
    int i = 0;
    while (v >= 1000.0 && i < 4) {
        v /= 1000.0;
        ++i;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, i ? "%.2f%s" : "%.0f%s", v, suffix[i]);
    return buf;
}
} // namespace

void setProgressEnabled(bool enabled) { g_enabled = enabled; }

Progress::Progress(std::string phase, std::uint64_t total, std::string unit)
    : phase_(std::move(phase)), unit_(std::move(unit)), total_(total),
      start_(std::chrono::steady_clock::now()) {
    active_ = g_enabled && isatty(STDERR_FILENO);
    if (active_) thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() {
    finish();
    // A stop that ended the phase early says where (the Python tests check that a stop came
    // before the phase's end, not how fast).
    const std::uint64_t done = done_.load(std::memory_order_relaxed);
    if (cancelRequested() && total_ > 0 && done < total_)
        spdlog::info("{}: stopped after {} of {} {}", phase_, done, total_, unit_);
}

void Progress::finish() {
    {
        std::lock_guard lock(mutex_);
        if (finished_) return;
        finished_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (printed_) print(true);
}

void Progress::loop() {
    std::unique_lock lock(mutex_);
    while (!finished_) {
        cv_.wait_for(lock, std::chrono::milliseconds(250));
        if (finished_) break;
        auto elapsed = std::chrono::steady_clock::now() - start_;
        if (elapsed > std::chrono::seconds(2)) print(false);
    }
}

void Progress::print(bool final) {
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::uint64_t done = done_.load(std::memory_order_relaxed);
    double rate = secs > 0 ? double(done) / secs : 0.0;
    char line[256];
    if (total_ > 0) {
        double frac = double(done) / double(total_);
        double eta = (frac > 0 && !final) ? secs * (1.0 - frac) / frac : 0.0;
        std::snprintf(line, sizeof line, "[%s] %5.1f%%  %s/%s %s  %s %s/s  %.0fs elapsed%s",
                      phase_.c_str(), 100.0 * frac, humanCount(double(done)).c_str(),
                      humanCount(double(total_)).c_str(), unit_.c_str(),
                      humanCount(rate).c_str(), unit_.c_str(), secs,
                      final ? "" : (" ETA " + std::to_string(int(eta + 0.5)) + "s").c_str());
    } else {
        std::snprintf(line, sizeof line, "[%s] %s %s  %.0fs elapsed", phase_.c_str(),
                      humanCount(double(done)).c_str(), unit_.c_str(), secs);
    }
    std::fprintf(stderr, "\r\033[K%s%s", line, final ? "\n" : "");
    std::fflush(stderr);
    printed_ = true;
}

} // namespace rsim
