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

std::uint64_t addChunkRowSums(const KChunking& ch, std::uint32_t c, const EncodedChunk& chunk,
                              const std::vector<float>& area, std::vector<double>& rowSum) {
    // Blocks of kColumns sources on all cores. A block reads its columns whole (element (i, j) at
    // j * rows + i: every row of column j in one run of bytes) into sums of its own, one per row;
    // the blocks' sums are then added in block order. The block size is fixed, so the result
    // does not depend on the core count. (Tiles of rows instead read a few bytes of each column's
    // cache lines, so each cache line of K is fetched once per tile that touches it instead of
    // once: measured slower.)
    constexpr std::uint32_t kColumns = 512;
    const std::uint32_t rows = ch.rows(c), r0 = ch.rowBegin(c), blocks = (ch.n + kColumns - 1) / kColumns;
    const std::uint32_t storage = ch.storage();
    std::vector<double> partial(std::size_t(blocks) * rows, 0.0);
    std::vector<std::uint64_t> clamped(threadCount(), 0);
    parallelFor(blocks, 1, [&](std::size_t b, std::size_t e, unsigned w) {
        std::uint64_t over = 0;
        for (std::size_t blk = b; blk < e; ++blk) {
            double* sums = partial.data() + blk * rows;
            const std::uint32_t j1 = std::min<std::uint32_t>(ch.n, std::uint32_t(blk + 1) * kColumns);
            for (std::uint32_t j = std::uint32_t(blk) * kColumns; j < j1; ++j) {
                const float a = area[j];
                const std::uint64_t base = std::uint64_t(j) * rows;
                for (std::uint32_t r = 0; r < rows; ++r) {
                    const float k = decodeElement(chunk, storage, base + r);
                    if (k == 0.0f) continue;
                    over += k * a > 1.0f;
                    sums[r] += double(shared::rsimFormFactor(k, a));
                }
            }
        }
        clamped[w] += over;
    });
    for (std::uint32_t blk = 0; blk < blocks; ++blk)
        for (std::uint32_t r = 0; r < rows; ++r)
            rowSum[r0 + r] += partial[std::size_t(blk) * rows + r];
    std::uint64_t total = 0;
    for (auto v : clamped) total += v;
    return total;
}

VisibilityStats formFactorDiagnostics(const HostK& K, const std::vector<float>& area) {
    const KChunking& ch = K.chunking();
    std::vector<double> rowSum(ch.n, 0.0);
    std::uint64_t clamped = 0;
    for (std::uint32_t c = K.firstHeld(); c < K.endHeld(); ++c)
        clamped += addChunkRowSums(ch, c, K.chunk(c), area, rowSum);
    return summariseRowSums(rowSum, clamped);
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
