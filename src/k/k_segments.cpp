// SPDX-License-Identifier: MIT
#include "k/k_segments.h"

#include <algorithm>

#include "util/error.h"

namespace rsim {
namespace {

constexpr std::uint32_t kRows = shared::RSIM_K_SEGMENT_ROWS;
constexpr std::uint32_t kWords = shared::RSIM_K_SEGMENT_WORDS;

// The raw field (code, or fp16/fp32 bits) of packed element e, and writing one: the same
// packing whatever the element's role (a dense element or a segment's value).
std::uint32_t fieldOf(const std::uint32_t* words, std::uint32_t bits, std::uint64_t e) {
    const std::uint32_t per = 32 / bits;
    const std::uint32_t word = words[e / per];
    return bits == 32 ? word : (word >> (std::uint32_t(e % per) * bits)) & ((1u << bits) - 1u);
}
void putField(std::uint32_t* words, std::uint32_t bits, std::uint64_t e, std::uint32_t field) {
    const std::uint32_t per = 32 / bits;
    std::uint32_t& word = words[e / per];
    if (bits == 32) {
        word = field;
        return;
    }
    const std::uint32_t shift = std::uint32_t(e % per) * bits;
    word = (word & ~(((1u << bits) - 1u) << shift)) | (field << shift);
}

std::uint64_t packedWords(std::uint64_t count, std::uint32_t bits) { return (count * bits + 31) / 32; }

} // namespace

std::uint64_t SegmentChunk::bytes() const {
    return (tileStart.size() + segments.size() + words.size()) * sizeof(std::uint32_t) + table.size() * sizeof(float);
}

std::uint64_t segmentBytes(std::uint32_t rows, const SegmentCount& count) {
    return (std::uint64_t(segmentTiles(rows)) + 1 + count.segments * kWords + count.words) * sizeof(std::uint32_t);
}

namespace {

// Each (tile, column)'s mask of non-zero rows, [tile][column], read in the dense chunk's order
// (column by column).
std::vector<std::uint32_t> segmentMasks(const EncodedChunk& dense, std::uint32_t rows, std::uint32_t n,
                                        std::uint32_t storage) {
    const std::uint32_t bits = shared::rsimKBits(storage);
    if (dense.count != std::uint64_t(rows) * n || dense.words.size() != packedWords(dense.count, bits))
        throw Error("internal: a K chunk's size does not match its rows");
    std::vector<std::uint32_t> masks(std::size_t(segmentTiles(rows)) * n, 0u);
    for (std::uint32_t j = 0; j < n; ++j) {
        const std::uint64_t base = std::uint64_t(j) * rows;
        for (std::uint32_t r = 0; r < rows; ++r)
            if (fieldOf(dense.words.data(), bits, base + r) != 0) masks[std::size_t(r / kRows) * n + j] |= 1u << (r % kRows);
    }
    return masks;
}

} // namespace

SegmentCount countSegments(const EncodedChunk& dense, std::uint32_t rows, std::uint32_t n, std::uint32_t storage) {
    SegmentCount out;
    const std::uint32_t perWord = 32 / shared::rsimKBits(storage);
    for (const std::uint32_t m : segmentMasks(dense, rows, n, storage)) {
        out.segments += m != 0;
        out.values += std::uint32_t(__builtin_popcount(m));
        out.words += shared::rsimKSegmentSlots(storage, std::uint32_t(__builtin_popcount(m))) / perWord;
    }
    return out;
}

SegmentChunk toSegments(const EncodedChunk& dense, std::uint32_t rows, std::uint32_t n, std::uint32_t storage) {
    const std::uint32_t bits = shared::rsimKBits(storage), tiles = segmentTiles(rows);
    const std::vector<std::uint32_t> masks = segmentMasks(dense, rows, n, storage);
    SegmentChunk out;
    out.table = dense.table;
    out.sumSquaredError = dense.sumSquaredError;
    out.maxAbsError = dense.maxAbsError;
    out.tileStart.resize(tiles + 1, 0);
    std::uint64_t segments = 0, slots = 0;
    for (std::uint32_t t = 0; t < tiles; ++t) {
        out.tileStart[t] = std::uint32_t(segments);
        for (std::uint32_t j = 0; j < n; ++j)
            if (const std::uint32_t m = masks[std::size_t(t) * n + j]) {
                ++segments;
                out.values += std::uint32_t(__builtin_popcount(m));
                slots += shared::rsimKSegmentSlots(storage, std::uint32_t(__builtin_popcount(m)));
            }
    }
    out.tileStart[tiles] = std::uint32_t(segments);
    out.segments.reserve(segments * kWords);
    out.words.assign(packedWords(slots, bits), 0u);
    // Pass 2, tile by tile: the segments and their values, rows ascending, each segment's from a
    // word's start.
    std::uint64_t v = 0;
    for (std::uint32_t t = 0; t < tiles; ++t)
        for (std::uint32_t j = 0; j < n; ++j) {
            const std::uint32_t m = masks[std::size_t(t) * n + j];
            if (!m) continue;
            out.segments.insert(out.segments.end(), {j, m, std::uint32_t(v)});
            const std::uint64_t base = std::uint64_t(j) * rows + std::uint64_t(t) * kRows;
            std::uint64_t at = v;
            for (std::uint32_t lane = 0; lane < kRows; ++lane)
                if ((m >> lane) & 1u) putField(out.words.data(), bits, at++, fieldOf(dense.words.data(), bits, base + lane));
            v += shared::rsimKSegmentSlots(storage, std::uint32_t(__builtin_popcount(m)));
        }
    return out;
}

EncodedChunk toDense(const SegmentChunk& chunk, std::uint32_t rows, std::uint32_t n, std::uint32_t storage) {
    const std::uint32_t bits = shared::rsimKBits(storage);
    EncodedChunk out;
    out.count = std::uint64_t(rows) * n;
    out.words.assign(packedWords(out.count, bits), 0u);
    out.table = chunk.table;
    out.sumSquaredError = chunk.sumSquaredError;
    out.maxAbsError = chunk.maxAbsError;
    for (std::uint32_t t = 0; t + 1 < chunk.tileStart.size(); ++t)
        for (std::uint32_t s = chunk.tileStart[t]; s < chunk.tileStart[t + 1]; ++s) {
            const std::uint64_t base = std::uint64_t(chunk.column(s)) * rows + std::uint64_t(t) * kRows;
            for (std::uint32_t lane = 0; lane < kRows; ++lane) {
                const std::uint32_t v = shared::rsimKSegmentValue(chunk.first(s), chunk.mask(s), lane);
                if (v != ~0u) putField(out.words.data(), bits, base + lane, fieldOf(chunk.words.data(), bits, v));
            }
        }
    return out;
}

std::vector<std::uint32_t> segmentBufferWords(const SegmentChunk& s) {
    std::vector<std::uint32_t> words;
    words.reserve(s.tileStart.size() + s.segments.size() + s.words.size());
    words.insert(words.end(), s.tileStart.begin(), s.tileStart.end());
    words.insert(words.end(), s.segments.begin(), s.segments.end());
    words.insert(words.end(), s.words.begin(), s.words.end());
    return words;
}

namespace {

// Row r, column j of segments `segments` under tile starts `tileStart`, values in `words`.
float elementOf(const std::uint32_t* tileStart, const std::uint32_t* segments, const std::uint32_t* words,
                const float* table, std::uint32_t storage, std::uint32_t r, std::uint32_t j) {
    const std::uint32_t t = r / kRows;
    std::uint32_t lo = tileStart[t], hi = tileStart[t + 1];
    while (lo < hi) { // the first segment whose column is >= j
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (segments[mid * kWords] < j) lo = mid + 1;
        else hi = mid;
    }
    if (lo == tileStart[t + 1] || segments[lo * kWords] != j) return 0.0f;
    const std::uint32_t v = shared::rsimKSegmentValue(segments[lo * kWords + 2], segments[lo * kWords + 1], r % kRows);
    return v == ~0u ? 0.0f : decodePacked(words, table, storage, v);
}

} // namespace

float segmentElement(const SegmentChunk& chunk, std::uint32_t storage, std::uint32_t r, std::uint32_t j) {
    return elementOf(chunk.tileStart.data(), chunk.segments.data(), chunk.words.data(), chunk.table.data(), storage,
                     r, j);
}

float segmentElementIn(const std::uint32_t* chunk, std::uint32_t tiles, const std::uint32_t* values,
                       const float* table, std::uint32_t storage, std::uint32_t r, std::uint32_t j) {
    return elementOf(chunk, chunk + shared::rsimKSegmentWordAt(tiles, 0, 0), values, table, storage, r, j);
}

bool segmentsSound(const SegmentChunk& c, std::uint32_t n, std::uint32_t storage) {
    const std::uint32_t segments = c.segmentCount();
    if (c.tileStart.empty() || c.tileStart.front() != 0 || c.tileStart.back() != segments) return false;
    std::uint64_t values = 0, slots = 0;
    for (std::size_t t = 0; t + 1 < c.tileStart.size(); ++t) {
        if (c.tileStart[t] > c.tileStart[t + 1] || c.tileStart[t + 1] > segments) return false;
        for (std::uint32_t s = c.tileStart[t]; s < c.tileStart[t + 1]; ++s) {
            if (c.column(s) >= n || (s > c.tileStart[t] && c.column(s) <= c.column(s - 1)) || c.mask(s) == 0 ||
                c.first(s) != slots)
                return false;
            const std::uint32_t count = std::uint32_t(__builtin_popcount(c.mask(s)));
            values += count;
            slots += shared::rsimKSegmentSlots(storage, count);
        }
    }
    return values == c.values && slots * shared::rsimKBits(storage) == c.words.size() * 32;
}

} // namespace rsim
