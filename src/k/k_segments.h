// SPDX-License-Identifier: MIT
// A chunk of K stored as segments (issue 63; the layout is include/rsim/shared/kformat.h's,
// RSIM_K_SEGMENT_ROWS): for each tile of 32 rows, the columns where one of its rows is non-zero,
// each with the mask of those rows and its values. The values are a dense chunk's codes (or fp32
// and fp16 bits) of its non-zero elements, under the same table: K stored as segments decodes to
// exactly the values of K stored dense. Sparsity is storage, never an approximation.
#pragma once
#include <cstdint>
#include <vector>

#include "k/k_encode.h"

namespace rsim {

struct SegmentChunk {
    std::vector<std::uint32_t> tileStart; // tiles + 1 entries: tile t's segments are [tileStart[t], tileStart[t + 1])
    std::vector<std::uint32_t> segments;  // RSIM_K_SEGMENT_WORDS a segment: column, row mask, first value
    std::vector<std::uint32_t> words;     // the non-zero values, packed as a dense chunk packs
                                          // elements, each segment's from a word's start
    std::vector<float> table;             // LUT formats: the chunk's table (entry 0, the zero, unused)
    std::uint64_t values = 0;             // non-zero elements
    // Errors of the encoding against the fp32 values (those of the dense chunk it came from).
    double sumSquaredError = 0.0;
    double maxAbsError = 0.0;

    std::uint32_t segmentCount() const { return std::uint32_t(segments.size() / shared::RSIM_K_SEGMENT_WORDS); }
    std::uint32_t column(std::uint32_t s) const { return segments[s * shared::RSIM_K_SEGMENT_WORDS]; }
    std::uint32_t mask(std::uint32_t s) const { return segments[s * shared::RSIM_K_SEGMENT_WORDS + 1]; }
    std::uint32_t first(std::uint32_t s) const { return segments[s * shared::RSIM_K_SEGMENT_WORDS + 2]; }
    // Row `lane` of segment s (0 where its bit is clear).
    float element(std::uint32_t storage, std::uint32_t s, std::uint32_t lane) const {
        const std::uint32_t v = shared::rsimKSegmentValue(first(s), mask(s), lane);
        return v == ~0u ? 0.0f : decodePacked(words.data(), table.data(), storage, v);
    }
    // Bytes of everything it holds (tile starts, segments, values, table).
    std::uint64_t bytes() const;
};

// Tiles of a chunk of `rows` rows.
inline std::uint32_t segmentTiles(std::uint32_t rows) {
    return (rows + shared::RSIM_K_SEGMENT_ROWS - 1) / shared::RSIM_K_SEGMENT_ROWS;
}

// The segments of a dense chunk of `rows` rows of n columns (element (r, j) at j rows + r),
// with its codes and table; and back.
SegmentChunk toSegments(const EncodedChunk& dense, std::uint32_t rows, std::uint32_t n, std::uint32_t storage);
EncodedChunk toDense(const SegmentChunk& chunk, std::uint32_t rows, std::uint32_t n, std::uint32_t storage);

// How many segments, non-zero values and words of values a dense chunk has (what toSegments
// would keep).
struct SegmentCount {
    std::uint64_t segments = 0, values = 0, words = 0;
};
SegmentCount countSegments(const EncodedChunk& dense, std::uint32_t rows, std::uint32_t n, std::uint32_t storage);

// The chunk as one run of words, as a device holds it (DeviceK): tile starts, segments, values.
std::vector<std::uint32_t> segmentBufferWords(const SegmentChunk& chunk);

// Element (row r of the chunk, column j): a binary search among its tile's columns.
float segmentElement(const SegmentChunk& chunk, std::uint32_t storage, std::uint32_t r, std::uint32_t j);
// The same in a chunk's words as a DeviceK holds them: `tiles` + 1 tile starts, the segments, and
// the values from `values` on (a streamed chunk in pinned host memory).
float segmentElementIn(const std::uint32_t* chunk, std::uint32_t tiles, const std::uint32_t* values,
                       const float* table, std::uint32_t storage, std::uint32_t r, std::uint32_t j);

// Bytes that a chunk of `rows` rows takes as segments (tile starts, segments, values; no table),
// from its count.
std::uint64_t segmentBytes(std::uint32_t rows, const SegmentCount& count);

// Whether segments read from elsewhere (a K cache file) are sound: tile starts ascending up to
// the segments, columns below n and ascending in a tile, each segment's values where the ones
// before it end, as many values and words as they say. A checksum finds damage; this keeps a
// well-formed file of wrong content from reading out of bounds.
bool segmentsSound(const SegmentChunk& chunk, std::uint32_t n, std::uint32_t storage);

} // namespace rsim
