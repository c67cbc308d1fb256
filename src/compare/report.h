// SPDX-License-Identifier: MIT
// `rsim compare`'s report of its checks: the table for people, JSON and JUnit XML for programs.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/checks.h"

namespace rsim::compare {

// The checks' table, the notes, and (when a check failed) the worst triangles and pixels.
void printComparison(std::ostream& out, const Comparison& c, std::size_t showWorst);

// The comparison as JSON: every count and difference a number (metres for distances), the
// worst triangles and pixels, the notes.
nlohmann::ordered_json comparisonJson(const Comparison& c);

// One <testsuite> of JUnit XML, its cases the checks ("pose/check" names in a batch).
std::string junitTestsuite(const std::string& name, const std::vector<std::pair<std::string, const Comparison*>>& parts);

} // namespace rsim::compare
