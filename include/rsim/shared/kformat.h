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

RSIM_SHARED_END

#endif
