// SPDX-License-Identifier: MIT
// summary.json's `startup_s` (util/startup_times.h) and `process_s`, the process's age when
// the summary was written: process_s - timings_s.total is the time outside the phases; and
// `peak_host_rss_bytes`, the process's largest resident set so far (on a software Vulkan
// device, device memory is host memory and counts too).
#pragma once
#include <cmath>
#include <cstdint>

#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "util/startup_times.h"

namespace rsim::output {

inline void addStartupTimes(nlohmann::ordered_json& j) {
    auto value = [](double s) { return std::isfinite(s) ? nlohmann::ordered_json(s) : nlohmann::ordered_json(nullptr); };
    nlohmann::ordered_json startup = nlohmann::ordered_json::object();
    for (const auto& [name, secs] : startupTimes()) startup[name] = value(secs);
    j["startup_s"] = startup;
    j["process_s"] = value(secondsSinceProcessStart());
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) == 0) j["peak_host_rss_bytes"] = std::uint64_t(usage.ru_maxrss) * 1024u;
}

} // namespace rsim::output
