// SPDX-License-Identifier: MIT
#include "k/k_diagnostics.h"

#include <algorithm>

#include "rsim/shared/physics.h"
#include "util/error.h"
#include "util/parallel.h"

namespace rsim {

VisibilityStats summariseRowSums(const std::vector<double>& rowSums, std::uint64_t clamped) {
    VisibilityStats v;
    v.clampedFormFactors = clamped;
    for (double s : rowSums) {
        v.maxRowSum = std::max(v.maxRowSum, s);
        v.rowsOverOne += s > kRowSumWarning;
    }
    return v;
}

namespace {
// Rows [a, b) of chunk c (relative), in one pass over its elements, j by j: each row's sum
// still adds its sources in order of j.
std::uint64_t addRowSums(const KChunking& ch, std::uint32_t c, const EncodedChunk& chunk, const std::vector<float>& area,
                         std::uint32_t a, std::uint32_t b, std::vector<double>& rowSum) {
    const std::uint32_t r0 = ch.rowBegin(c), rows = ch.rows(c);
    std::uint64_t clamped = 0;
    for (std::uint32_t j = 0; j < ch.n; ++j)
        for (std::uint32_t r = a; r < b; ++r) {
            const float k = decodeElement(chunk, ch.storage(), std::uint64_t(j) * rows + r);
            if (k == 0.0f) continue;
            clamped += k * area[j] > 1.0f;
            rowSum[r0 + r] += double(shared::rsimFormFactor(k, area[j]));
        }
    return clamped;
}
} // namespace

std::uint64_t addChunkRowSums(const KChunking& ch, std::uint32_t c, const EncodedChunk& chunk,
                              const std::vector<float>& area, std::vector<double>& rowSum) {
    std::vector<std::uint64_t> clamped(threadCount(), 0);
    // Tiles of rows on all cores; each row is summed by one worker, in order of j. A tile reads
    // its rows' elements of each column together (element (i, j) at j * rows + i), so tiles as
    // wide as the cores allow (up to 64 rows) read more of each cache line than 4-row tiles.
    // (docs/benchmarks.md, "Two GPUs again": with 4-row tiles, adding the row sums to the host
    // assembly took it from 1.47 to 2.84 s on two H200s; wider tiles not yet measured there.)
    const std::uint32_t tile = std::clamp<std::uint32_t>(ch.rows(c) / std::max(1u, threadCount()), 4, 64);
    parallelFor((ch.rows(c) + tile - 1) / tile, 1, [&](std::size_t b, std::size_t e, unsigned w) {
        for (std::size_t t = b; t < e; ++t) {
            const std::uint32_t a = std::uint32_t(t) * tile;
            clamped[w] += addRowSums(ch, c, chunk, area, a, std::min(ch.rows(c), a + tile), rowSum);
        }
    });
    std::uint64_t total = 0;
    for (auto v : clamped) total += v;
    return total;
}

VisibilityStats formFactorDiagnostics(const HostK& K, const std::vector<float>& area) {
    const KChunking& ch = K.chunking();
    std::vector<double> rowSum(ch.n, 0.0);
    std::vector<std::uint64_t> clamped(threadCount(), 0);
    parallelRowTiles(
        ch, 64,
        [&](std::uint32_t c, std::uint32_t a, std::uint32_t b, unsigned w) {
            clamped[w] += addRowSums(ch, c, K.chunk(c), area, a, b, rowSum);
        },
        K.firstHeld(), K.endHeld());
    std::uint64_t total = 0;
    for (auto v : clamped)
        total += v;
    return summariseRowSums(rowSum, total);
}

void setEnergy(VisibilityStats& stats, const VisibilityStats& energy) {
    stats.clampedFormFactors = energy.clampedFormFactors;
    stats.maxRowSum = energy.maxRowSum;
    stats.rowsOverOne = energy.rowsOverOne;
}

std::vector<KStorageReport::FormatError> formatErrorReport(const HostK& K) {
    std::vector<std::span<const float>> chunks;
    if (!K.holdsAll()) throw Error("internal: K's format errors of a K that holds some rows only");
    for (std::uint32_t c = 0; c < K.chunkCount(); ++c)
        chunks.emplace_back(K.values(c), K.chunk(c).count);
    std::vector<KStorageReport::FormatError> out;
    const std::uint64_t n = K.chunking().n;
    for (const FormatError& f : formatErrors(chunks, n * n))
        out.push_back({kFormatInfo(f.format).name, f.rms, f.maxAbs});
    return out;
}

} // namespace rsim
