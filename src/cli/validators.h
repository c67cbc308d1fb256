// SPDX-License-Identifier: MIT
// Checks of option values with short messages: CLI11's NonNegativeNumber prints its range up to
// the largest double (309 digits), and NaN passes its range checks.
#pragma once
#include <cmath>
#include <string>

#include <CLI/CLI.hpp>

namespace rsim {

// A finite number >= 0.
inline CLI::Validator nonNegativeNumber() {
    return CLI::Validator(
        [](std::string& text) {
            double v = 0.0;
            if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v < 0.0)
                return "expected a finite number >= 0, got " + text;
            return std::string();
        },
        "NUMBER >= 0");
}

// A finite number.
inline CLI::Validator finiteNumber() {
    return CLI::Validator(
        [](std::string& text) {
            double v = 0.0;
            if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v)) return "expected a finite number, got " + text;
            return std::string();
        },
        "FINITE");
}

} // namespace rsim
