// SPDX-License-Identifier: MIT
#include "util/startup_times.h"

#include <algorithm>
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

namespace {

double seconds(const timespec& t) { return double(t.tv_sec) + 1e-9 * double(t.tv_nsec); }

// The start of this process on CLOCK_BOOTTIME as /proc/self/stat gives it: in clock ticks,
// rounded down (NaN where /proc is not there).
double startInTicks() {
    // Field 22: the start time in clock ticks after boot. The command name (field 2) may hold
    // spaces and parentheses, so fields are counted after its last ')'.
    std::ifstream in("/proc/self/stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return NAN;
    std::istringstream rest(stat.substr(close + 2));
    std::string field;
    for (int f = 3; f <= 22 && rest >> field; ++f)
        if (f == 22) return std::stod(field) / double(sysconf(_SC_CLK_TCK));
    return NAN;
}

// The process's start, estimated at the first call (main()'s first line). /proc's tick (10 ms)
// alone would make every age up to 10 ms too long, a tenth of what issue 21 measures. Until
// main() the process is one thread that runs (the kernel's exec, the dynamic loader, files in
// the page cache), so that thread's CPU time then is its age but for any time it waited: the
// start is that estimate, kept within the tick that /proc names.
double processStart() {
    static const double start = [] {
        timespec now{}, cpu{};
        clock_gettime(CLOCK_BOOTTIME, &now);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
        const double ticks = startInTicks();
        if (std::isnan(ticks)) return ticks;
        const double byCpu = seconds(now) - seconds(cpu);
        return std::clamp(byCpu, ticks, ticks + 1.0 / double(sysconf(_SC_CLK_TCK)));
    }();
    return start;
}

} // namespace

double secondsSinceProcessStart() {
    const double start = processStart();
    timespec now{};
    clock_gettime(CLOCK_BOOTTIME, &now);
    return seconds(now) - start;
}

} // namespace rsim
