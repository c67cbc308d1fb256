// SPDX-License-Identifier: MIT
#include "util/did_you_mean.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace rsim {

std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates) {
    // Optimal string alignment distance: Levenshtein plus the transposition of two adjacent
    // letters as one edit ("scael" -> "scale").
    auto distance = [](const std::string& a, const std::string& b) {
        auto same = [](char x, char y) {
            return std::tolower(static_cast<unsigned char>(x)) ==
                   std::tolower(static_cast<unsigned char>(y));
        };
        const std::size_t w = b.size() + 1;
        std::vector<std::size_t> d((a.size() + 1) * w);
        for (std::size_t i = 0; i <= a.size(); ++i)
            d[i * w] = i;
        for (std::size_t j = 0; j <= b.size(); ++j)
            d[j] = j;
        for (std::size_t i = 1; i <= a.size(); ++i)
            for (std::size_t j = 1; j <= b.size(); ++j) {
                std::size_t sub = d[(i - 1) * w + j - 1] + !same(a[i - 1], b[j - 1]);
                std::size_t v = std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1, sub});
                if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
                    v = std::min(v, d[(i - 2) * w + j - 2] + 1);
                d[i * w + j] = v;
            }
        return d[a.size() * w + b.size()];
    };
    std::string best;
    std::size_t bestD = SIZE_MAX;
    for (const auto& c : candidates) {
        std::size_t d = distance(word, c);
        if (d < bestD) {
            bestD = d;
            best = c;
        }
    }
    // Accept up to a third of the word's length in edits (at least 1, at most 3).
    std::size_t limit = std::clamp<std::size_t>(word.size() / 3, 1, 3);
    return bestD <= limit ? best : std::string();
}

} // namespace rsim
