// SPDX-License-Identifier: MIT
// How one chunk of K is encoded in a storage format (core/k_format.h) and decoded again.
#pragma once
#include <cstdint>
#include <string>
#include <span>
#include <vector>

#include "core/k_format.h"
#include "rsim/shared/kformat.h"

namespace rsim {

// One chunk of K in a format: elements packed into 32-bit words as kformat.h reads them, and
// for the LUT formats the chunk's table (entry 0 is an exact zero).
struct EncodedChunk {
    std::vector<std::uint32_t> words;
    std::vector<float> table;
    std::uint64_t count = 0; // elements
    // Errors of the decoded values against the fp32 input.
    double sumSquaredError = 0.0;
    double maxAbsError = 0.0;

    // Bytes of the packed elements (count * bits / 8, rounded up) plus the table.
    std::uint64_t bytes(std::uint32_t storage) const;
};

// The logarithmic table of a chunk whose non-zero values span [vmin, vmax] (paper §4.1: ln K
// spaced evenly over codes), the range rounded outwards: its top, ln vmax, up to a multiple of
// 1/kLogTopGrid; its bottom kLogSpan below the top, or ln vmin rounded down to a whole number
// where that is lower. So the table does not move when one of the chunk's extreme values
// changes a little. Above all the smallest: one pair with a single unoccluded ray, that a
// grazing ray on another backend turns to zero or to twice its value, set every entry
// (docs/model-choices.md, "K storage"). With 8-bit codes the top kLogFineSpan of the range
// gets kLogFineCodes of the 255 codes, evenly spaced, and the rest below it the other 31: the
// entries that carry a row's energy (F_ij = K_ij A_j above 1e-3) lay within 12 of the top in a
// study of the medium room, and rounding there set the rows' sums (docs/model-choices.md, "K
// storage").
// Code boundaries: a value v > 0 gets code 1 + #{m : bounds[m] <= v}. bounds[m] is the
// geometric midpoint of entries m + 1 and m + 2 (rounding in ln K), padded with +inf to L
// entries so a branchless binary search over a power of two finds the count. The CPU encoder and
// shaders/kencode.comp apply this one rule to the same float boundaries, so both backends
// produce identical codes. vmin > vmax: all zero.
struct LogTable {
    std::vector<float> table, bounds;
    std::uint32_t fineFrom = 1; // the first code of the fine top part (1: one even spacing)
};
inline constexpr double kLogTopGrid = 8.0;              // the top on multiples of 1/8 in ln K
inline constexpr double kLogSpan = 24.0;                // at least 24 in ln K below the top
inline constexpr double kLogFineSpan = 14.0;            // 8-bit codes: the top 14 in ln K ...
inline constexpr std::uint32_t kLogFineCodes = 224;     // ... in 224 codes (steps of 0.063)
LogTable logTable(float vmin, float vmax, std::uint32_t storage);

// Encodes `count` fp32 values (any order; the table depends only on the values).
EncodedChunk encodeChunk(const float* values, std::uint64_t count, KFormat format);

// Decoded value of element e (the same arithmetic as the shaders, through kformat.h).
// Chunks hold fewer than 2^32 elements (the shaders index them with 32 bits).
inline float decodePacked(const std::uint32_t* words, const float* table, std::uint32_t storage, std::uint64_t e) {
    const std::uint32_t e32 = std::uint32_t(e);
    const std::uint32_t word = words[shared::rsimKWord(storage, e32)];
    if (storage <= shared::RSIM_K_FP16) return shared::rsimKPlain(storage, word, e32);
    return table[shared::rsimKCode(storage, word, e32)];
}
inline float decodeElement(const EncodedChunk& c, std::uint32_t storage, std::uint64_t e) {
    return decodePacked(c.words.data(), c.table.data(), storage, e);
}

// Errors of every format against fp32 K, given K's chunks as fp32 values (any layout): what
// `rsim run --kij-errors` reports in summary.json for the accuracy study.
struct FormatError {
    KFormat format;
    double rms = 0.0;
    double maxAbs = 0.0;
};
std::vector<FormatError> formatErrors(const std::vector<std::span<const float>>& chunks,
                                      std::uint64_t elements);

} // namespace rsim
