// SPDX-License-Identifier: MIT
#include "k/row_share.h"

#include <algorithm>

namespace rsim {

RowShare::RowShare(const KChunking& chunking, const Ranks& ranks) : ranks_(ranks), chunking_(chunking) {
    const std::uint64_t R = std::uint64_t(std::max(ranks.size(), 1)), n = chunking.n;
    // Rank r starts at the chunk boundary nearest to r n / R rows.
    for (std::uint64_t r = 0; r < R; ++r) {
        const std::uint64_t row = (r * n + R / 2) / R;
        first_.push_back(std::uint32_t(
            std::min<std::uint64_t>(chunking.chunks(), (row + chunking.rowsPerChunk / 2) / chunking.rowsPerChunk)));
    }
    first_.push_back(chunking.chunks());
}

} // namespace rsim
