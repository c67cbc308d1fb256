// SPDX-License-Identifier: MIT
// What a run spends outside its phases, and what GPU set-up costs inside them (summary.json
// `startup_s`, `--log-level debug`): the process's start until main(), the Vulkan instance,
// each device, each pipeline. Process-wide, since the pieces are made in many places; safe to
// record from several threads.
#pragma once
#include <string>

#include "util/timer.h"
#include <utility>
#include <vector>

namespace rsim {

// Adds `seconds` under `name` (summed when the name repeats) and logs it at debug level.
void noteStartup(const std::string& name, double seconds);
// Every entry so far, in the order of first recording.
std::vector<std::pair<std::string, double>> startupTimes();
// Seconds since the kernel started this process; NaN where /proc is not there. The start is
// estimated at the first call, which main() makes first: from /proc's clock tick (10 ms) and the
// main thread's CPU time, to within the time that thread waited before main().
double secondsSinceProcessStart();

// Notes the time from its construction to its destruction under `name`.
class StartupTimer {
public:
    explicit StartupTimer(std::string name) : name_(std::move(name)) {}
    ~StartupTimer() { noteStartup(name_, sw_.seconds()); }
    StartupTimer(const StartupTimer&) = delete;
    StartupTimer& operator=(const StartupTimer&) = delete;

private:
    std::string name_;
    Stopwatch sw_;
};

} // namespace rsim
