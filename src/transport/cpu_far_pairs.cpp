// SPDX-License-Identifier: MIT
#include "transport/cpu_far_pairs.h"

#include <atomic>

#include "k/k_chunking.h"
#include "k/k_rows.h"
#include "rsim/shared/physics.h"
#include "util/parallel.h"

namespace rsim {

std::optional<FarPairLists> FarPairLists::build(const PreparedScene& s, const HostK& K, float invCdtSq,
                                                std::uint32_t tileRows, std::uint32_t nearSteps,
                                                std::uint64_t maxBytes) {
    const KChunking& ch = K.chunking();
    FarPairLists out;
    out.tileRows_ = tileRows;
    out.firstChunk_ = K.firstHeld();
    std::uint32_t tiles = 0;
    for (std::uint32_t c = K.firstHeld(); c < K.endHeld(); ++c) {
        out.firstTile_.push_back(tiles);
        tiles += (ch.rows(c) + tileRows - 1) / tileRows;
    }
    out.lists_.resize(tiles);
    // Each tile's far pairs, in the gather's order, in one pass over K: a worker lists a tile into
    // its scratch list, then the tile gets a copy of exactly that size. The lists' bytes are
    // counted as they are made, and the build gives up once they pass maxBytes (or a delay does
    // not fit 24 bits): nothing is held much beyond maxBytes.
    std::vector<std::vector<FarPair>> scratch(threadCount());
    std::atomic<std::uint64_t> bytes{0};
    std::atomic<bool> giveUp{false};
    parallelRowTiles(ch, tileRows, [&](std::uint32_t c, std::uint32_t a, std::uint32_t b, unsigned w) {
        if (giveUp.load(std::memory_order_relaxed)) return;
        std::vector<FarPair>& list = scratch[w];
        list.clear();
        bool tooLong = false;
        const std::uint32_t r0 = ch.rowBegin(c);
        forEachNonzero(K, c, a, b, [&](std::uint32_t j, std::uint32_t r, float k) {
            const std::uint32_t tau = shared::rsimDelaySteps(s.centroid[r0 + r], s.centroid[j], invCdtSq);
            if (tau < nearSteps) return;
            tooLong = tooLong || tau >= (1u << 24);
            list.push_back({j, k, tau << 8 | (r - a)});
        });
        const std::uint64_t size = list.size() * sizeof(FarPair);
        if (tooLong || bytes.fetch_add(size) + size > maxBytes) {
            giveUp = true;
            return;
        }
        out.lists_[out.firstTile_[c - out.firstChunk_] + a / tileRows].assign(list.begin(), list.end());
    }, K.firstHeld(), K.endHeld());
    if (giveUp) return std::nullopt;
    out.bytes_ = bytes;
    return out;
}

} // namespace rsim
