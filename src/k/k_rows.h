// SPDX-License-Identifier: MIT
// K's non-zero elements of rows [a, b) of one chunk, in the order the CPU's sums take them:
// source j ascending, and for each source the rows ascending. The same calls, the same values
// and the same order whether K is stored dense or as segments (k/k_segments.h), so that a sum
// over them is bit for bit the same in either layout.
#pragma once
#include <array>
#include <cstdint>

#include "k/host_k.h"
#include "util/error.h"

namespace rsim {

// fn(j, r, k) for every K_ij != 0 of chunk c's rows r in [a, b) (offsets within the chunk;
// i = rowBegin(c) + r).
template <class Fn>
void forEachNonzero(const HostK& K, std::uint32_t c, std::uint32_t a, std::uint32_t b, Fn&& fn) {
    const KChunking& ch = K.chunking();
    const std::uint32_t storage = ch.storage(), rows = ch.rows(c);
    if (K.layout() == KLayout::Dense) {
        const EncodedChunk& chunk = K.chunk(c);
        for (std::uint32_t j = 0; j < ch.n; ++j)
            for (std::uint32_t r = a; r < b; ++r) {
                const float k = decodeElement(chunk, storage, std::uint64_t(j) * rows + r);
                if (k != 0.0f) fn(j, r, k);
            }
        return;
    }
    // As segments: the tiles that [a, b) touches, their columns merged (each tile's ascending).
    constexpr std::uint32_t R = shared::RSIM_K_SEGMENT_ROWS, kMaxTiles = 8;
    const SegmentChunk& chunk = K.segments(c);
    if (a >= b) return;
    const std::uint32_t t0 = a / R, t1 = (b - 1) / R + 1;
    if (t1 - t0 > kMaxTiles) throw Error("internal: more than 256 rows of K at once");
    std::array<std::uint32_t, kMaxTiles> at{}, end{}, keep{};
    for (std::uint32_t t = t0; t < t1; ++t) {
        at[t - t0] = chunk.tileStart[t];
        end[t - t0] = chunk.tileStart[t + 1];
        // The tile's rows within [a, b).
        const std::uint32_t lo = std::max(a, t * R) - t * R, hi = std::min(b, (t + 1) * R) - t * R;
        keep[t - t0] = (hi >= 32 ? 0xffffffffu : (1u << hi) - 1u) & ~((1u << lo) - 1u);
    }
    for (;;) {
        std::uint32_t j = ~0u;
        for (std::uint32_t x = 0; x < t1 - t0; ++x)
            if (at[x] < end[x]) j = std::min(j, chunk.column(at[x]));
        if (j == ~0u) return;
        for (std::uint32_t x = 0; x < t1 - t0; ++x) {
            if (at[x] >= end[x] || chunk.column(at[x]) != j) continue;
            const std::uint32_t s = at[x]++;
            std::uint32_t m = chunk.mask(s) & keep[x];
            if (!m) continue;
            // The kept rows are one run of lanes, so their values follow one another.
            std::uint32_t v = shared::rsimKSegmentValue(chunk.first(s), chunk.mask(s), std::uint32_t(__builtin_ctz(m)));
            while (m) {
                const std::uint32_t lane = std::uint32_t(__builtin_ctz(m));
                m &= m - 1;
                const float k = decodePacked(chunk.words.data(), chunk.table.data(), storage, v++);
                if (k != 0.0f) fn(j, (t0 + x) * R + lane, k);
            }
        }
    }
}

} // namespace rsim
