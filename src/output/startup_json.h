// SPDX-License-Identifier: MIT
// summary.json's `startup_s` (util/startup_times.h) and `process_s`, the process's age when
// the summary was written: process_s - timings_s.total is the time outside the phases.
#pragma once
#include <cmath>

#include <nlohmann/json.hpp>

#include "util/startup_times.h"

namespace rsim::output {

inline void addStartupTimes(nlohmann::ordered_json& j) {
    auto value = [](double s) { return std::isfinite(s) ? nlohmann::ordered_json(s) : nlohmann::ordered_json(nullptr); };
    nlohmann::ordered_json startup = nlohmann::ordered_json::object();
    for (const auto& [name, secs] : startupTimes()) startup[name] = value(secs);
    j["startup_s"] = startup;
    j["process_s"] = value(secondsSinceProcessStart());
}

} // namespace rsim::output
