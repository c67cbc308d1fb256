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

RowShare::PairBlock RowShare::pairBlock(int tracer, int other, bool atChunk) const {
    const int lo = std::min(tracer, other), hi = std::max(tracer, other);
    const std::uint32_t a = rowBegin(lo), b = rowEnd(lo);
    const std::uint32_t middle = atChunk ? rowOfChunk(partChunk(lo, 1, 2)) : a + (b - a) / 2;
    PairBlock out;
    out.i0 = tracer == lo ? a : middle;
    out.i1 = tracer == lo ? middle : b;
    out.j0 = rowBegin(hi);
    out.j1 = rowEnd(hi);
    return out;
}

} // namespace rsim
