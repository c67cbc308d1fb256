// SPDX-License-Identifier: MIT
#include "k/k_chunking.h"

#include <vector>

#include "util/parallel.h"

namespace rsim {

KChunking KChunking::forBudget(std::uint32_t n, KFormat format, std::uint64_t chunkBytes) {
    const std::uint64_t rowBytes = std::max<std::uint64_t>(
        1, std::uint64_t(n) * shared::rsimKBits(kFormatInfo(format).storage) / 8);
    // A chunk is indexed with 32 bits by the shaders.
    const std::uint64_t maxRows = ((std::uint64_t(1) << 32) - 64) / std::max<std::uint32_t>(1, n);
    const std::uint64_t rows =
        std::clamp<std::uint64_t>(chunkBytes / rowBytes, 1, std::min<std::uint64_t>(n, maxRows));
    return KChunking{n, std::uint32_t(std::max<std::uint64_t>(rows, 1)), format};
}

std::uint64_t KChunking::chunkBytes(std::uint32_t c) const {
    return ((elements(c) * shared::rsimKBits(storage()) + 31) / 32) * 4;
}

std::uint64_t KChunking::bytes() const {
    const std::uint64_t elementBytes =
        (std::uint64_t(n) * n * shared::rsimKBits(storage()) + 7) / 8;
    return elementBytes +
           std::uint64_t(chunks()) * shared::rsimKTableSize(storage()) * sizeof(float);
}

void parallelRowTiles(
    const KChunking& ch, std::uint32_t tile,
    const std::function<void(std::uint32_t, std::uint32_t, std::uint32_t, unsigned)>& fn,
    std::uint32_t firstChunk, std::uint32_t endChunk) {
    struct Tile {
        std::uint32_t chunk, begin, end;
    };
    std::vector<Tile> tiles;
    for (std::uint32_t c = firstChunk; c < std::min(endChunk, ch.chunks()); ++c)
        for (std::uint32_t a = 0; a < ch.rows(c); a += tile)
            tiles.push_back({c, a, std::min(ch.rows(c), a + tile)});
    parallelFor(tiles.size(), 1, [&](std::size_t b, std::size_t e, unsigned w) {
        for (std::size_t t = b; t < e; ++t)
            fn(tiles[t].chunk, tiles[t].begin, tiles[t].end, w);
    });
}

} // namespace rsim
