// SPDX-License-Identifier: MIT
// Storage of K_ij (issue 4): fp32, fp16, or 8/4-bit codes into a per-chunk look-up table whose
// entry 0 is an exact zero. K is kept in 32-bit words; these functions find an element's word
// and decode it, identically in the C++ reference and the shaders. How the tables are built
// (logarithmic or "lutrange") is host-only (src/k/k_encode.h).
#ifndef RSIM_SHARED_KFORMAT_H
#define RSIM_SHARED_KFORMAT_H

#include "glsl_compat.h"

#ifdef __cplusplus
#include <glm/gtc/packing.hpp>
#endif

RSIM_SHARED_BEGIN

// Storage classes (the shaders' FORMAT specialization constant).
RSIM_CONST uint RSIM_K_FP32 = 0u;
RSIM_CONST uint RSIM_K_FP16 = 1u;
RSIM_CONST uint RSIM_K_LUT8 = 2u;
RSIM_CONST uint RSIM_K_LUT4 = 3u;

RSIM_FN uint rsimKBits(uint storage) {
    return storage == RSIM_K_FP32 ? 32u : storage == RSIM_K_FP16 ? 16u : storage == RSIM_K_LUT8 ? 8u : 4u;
}

// Entries of one chunk's table (0 for fp32 and fp16).
RSIM_FN uint rsimKTableSize(uint storage) {
    return storage == RSIM_K_LUT8 ? 256u : storage == RSIM_K_LUT4 ? 16u : 0u;
}

// The 32-bit word that holds element e of a chunk.
RSIM_FN uint rsimKWord(uint storage, uint e) { return e / (32u / rsimKBits(storage)); }

// The table code of element e in its word (LUT formats).
RSIM_FN uint rsimKCode(uint storage, uint word, uint e) {
    if (storage == RSIM_K_LUT8) return (word >> ((e & 3u) * 8u)) & 0xffu;
    return (word >> ((e & 7u) * 4u)) & 0xfu;
}

// The value of element e for the formats without a table.
RSIM_FN float rsimKPlain(uint storage, uint word, uint e) {
    if (storage == RSIM_K_FP16) return unpackHalf2x16(word)[int(e & 1u)];
    return uintBitsToFloat(word);
}

// K stored as segments (issue 63; src/k/k_segments.h): a chunk's rows in tiles of
// RSIM_K_SEGMENT_ROWS (rows [32 t, 32 t + 32) of the chunk, a warp of receivers), and for each
// tile the columns j where one of its rows has K_ij != 0, ascending. A segment is three words:
// its column j, the mask of its rows that are non-zero (bit r - 32 t), and the index of its first
// value. The values are the non-zero elements in segment order, rows ascending, packed in the
// format's bits exactly as a dense chunk packs its elements (rsimKWord, rsimKCode and
// rsimKPlain read value v as they read element e), under the same table; each segment's first
// value starts a word (rsimKSegmentSlots), so that segments are written and read word by word.
RSIM_CONST uint RSIM_K_SEGMENT_ROWS = 32u;
RSIM_CONST uint RSIM_K_SEGMENT_WORDS = 3u;

// A chunk stored as segments is one run of words (a DeviceK's buffer, k/k_segments.h's
// segmentBufferWords): tiles + 1 tile starts, then the segments, then the values. Word w of
// segment s in it, and where the values start after `segments` segments.
RSIM_FN uint rsimKSegmentWordAt(uint tiles, uint s, uint w) { return tiles + 1u + s * RSIM_K_SEGMENT_WORDS + w; }
RSIM_FN uint rsimKSegmentValuesAt(uint tiles, uint segments) { return rsimKSegmentWordAt(tiles, segments, 0u); }

// Value slots a segment of `values` values takes: whole words of the format.
RSIM_FN uint rsimKSegmentSlots(uint storage, uint values) {
    uint perWord = 32u / rsimKBits(storage);
    return (values + perWord - 1u) / perWord * perWord;
}

// The value index of row `lane` (0..31) of a segment whose first value is `first`, or ~0u when
// that row's element is zero.
RSIM_FN uint rsimKSegmentValue(uint first, uint mask, uint lane) {
    if (((mask >> lane) & 1u) == 0u) return ~0u;
    uint below = lane == 0u ? 0u : mask & (0xffffffffu >> (32u - lane));
    return first + uint(bitCount(below));
}

RSIM_SHARED_END

#endif
