// SPDX-License-Identifier: MIT
// K of one chunk read through a copy of the chunk's table in shared memory (the far gathers,
// which read many K elements per workgroup). Include after kread.glsl and after the push
// constant `pc`, whose KChunkRef `k` names the chunk.
shared float kTable[256];

// Copies the table (LUT formats); every invocation of the workgroup calls it (a barrier), as
// invocation `local` of `count`.
void rsimLoadKTable(uint local, uint count) {
    if (KFORMAT <= RSIM_K_FP16) return;
    for (uint k = local; k < rsimKTableSize(KFORMAT); k += count) kTable[k] = FloatRefs(pc.k.table).v[k];
    barrier();
}

// Element e of the chunk.
float loadK(uint e) {
    uint word = UintRefs(pc.k.data).v[rsimKWord(KFORMAT, e)];
    if (KFORMAT <= RSIM_K_FP16) return rsimKPlain(KFORMAT, word, e);
    return kTable[rsimKCode(KFORMAT, word, e)];
}
