// SPDX-License-Identifier: MIT
#include "k/row_share.h"

#include <algorithm>

#include "util/error.h"

namespace rsim {

RowShare::RowShare(const KChunking& chunking, const Ranks& ranks)
    : ranks_(&ranks), rank_(ranks.rank()), count_(std::max(ranks.size(), 1)), chunking_(chunking) {
    cut();
}

RowShare::RowShare(const KChunking& chunking, int count, int part)
    : rank_(part), count_(std::max(count, 1)), chunking_(chunking) {
    if (part < 0 || part >= count_) throw Error("internal: a row share's part outside its count");
    cut();
}

const Ranks& RowShare::ranks() const {
    if (!ranks_) throw Error("internal: the ranks of a share of one process's devices");
    return *ranks_;
}

std::string RowShare::name(int r) const { return (ranks_ ? "rank " : "device ") + std::to_string(r); }

void RowShare::cut() {
    const std::uint64_t R = std::uint64_t(count_), n = chunking_.n;
    const KChunking& chunking = chunking_;
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
    const std::uint32_t middle = !atChunk ? a + (b - a) / 2 : rowOfChunk(partChunk(lo, 1, 2));
    PairBlock out;
    out.i0 = tracer == lo ? a : middle;
    out.i1 = tracer == lo ? middle : b;
    out.j0 = rowBegin(hi);
    out.j1 = rowEnd(hi);
    return out;
}

} // namespace rsim
