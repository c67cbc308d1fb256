// SPDX-License-Identifier: MIT
// K stored as segments made from a dense chunk on its device (src/k/vulkan_k_compact.h; the
// layout is include/rsim/shared/kformat.h's). An invocation of passes 0 and 2 is one column j of
// one tile t: the mask of the tile's rows whose element K_tj is non-zero, read from the dense
// chunk. Pass 0 sums a block's segments and value slots; pass 1 scans one tile's block sums into
// offsets; pass 2 writes segment s = the tile's first + the block's offset + the column's place in
// its block, and its values in the words from its first slot on, which no other segment shares.
// The result is toSegments()'s (src/k/k_segments.cpp), word for word.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "rsim/shared/kformat.h"
layout(constant_id = RSIM_SPEC_K_FORMAT) const uint KFORMAT = RSIM_K_LUT8;
layout(local_size_x = RSIM_WG_COMPACT) in;
layout(push_constant) uniform Push { KCompactPush pc; };

layout(buffer_reference, std430, buffer_reference_align = 8) buffer Uvec2Refs { uvec2 v[]; };

shared uvec2 sScan[RSIM_WG_COMPACT];

// The raw field (code, fp16 or fp32 bits) of packed element e of the dense chunk.
uint denseField(UintRefs dense, uint e) {
    const uint BITS = rsimKBits(KFORMAT), PER_WORD = 32u / BITS;
    uint word = dense.v[e / PER_WORD];
    return BITS == 32u ? word : (word >> ((e % PER_WORD) * BITS)) & ((1u << BITS) - 1u);
}

// Rows of tile t whose element in column j is non-zero.
uint tileMask(UintRefs dense, uint t, uint j) {
    uint first = t * RSIM_K_SEGMENT_ROWS, lanes = min(RSIM_K_SEGMENT_ROWS, pc.rows - first);
    uint base = j * pc.rows + first, mask = 0u;
    for (uint lane = 0u; lane < lanes; ++lane)
        if (denseField(dense, base + lane) != 0u) mask |= 1u << lane;
    return mask;
}

// The workgroup's inclusive prefix sums of `mine` (Hillis-Steele in shared memory).
uvec2 inclusiveScan(uvec2 mine) {
    uint t = gl_LocalInvocationID.x;
    sScan[t] = mine;
    barrier();
    for (uint step = 1u; step < RSIM_WG_COMPACT; step <<= 1u) {
        uvec2 add = t >= step ? sScan[t - step] : uvec2(0u);
        barrier();
        sScan[t] += add;
        barrier();
    }
    return sScan[t];
}

// Segments and value slots of column j's mask: (0, 0) or (1, slots).
uvec2 segmentSize(uint mask) {
    return mask == 0u ? uvec2(0u) : uvec2(1u, rsimKSegmentSlots(KFORMAT, bitCount(mask)));
}

// Pass 1: tile t's block sums become the offsets of the blocks in the tile.
void scanTile(uint t) {
    Uvec2Refs sums = Uvec2Refs(pc.blockSums);
    uvec2 carry = uvec2(0u);
    for (uint b0 = 0u; b0 < pc.blocks; b0 += RSIM_WG_COMPACT) {
        uint b = b0 + gl_LocalInvocationID.x;
        uint at = t * pc.blocks + b;
        uvec2 mine = b < pc.blocks ? sums.v[at] : uvec2(0u);
        uvec2 inclusive = inclusiveScan(mine);
        if (b < pc.blocks) sums.v[at] = carry + inclusive - mine;
        carry += sScan[RSIM_WG_COMPACT - 1u];
        barrier(); // sScan is read above before the next round writes it
    }
    if (gl_LocalInvocationID.x == 0u) Uvec2Refs(pc.tileTotals).v[t] = carry;
}

// Pass 2: segment (j, mask, first slot) and its values, rows ascending, packed from a word's start.
void writeSegment(UintRefs dense, UintRefs outWords, uint t, uint j, uint mask, uint s, uint slot) {
    const uint BITS = rsimKBits(KFORMAT), PER_WORD = 32u / BITS;
    uint at = rsimKSegmentWordAt(pc.tiles, s, 0u);
    outWords.v[at] = j;
    outWords.v[at + 1u] = mask;
    outWords.v[at + 2u] = slot;
    uint w = pc.valuesAt + slot / PER_WORD, word = 0u, q = 0u;
    uint base = j * pc.rows + t * RSIM_K_SEGMENT_ROWS;
    for (uint rest = mask; rest != 0u; rest &= rest - 1u) {
        word |= denseField(dense, base + uint(findLSB(rest))) << (q * BITS);
        if (++q == PER_WORD) {
            outWords.v[w++] = word;
            word = 0u;
            q = 0u;
        }
    }
    if (q != 0u) outWords.v[w] = word;
}

void main() {
    uint t = pc.tileBegin + gl_WorkGroupID.y;
    if (pc.pass == RSIM_K_COMPACT_SCAN) {
        scanTile(t);
        return;
    }
    UintRefs dense = UintRefs(pc.dense);
    uint b = gl_WorkGroupID.x, j = b * RSIM_WG_COMPACT + gl_LocalInvocationID.x;
    uint mask = j < pc.n ? tileMask(dense, t, j) : 0u;
    uvec2 mine = segmentSize(mask);
    uvec2 inclusive = inclusiveScan(mine);
    if (pc.pass == RSIM_K_COMPACT_COUNT) {
        if (gl_LocalInvocationID.x == 0u) Uvec2Refs(pc.blockSums).v[t * pc.blocks + b] = sScan[RSIM_WG_COMPACT - 1u];
        return;
    }
    uvec2 first = Uvec2Refs(pc.tileBases).v[t] + Uvec2Refs(pc.blockSums).v[t * pc.blocks + b] + inclusive - mine;
    UintRefs outWords = UintRefs(pc.chunkOut);
    if (mask != 0u) writeSegment(dense, outWords, t, j, mask, first.x, first.y);
    if (b == 0u && gl_LocalInvocationID.x == 0u) {
        outWords.v[t] = Uvec2Refs(pc.tileBases).v[t].x;
        if (t + 1u == pc.tiles) outWords.v[pc.tiles] = pc.segments;
    }
}
