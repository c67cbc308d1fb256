// SPDX-License-Identifier: MIT
// Encodes one fp32 K chunk in a logarithmic LUT format (lut8-log, lut4-log) where K was
// computed, so the default format costs no trip through host memory. Pass 0: the range of the
// chunk's non-zero values. Pass 1: each invocation packs one 32-bit word of codes, each code
// 1 + #{boundaries <= v} (the rule of logTable in src/k/k_encode.h, which the CPU encoder
// applies too), and sums the squared errors of its workgroup.
#version 460
#extension GL_GOOGLE_include_directive : require
#include "common/rsim.glsl"
#include "rsim/shared/kformat.h"
layout(constant_id = RSIM_SPEC_K_FORMAT) const uint KFORMAT = RSIM_K_LUT8;
layout(local_size_x = RSIM_WG_ENCODE) in;
layout(push_constant) uniform Push { KEncodePush pc; };

shared float sTable[256];
shared float sBounds[256];
shared uint sMin, sMax, sMaxErr;
shared float sSum[RSIM_WG_ENCODE];

void main() {
    const uint BITS = rsimKBits(KFORMAT), PER_WORD = 32u / BITS, L = rsimKTableSize(KFORMAT);
    uint t = gl_LocalInvocationID.x;
    uint w = pc.begin + gl_GlobalInvocationID.x;
    FloatRefs values = FloatRefs(pc.values);
    UintRefs stats = UintRefs(pc.stats);
    if (t == 0u) {
        sMin = 0x7f800000u;
        sMax = 0u;
        sMaxErr = 0u;
    }
    if (pc.pass == 1u && t < L) {
        sTable[t] = FloatRefs(pc.table).v[t];
        sBounds[t] = FloatRefs(pc.bounds).v[t];
    }
    barrier();

    uint first = w * PER_WORD;
    uint last = w < pc.end ? min(pc.count, first + PER_WORD) : first;
    if (pc.pass == 0u) {
        // Non-negative floats order like their bit patterns.
        uint lo = 0x7f800000u, hi = 0u; // +inf
        for (uint e = first; e < last; ++e) {
            float v = values.v[e];
            if (v > 0.0) {
                lo = min(lo, floatBitsToUint(v));
                hi = max(hi, floatBitsToUint(v));
            }
        }
        atomicMin(sMin, lo);
        atomicMax(sMax, hi);
        barrier();
        if (t == 0u) {
            atomicMin(stats.v[0], sMin);
            atomicMax(stats.v[1], sMax);
        }
        return;
    }

    uint word = 0u;
    float squared = 0.0, maxErr = 0.0;
    for (uint e = first; e < last; ++e) {
        float v = values.v[e];
        uint code = 0u;
        if (v > 0.0) {
            uint below = 0u; // boundaries <= v
            for (uint step = L / 2u; step > 0u; step >>= 1u)
                if (sBounds[below + step - 1u] <= v) below += step;
            code = 1u + below;
        }
        word |= code << ((e - first) * BITS);
        float err = sTable[code] - v;
        squared += err * err;
        maxErr = max(maxErr, abs(err));
    }
    if (w < pc.end) UintRefs(pc.words).v[w] = word;
    sSum[t] = squared;
    atomicMax(sMaxErr, floatBitsToUint(maxErr));
    barrier();
    for (uint s = RSIM_WG_ENCODE / 2u; s > 0u; s >>= 1u) {
        if (t < s) sSum[t] += sSum[t + s];
        barrier();
    }
    if (t == 0u) {
        FloatRefs(pc.partials).v[pc.begin / RSIM_WG_ENCODE + gl_WorkGroupID.x] = sSum[0];
        atomicMax(stats.v[2], sMaxErr);
    }
}
