// SPDX-License-Identifier: MIT
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace rsim {

class Stopwatch {
public:
    Stopwatch() : start_(std::chrono::steady_clock::now()) {}
    double seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }
    // The seconds since the start or the previous lap, and a new start.
    double lap() {
        const auto now = std::chrono::steady_clock::now();
        return std::chrono::duration<double>(now - std::exchange(start_, now)).count();
    }

private:
    std::chrono::steady_clock::time_point start_;
};

// Wall time per pipeline phase, in the order the phases ran (summary.json `timings_s`).
class PhaseTimes {
public:
    void add(const std::string& phase, double seconds) {
        for (auto& [name, s] : entries_)
            if (name == phase) {
                s += seconds;
                return;
            }
        entries_.emplace_back(phase, seconds);
    }
    double get(const std::string& phase) const {
        for (auto& [name, s] : entries_)
            if (name == phase) return s;
        return 0.0;
    }
    const std::vector<std::pair<std::string, double>>& entries() const { return entries_; }

private:
    std::vector<std::pair<std::string, double>> entries_;
};

} // namespace rsim
