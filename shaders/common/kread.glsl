// SPDX-License-Identifier: MIT
// Reading K in any storage format (include/rsim/shared/kformat.h): the format is a
// specialization constant, so each pipeline is compiled for one format.
#include "rsim/shared/kformat.h"
layout(constant_id = RSIM_SPEC_K_FORMAT) const uint KFORMAT = RSIM_K_FP32;

// Element e of a K chunk; `table` is the chunk's table (LUT formats).
float rsimLoadK(uint64_t chunk, uint64_t table, uint e) {
    uint word = UintRefs(chunk).v[rsimKWord(KFORMAT, e)];
    if (KFORMAT <= RSIM_K_FP16) return rsimKPlain(KFORMAT, word, e);
    return FloatRefs(table).v[rsimKCode(KFORMAT, word, e)];
}
