// SPDX-License-Identifier: MIT
// How K is cut into chunks of rows and where an element lives in its chunk: the one layout of
// every K container, host or device (kernels read it through the same index, see
// shaders/visibility.glsl's storeK and radiosity_far.comp). Chunk c holds rows [c R, (c+1) R)
// and keeps element (i, j) at j * rows_c + (i - c R), so that neighbouring receivers i sit in
// neighbouring elements (a warp of receivers reads one line per source j).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>

#include "core/k_format.h"

namespace rsim {

struct KChunking {
    std::uint32_t n = 0;
    std::uint32_t rowsPerChunk = 1;
    KFormat format = KFormat::Fp32;

    // Rows per chunk for a chunk budget of `chunkBytes` (both backends use this, so their
    // chunks, tables and decoded values match).
    static KChunking forBudget(std::uint32_t n, KFormat format, std::uint64_t chunkBytes);

    std::uint32_t chunks() const { return n == 0 ? 0 : (n + rowsPerChunk - 1) / rowsPerChunk; }
    std::uint32_t chunkOf(std::uint32_t i) const { return i / rowsPerChunk; }
    std::uint32_t rowBegin(std::uint32_t c) const { return c * rowsPerChunk; }
    std::uint32_t rowEnd(std::uint32_t c) const { return std::min(n, (c + 1) * rowsPerChunk); }
    std::uint32_t rows(std::uint32_t c) const { return rowEnd(c) - rowBegin(c); }
    std::uint64_t elements(std::uint32_t c) const { return std::uint64_t(rows(c)) * n; }
    // Index of element (i, j) in chunk chunkOf(i).
    std::uint64_t index(std::uint32_t i, std::uint32_t j) const {
        const std::uint32_t c = chunkOf(i);
        return std::uint64_t(j) * rows(c) + (i - rowBegin(c));
    }
    std::uint32_t storage() const { return kFormatInfo(format).storage; }
    // Bytes of chunk c's packed elements, in whole 32-bit words (its table not included).
    std::uint64_t chunkBytes(std::uint32_t c) const;
    std::uint64_t largestChunkBytes() const { return chunks() ? chunkBytes(0) : 0; }
    // Bytes of all of K: the elements at the format's size (rounded up to a byte) plus one table
    // per chunk. summary.json's k_bytes.
    std::uint64_t bytes() const;
    // The same chunks in another format.
    KChunking as(KFormat f) const { return KChunking{n, rowsPerChunk, f}; }
};

// Runs fn(c, a, b, worker) on all cores for row tiles [a, b) (offsets within chunk c) of at most
// `tile` rows: how a chunk is read by rows, a tile's elements (j, a..b) at a time. Only chunks
// [firstChunk, endChunk) when given.
void parallelRowTiles(
    const KChunking& chunking, std::uint32_t tile,
    const std::function<void(std::uint32_t, std::uint32_t, std::uint32_t, unsigned)>& fn,
    std::uint32_t firstChunk = 0, std::uint32_t endChunk = UINT32_MAX);

} // namespace rsim
