// SPDX-License-Identifier: MIT
#include "util/startup_times.h"

#include <cmath>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sstream>

#include <unistd.h>

#include <spdlog/spdlog.h>

namespace rsim {
namespace {

std::mutex mutex;
std::vector<std::pair<std::string, double>> entries;

} // namespace

void noteStartup(const std::string& name, double seconds) {
    spdlog::debug("start-up: {} {:.4f} s", name, seconds);
    std::lock_guard lock(mutex);
    for (auto& [n, s] : entries)
        if (n == name) {
            s += seconds;
            return;
        }
    entries.emplace_back(name, seconds);
}

std::vector<std::pair<std::string, double>> startupTimes() {
    std::lock_guard lock(mutex);
    return entries;
}

double secondsSinceProcessStart() {
    // Field 22 of /proc/self/stat: the start time in clock ticks after boot. The command name
    // (field 2) may hold spaces and parentheses, so fields are counted after its last ')'.
    std::ifstream in("/proc/self/stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return NAN;
    std::istringstream rest(stat.substr(close + 2));
    std::string field;
    for (int f = 3; f <= 22 && rest >> field; ++f)
        if (f == 22) {
            timespec now{};
            clock_gettime(CLOCK_BOOTTIME, &now);
            const double ticks = double(sysconf(_SC_CLK_TCK));
            return double(now.tv_sec) + 1e-9 * double(now.tv_nsec) - std::stod(field) / ticks;
        }
    return NAN;
}

} // namespace rsim
