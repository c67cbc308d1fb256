// SPDX-License-Identifier: MIT
// Suggestions for mistyped names in error messages.
#pragma once
#include <string>
#include <vector>

namespace rsim {

// The closest of `candidates` to `word` when it is plausibly a typo, else "".
std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates);

} // namespace rsim
