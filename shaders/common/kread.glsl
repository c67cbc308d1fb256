// SPDX-License-Identifier: MIT
// Reading K in any storage format (include/rsim/shared/kformat.h): the format is a
// specialization constant, so each pipeline is compiled for one format.
#include "rsim/shared/kformat.h"
layout(constant_id = RSIM_SPEC_K_FORMAT) const uint KFORMAT = RSIM_K_FP32;
layout(constant_id = RSIM_SPEC_K_LAYOUT) const uint KLAYOUT = RSIM_K_LAYOUT_DENSE;

// Element e of a K chunk; `table` is the chunk's table (LUT formats).
float rsimLoadK(uint64_t chunk, uint64_t table, uint e) {
    uint word = UintRefs(chunk).v[rsimKWord(KFORMAT, e)];
    if (KFORMAT <= RSIM_K_FP16) return rsimKPlain(KFORMAT, word, e);
    return FloatRefs(table).v[rsimKCode(KFORMAT, word, e)];
}

// K stored as segments (kformat.h): tile t's segments are [rsimKTileStart(t), rsimKTileStart(t + 1)),
// and word w of segment s (0: column, 1: row mask, 2: first value).
uint rsimKTileStart(uint64_t segments, uint t) { return UintRefs(segments).v[t]; }
uint rsimKSegmentWord(uint64_t segments, uint tiles, uint s, uint w) {
    return UintRefs(segments).v[rsimKSegmentWordAt(tiles, s, w)];
}

// K_ij of chunk row `col` (i - rowBegin) and column j, whatever the layout: as segments, a
// binary search among the columns of the row's tile.
float rsimLoadKAt(uint64_t chunk, uint64_t table, uint64_t segments, uint rows, uint col, uint j) {
    if (KLAYOUT == RSIM_K_LAYOUT_DENSE) return rsimLoadK(chunk, table, j * rows + col);
    uint tiles = (rows + RSIM_K_SEGMENT_ROWS - 1u) / RSIM_K_SEGMENT_ROWS, t = col / RSIM_K_SEGMENT_ROWS;
    uint lo = rsimKTileStart(segments, t), hi = rsimKTileStart(segments, t + 1u);
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (rsimKSegmentWord(segments, tiles, mid, 0u) < j) lo = mid + 1u;
        else hi = mid;
    }
    if (lo == rsimKTileStart(segments, t + 1u) || rsimKSegmentWord(segments, tiles, lo, 0u) != j) return 0.0;
    uint v = rsimKSegmentValue(rsimKSegmentWord(segments, tiles, lo, 2u), rsimKSegmentWord(segments, tiles, lo, 1u),
                               col % RSIM_K_SEGMENT_ROWS);
    return v == ~0u ? 0.0 : rsimLoadK(chunk, table, v);
}
