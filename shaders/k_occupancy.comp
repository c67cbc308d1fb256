// SPDX-License-Identifier: MIT
// Which blocks of a K chunk hold a non-zero element (KOccupancyPush, include/rsim/shared/
// gpu_layout.h): workgroup (x, y) is receiver group x (RSIM_K_BLOCK receivers of the chunk, one an
// invocation) and RSIM_K_OCCUPANCY_BLOCKS source blocks, one a row (y); each invocation reads its
// receiver's elements of its block, and the block's bit is set when one of them is non-zero (the
// gathers' own test).
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/kread.glsl"
const uint BLOCKS = RSIM_K_OCCUPANCY_BLOCKS;
layout(local_size_x = RSIM_K_BLOCK, local_size_y = BLOCKS) in;
layout(push_constant) uniform Push { KOccupancyPush pc; };

shared uint blockHolds[BLOCKS];
#include "common/kread_table.glsl"

void main() {
    uint lane = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y;
    if (lane == 0u) blockHolds[y] = 0u;
    rsimLoadKTable(y * RSIM_K_BLOCK + lane, RSIM_K_BLOCK * BLOCKS);
    barrier();
    uint rows = pc.k.rowEnd - pc.k.rowBegin;
    uint r = gl_WorkGroupID.x * RSIM_K_BLOCK + lane;
    uint b = gl_WorkGroupID.y * BLOCKS + y;
    bool holds = false;
    for (uint t = 0u; r < rows && t < RSIM_K_BLOCK && !holds; ++t) {
        uint j = b * RSIM_K_BLOCK + t;
        if (j >= pc.n) break;
        holds = loadK(j * rows + r) != 0.0;
    }
    if (holds) atomicOr(blockHolds[y], 1u);
    barrier();
    if (lane == 0u && blockHolds[y] != 0u)
        atomicOr(UintRefs(pc.bits).v[gl_WorkGroupID.x * rsimKOccupancyWords(pc.n) + b / 32u], 1u << (b % 32u));
}
