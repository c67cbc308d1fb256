// SPDX-License-Identifier: MIT
#include "transport/cpu_far_pairs.h"

#include <atomic>

#include "k/k_chunking.h"
#include "k/k_encode.h"
#include "rsim/shared/physics.h"

namespace rsim {

std::optional<FarPairLists> FarPairLists::build(const PreparedScene& s, const HostK& K, float invCdtSq,
                                                std::uint32_t tileRows, std::uint32_t nearSteps,
                                                std::uint64_t maxBytes) {
    const KChunking& ch = K.chunking();
    const std::uint32_t storage = ch.storage();
    FarPairLists out;
    out.tileRows_ = tileRows;
    out.firstChunk_ = K.firstHeld();
    std::uint32_t tiles = 0;
    for (std::uint32_t c = K.firstHeld(); c < K.endHeld(); ++c) {
        out.firstTile_.push_back(tiles);
        tiles += (ch.rows(c) + tileRows - 1) / tileRows;
    }
    out.lists_.resize(tiles);
    const std::uint32_t n = std::uint32_t(s.size());
    // Each tile's far pairs, in the gather's order: counted first, so that nothing is built
    // beyond maxBytes and each list is allocated once.
    auto eachFarPair = [&](std::uint32_t c, std::uint32_t a, std::uint32_t b, auto&& take) {
        const EncodedChunk& chunk = K.chunk(c);
        const std::uint32_t r0 = ch.rowBegin(c), rows = ch.rows(c);
        for (std::uint32_t j = 0; j < n; ++j)
            for (std::uint32_t r = a; r < b; ++r) {
                const float k = decodeElement(chunk, storage, std::uint64_t(j) * rows + r);
                if (k == 0.0f) continue;
                const std::uint32_t tau = shared::rsimDelaySteps(s.centroid[r0 + r], s.centroid[j], invCdtSq);
                if (tau >= nearSteps) take(j, k, tau, r - a);
            }
    };
    std::vector<std::uint64_t> counts(tiles, 0);
    std::atomic<bool> tooLong{false};
    parallelRowTiles(ch, tileRows, [&](std::uint32_t c, std::uint32_t a, std::uint32_t b, unsigned) {
        std::uint64_t& count = counts[out.firstTile_[c - out.firstChunk_] + a / tileRows];
        eachFarPair(c, a, b, [&](std::uint32_t, float, std::uint32_t tau, std::uint32_t) {
            ++count;
            if (tau >= (1u << 24)) tooLong = true;
        });
    }, K.firstHeld(), K.endHeld());
    for (std::uint64_t c : counts) out.bytes_ += c * sizeof(FarPair);
    if (tooLong || out.bytes_ > maxBytes) return std::nullopt;
    parallelRowTiles(ch, tileRows, [&](std::uint32_t c, std::uint32_t a, std::uint32_t b, unsigned) {
        const std::uint32_t t = out.firstTile_[c - out.firstChunk_] + a / tileRows;
        std::vector<FarPair>& list = out.lists_[t];
        list.reserve(counts[t]);
        eachFarPair(c, a, b, [&](std::uint32_t j, float k, std::uint32_t tau, std::uint32_t row) {
            list.push_back({j, k, tau << 8 | row});
        });
    }, K.firstHeld(), K.endHeld());
    return out;
}

} // namespace rsim
