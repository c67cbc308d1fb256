// SPDX-License-Identifier: MIT
// Decodes one K chunk to fp32 with the same rsimLoadK the radiosity passes use: what
// --write-kij writes for the GPU, and what the tests compare with the host's decoding.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "common/kread.glsl"
layout(local_size_x = RSIM_WG_LINEAR) in;
layout(push_constant) uniform Push { KDecodePush pc; };

void main() {
    uint e = pc.begin + gl_GlobalInvocationID.x;
    if (e >= pc.end) return;
    FloatRefs(pc.values).v[e] = rsimLoadK(pc.kChunk, pc.kTable, e);
}
