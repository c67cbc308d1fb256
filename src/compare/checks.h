// SPDX-License-Identifier: MIT
// The checks of `rsim compare` on one pair of results directories: each a row of the report
// (text, JSON, JUnit), with numbers kept as numbers.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "compare/result_dir.h"

namespace rsim::compare {

// printf-style text for the report's lines (at most 255 characters).
[[gnu::format(printf, 1, 2)]] std::string fmt(const char* format, ...);

struct Check {
    std::string name;
    std::size_t compared = 0;
    std::string comparedText; // the report's text where it is not just `compared` ("566 vs 560")
    std::size_t beyond = 0, nanOneSide = 0;
    std::optional<double> maxDiff; // in `unit`
    std::string unit;              // "m", "of peak", or "" for a count
    std::optional<double> tolerance;
    std::string toleranceText;
    bool pass = true;
    std::string failure; // why it failed, for the summary line
};

// The values that differ most (diff = +inf: a value on one side only).
struct WorstTriangle {
    std::size_t id;
    std::string mesh;
    double a, b, diff;
};
struct WorstPixel {
    std::uint32_t x, y; // row 0 at the top
    double a, b, diff;
};

struct Comparison {
    std::vector<Check> checks;
    std::vector<std::string> notes; // what is reported but does not fail (files in one directory only)
    std::vector<WorstTriangle> worstTriangles;
    std::vector<WorstPixel> worstPixels;
    bool pass() const;
    std::vector<std::string> failures() const;
};

Comparison compareDirectories(const ResultDir& a, const ResultDir& b, const CompareOptions& options);

} // namespace rsim::compare
